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

#include <cuda_bf16.h>

#include <cstdint>
#include <type_traits>

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

/// visitType, and bf16 as __nv_bfloat16 (for kernels that compute it in
/// f32 through load() and store()).
template <typename F>
bool visitTypeOrBf16(DType dtype, F &&f, bool withBool = true) {
  if (dtype == DType::BF16) {
    f(__nv_bfloat16());
    return true;
  }
  return visitType(dtype, f, withBool);
}

/// The type an element of T computes in: f32 for bf16 (as the CPU's oneDNN
/// primitives do), else T.
template <typename T> struct ComputeTypeOf {
  using type = T;
};
template <> struct ComputeTypeOf<__nv_bfloat16> {
  using type = float;
};
template <typename T> using ComputeType = typename ComputeTypeOf<T>::type;

/// An element of T as a C.
template <typename C, typename T> __device__ inline C load(T x) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    return static_cast<C>(__bfloat162float(x));
  else
    return static_cast<C>(x);
}

/// A computed value as an element of R (bf16: rounded to nearest even).
template <typename R, typename C> __device__ inline R store(C x) {
  if constexpr (std::is_same_v<R, __nv_bfloat16>)
    return __float2bfloat16_rn(static_cast<float>(x));
  else
    return static_cast<R>(x);
}

} // namespace cuda
} // namespace ofrt

#define GRID_LOOP(i, n)                                                        \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n);    \
       i += int64_t(blockDim.x) * gridDim.x)

#endif // OFRT_LIB_RUNTIME_KERNELS_CUDA_GRID_CUH
