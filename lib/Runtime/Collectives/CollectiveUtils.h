//===- CollectiveUtils.h - What every collective library shares -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Runtime/Collectives: how a call is named in messages, and
// dispatch on the element types reductions take.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_COLLECTIVES_COLLECTIVEUTILS_H
#define OFRT_LIB_RUNTIME_COLLECTIVES_COLLECTIVEUTILS_H

#include "ofrt/Tensor.h"

#include <cstdint>
#include <string>

namespace ofrt::collectives {

/// "all_reduce of 8 x f64", for messages.
inline std::string describe(const char *op, DType dtype, int64_t count) {
  return std::string(op) + " of " + std::to_string(count) + " x " +
         dtypeName(dtype);
}

/// Whether a Gloo exception's message says it timed out.
inline bool isTimeoutMessage(const std::string &message) {
  return message.find("imed out") != std::string::npos ||
         message.find("imeout") != std::string::npos;
}

/// Calls fn(T()) with the C++ type of a reducible `dtype` (isReducible).
template <typename Fn> void withReducible(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F64:
    return fn(double());
  case DType::I32:
    return fn(int32_t());
  case DType::I64:
    return fn(int64_t());
  default:
    return fn(float());
  }
}

} // namespace ofrt::collectives

#endif // OFRT_LIB_RUNTIME_COLLECTIVES_COLLECTIVEUTILS_H
