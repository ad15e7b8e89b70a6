//===- Grid.cuh - Launch shapes of the CUDA C++ kernels --------*- CUDA -*-===//
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Element-wise kernels run grid-stride loops over their elements with
// kThreads threads per block and at most blocksFor(n) blocks; launchers
// pick the kernel of an element type with visitType.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_KERNELS_CUDA_GRID_CUH
#define OFRT_LIB_RUNTIME_KERNELS_CUDA_GRID_CUH

#include "ofrt/Tensor.h"

#include <cstdint>

namespace ofrt {
namespace cuda {

constexpr int kThreads = 256;

/// Blocks for `n` elements, capped (the loops stride over the rest).
inline unsigned blocksFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

/// Calls f(T()) for the plain types, i1 as uint8_t unless `withBool` is
/// false, and returns true; false for other types.
template <typename F> bool visitType(DType dtype, F &&f, bool withBool = true) {
  switch (dtype) {
  case DType::F32:
    f(float());
    return true;
  case DType::F64:
    f(double());
    return true;
  case DType::I8:
    f(int8_t());
    return true;
  case DType::I32:
    f(int32_t());
    return true;
  case DType::I64:
    f(int64_t());
    return true;
  case DType::Bool:
    if (withBool)
      f(uint8_t());
    return withBool;
  default:
    return false;
  }
}

} // namespace cuda
} // namespace ofrt

#define GRID_LOOP(i, n)                                                        \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n);    \
       i += int64_t(blockDim.x) * gridDim.x)

#endif // OFRT_LIB_RUNTIME_KERNELS_CUDA_GRID_CUH
