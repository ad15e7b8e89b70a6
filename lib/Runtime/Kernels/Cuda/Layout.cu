//===- Layout.cu - Strided copies and reductions --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A strided copy moves elements as words of their size (1, 2, 4 or 8
// bytes), so one kernel serves every element type: transpose, slice and
// each operand of concat are strided copies; where and masked_fill select
// words the same way. A reduction gives each result
// one block: its threads stride over the reduced elements and combine
// their partial results in shared memory (the order differs from the
// CPU's, so float sums agree to rounding).
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/Grid.cuh"
#include "Kernels/Cuda/Launch.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

template <typename W>
__global__ void stridedCopyKernel(const W *src, W *dst, StridedCopy copy,
                                  int64_t n) {
  GRID_LOOP(i, n) {
    int64_t rest = i, from = 0, to = 0;
    for (int d = copy.rank - 1; d >= 0; --d) {
      int64_t coord = rest % copy.shape[d];
      rest /= copy.shape[d];
      from += coord * copy.srcStrides[d];
      to += coord * copy.dstStrides[d];
    }
    dst[to] = src[from];
  }
}

template <typename W>
__global__ void selectKernel(const uint8_t *c, const W *x, const W *y, W *r,
                             SelectShape shape, int64_t n) {
  GRID_LOOP(i, n) {
    int64_t rest = i, ci = 0, xi = 0, yi = 0;
    for (int d = shape.rank - 1; d >= 0; --d) {
      int64_t coord = rest % shape.shape[d];
      rest /= shape.shape[d];
      ci += coord * shape.cStrides[d];
      xi += coord * shape.xStrides[d];
      yi += coord * shape.yStrides[d];
    }
    r[i] = c[ci] ? x[xi] : y[yi];
  }
}

/// Calls f(W()) with the unsigned word of `bytes` bytes; false for others.
template <typename F> bool visitWord(size_t bytes, F &&f) {
  switch (bytes) {
  case 1:
    f(uint8_t());
    return true;
  case 2:
    f(uint16_t());
    return true;
  case 4:
    f(uint32_t());
    return true;
  case 8:
    f(uint64_t());
    return true;
  default:
    return false;
  }
}

template <typename T> __device__ bool isNaN(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return v != v;
  else
    return false;
}

template <typename T> __device__ T lowest() {
  if constexpr (std::is_floating_point_v<T>)
    return -INFINITY;
  else
    return std::numeric_limits<T>::lowest();
}

template <typename T> __device__ T combine(ReduceKind kind, T a, T b) {
  if (kind == ReduceKind::Max)
    return (isNaN(a) || a > b) ? a : (isNaN(b) || b > a) ? b : a;
  return elementwise::wrapAdd(a, b);
}

template <typename T>
__global__ void reduceKernel(ReduceKind kind, const T *x, T *y,
                             ReduceShape shape, int64_t n, int64_t count,
                             int64_t divisor) {
  using C = ComputeType<T>; // bf16 sums in f32
  __shared__ C partial[kThreads];
  C init = kind == ReduceKind::Max ? lowest<C>() : C(0);
  for (int64_t out = blockIdx.x; out < n; out += gridDim.x) {
    int64_t rest = out, base = 0;
    for (int d = shape.keptRank - 1; d >= 0; --d) {
      base += (rest % shape.kept[d]) * shape.keptStrides[d];
      rest /= shape.kept[d];
    }
    C acc = init;
    for (int64_t r = threadIdx.x; r < count; r += blockDim.x) {
      int64_t left = r, offset = base;
      for (int d = shape.reducedRank - 1; d >= 0; --d) {
        offset += (left % shape.reduced[d]) * shape.reducedStrides[d];
        left /= shape.reduced[d];
      }
      acc = combine(kind, acc, load<C>(x[offset]));
    }
    partial[threadIdx.x] = acc;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
      if (threadIdx.x < half)
        partial[threadIdx.x] =
            combine(kind, partial[threadIdx.x], partial[threadIdx.x + half]);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      C result = partial[0];
      if (kind == ReduceKind::Mean) {
        if constexpr (std::is_floating_point_v<C>)
          result = divisor ? result / C(divisor) : C(NAN);
        else
          result = divisor
                       ? static_cast<C>(static_cast<int64_t>(result) / divisor)
                       : C(0);
      }
      y[out] = store<T>(result);
    }
    __syncthreads();
  }
}

template <typename T>
__global__ void argReduceKernel(const T *x, int64_t *y, bool max, bool last,
                                int64_t outer, int64_t length, int64_t inner) {
  GRID_LOOP(i, outer * inner) {
    const T *row = x + (i / inner) * length * inner + i % inner;
    y[i] = elementwise::argReduceRow(row, length, inner, max, last);
  }
}

} // namespace

cudaError_t cuda::launchArgReduce(DType dtype, bool max, bool last,
                                  const void *x, int64_t *y, int64_t outer,
                                  int64_t length, int64_t inner,
                                  cudaStream_t stream) {
  int64_t n = outer * inner;
  if (n == 0)
    return cudaSuccess;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    argReduceKernel<T><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const T *>(x), y, max, last, outer, length, inner);
  };
  bool known = visitType(dtype, run, /*withBool=*/false);
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t cuda::launchStridedCopy(size_t elementBytes, const void *src,
                                    void *dst, const StridedCopy &copy,
                                    int64_t n, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  bool known = visitWord(elementBytes, [&](auto tag) {
    using W = decltype(tag);
    stridedCopyKernel<<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const W *>(src), static_cast<W *>(dst), copy, n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t cuda::launchSelect(size_t elementBytes, const void *c,
                               const void *x, const void *y, void *r,
                               const SelectShape &shape, int64_t n,
                               cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  bool known = visitWord(elementBytes, [&](auto tag) {
    using W = decltype(tag);
    selectKernel<<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const uint8_t *>(c), static_cast<const W *>(x),
        static_cast<const W *>(y), static_cast<W *>(r), shape, n);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t cuda::launchReduce(ReduceKind kind, DType dtype, const void *x,
                               void *y, const ReduceShape &shape, int64_t n,
                               int64_t count, int64_t divisor,
                               cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  unsigned blocks = static_cast<unsigned>(n < 65535 * 8 ? n : 65535 * 8);
  auto run = [&](auto tag) {
    using T = decltype(tag);
    reduceKernel<T><<<blocks, kThreads, 0, stream>>>(
        kind, static_cast<const T *>(x), static_cast<T *>(y), shape, n, count,
        divisor);
  };
  bool known = visitTypeOrBf16(dtype, run, /*withBool=*/false);
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}
