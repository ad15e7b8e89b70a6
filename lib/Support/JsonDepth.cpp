//===- JsonDepth.cpp - How deeply a JSON text nests -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Support/JsonDepth.h"

std::string oneflow_support::jsonDepthError(std::string_view text,
                                            int maxDepth) {
  int depth = 0, line = 1, column = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    ++column;
    if (c == '\n') {
      ++line;
      column = 0;
    }
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return "nests deeper than " + std::to_string(maxDepth) +
               " levels at line " + std::to_string(line) + ", column " +
               std::to_string(column);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return "";
}
