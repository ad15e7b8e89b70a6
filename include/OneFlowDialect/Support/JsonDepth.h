//===- JsonDepth.h - How deeply a JSON text nests ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// llvm::json::parse recurses once per nesting level: 100,000 '[' overflow
// the stack (a SIGSEGV with no message). Readers of user files (strategy and
// cluster files) check the depth first, with this scan, and refuse a text
// that nests deeper than any real file with a located error. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_SUPPORT_JSONDEPTH_H
#define ONEFLOWDIALECT_SUPPORT_JSONDEPTH_H

#include <string>
#include <string_view>

namespace oneflow_support {

/// The nesting a JSON reader accepts: far beyond any strategy or cluster
/// file, far below a stack's limit.
constexpr int kMaxJsonDepth = 256;

/// "" when no array or object in `text` nests deeper than `maxDepth` (text
/// in strings, escapes included, does not count); otherwise "nests deeper
/// than N levels at line L, column C" (where the first level too many
/// opens). Says nothing else about the text's validity.
std::string jsonDepthError(std::string_view text,
                           int maxDepth = kMaxJsonDepth);

} // namespace oneflow_support

#endif // ONEFLOWDIALECT_SUPPORT_JSONDEPTH_H
