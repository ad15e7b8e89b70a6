//===- JsonDepthTest.cpp - The JSON nesting scan ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Support/JsonDepth.h"

#include <gtest/gtest.h>

using oneflow_support::jsonDepthError;

TEST(JsonDepth, AcceptsUpToTheLimit) {
  EXPECT_EQ(jsonDepthError("{}"), "");
  std::string strategy =
      "{\"mesh\": [2, 2], \"rules\": [{\"sbp\": [\"S(0)\"]}]}";
  EXPECT_EQ(jsonDepthError(strategy, 4), "");
  EXPECT_EQ(jsonDepthError("[[[]]]", 3), "");
  EXPECT_EQ(jsonDepthError("[[[[]]]]", 3),
            "nests deeper than 3 levels at line 1, column 4");
}

TEST(JsonDepth, CountsLinesAndColumns) {
  EXPECT_EQ(jsonDepthError("{\n  \"a\": [\n    [1]]}", 2),
            "nests deeper than 2 levels at line 3, column 5");
}

TEST(JsonDepth, IgnoresBracketsInStrings) {
  EXPECT_EQ(jsonDepthError("[\"[[[[\", \"{{{{\"]", 1), "");
  // An escaped quote does not end the string; an escaped backslash does
  // not escape the quote after it.
  std::string escapes = "[\"\\\"[[[\", \"\\\\\", [[]]]";
  EXPECT_EQ(jsonDepthError(escapes, 2),
            "nests deeper than 2 levels at line 1, column 18");
}

TEST(JsonDepth, UnbalancedTextIsLeftToTheParser) {
  // Only the depth is this scan's business: stray closers do not underflow.
  EXPECT_EQ(jsonDepthError("]]]]{}"), "");
  EXPECT_EQ(jsonDepthError(std::string(100000, '[')),
            "nests deeper than 256 levels at line 1, column 257");
}
