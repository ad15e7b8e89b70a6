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

/// Combines, with one block, the reduced elements [first, last) of result
/// `out` (row-major over the kept axes); the value is in thread 0. `partial`
/// is the block's shared memory.
template <typename T, typename C>
__device__ C reduceRange(ReduceKind kind, const T *x, const ReduceShape &shape,
                         int64_t out, int64_t first, int64_t last,
                         C *partial) {
  int64_t rest = out, base = 0;
  for (int d = shape.keptRank - 1; d >= 0; --d) {
    base += (rest % shape.kept[d]) * shape.keptStrides[d];
    rest /= shape.kept[d];
  }
  C acc = kind == ReduceKind::Max ? lowest<C>() : C(0);
  for (int64_t r = first + threadIdx.x; r < last; r += blockDim.x) {
    int64_t left = r, offset = base;
    for (int d = shape.reducedRank - 1; d >= 0; --d) {
      offset += (left % shape.reduced[d]) * shape.reducedStrides[d];
      left /= shape.reduced[d];
    }
    C v = load<C>(x[offset]);
    if (kind == ReduceKind::SumSquare) // float operands only (the op's)
      v = static_cast<C>(v * v);
    acc = combine(kind, acc, v);
  }
  partial[threadIdx.x] = acc;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half)
      partial[threadIdx.x] =
          combine(kind, partial[threadIdx.x], partial[threadIdx.x + half]);
    __syncthreads();
  }
  C result = partial[0];
  __syncthreads(); // partial is reused by the block's next result
  return result;
}

/// The result from its combined value: a mean divides by `divisor`.
template <typename T, typename C>
__device__ T finishReduce(ReduceKind kind, C value, int64_t divisor) {
  if (kind == ReduceKind::Mean) {
    if constexpr (std::is_floating_point_v<C>)
      value = divisor ? value / C(divisor) : C(NAN);
    else
      value = divisor ? static_cast<C>(static_cast<int64_t>(value) / divisor)
                      : C(0);
  }
  return store<T>(value);
}

/// One block per result, over all its reduced elements.
template <typename T>
__global__ void reduceKernel(ReduceKind kind, const T *x, T *y,
                             ReduceShape shape, int64_t n, int64_t count,
                             int64_t divisor) {
  using C = ComputeType<T>; // bf16 sums in f32
  __shared__ C partial[kThreads];
  for (int64_t out = blockIdx.x; out < n; out += gridDim.x) {
    C value = reduceRange(kind, x, shape, out, 0, count, partial);
    if (threadIdx.x == 0)
      y[out] = finishReduce<T>(kind, value, divisor);
  }
}

/// `splits` blocks per result, each over a contiguous range of its reduced
/// elements, into scratch[out * splits + split] (the first of two passes
/// for few results of many elements, which one block each would leave to
/// a handful of multiprocessors).
template <typename T>
__global__ void reduceSplitKernel(ReduceKind kind, const T *x,
                                  ComputeType<T> *scratch, ReduceShape shape,
                                  int64_t n, int64_t count, int64_t splits) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads];
  int64_t per = (count + splits - 1) / splits;
  for (int64_t b = blockIdx.x; b < n * splits; b += gridDim.x) {
    int64_t out = b / splits, first = (b % splits) * per;
    int64_t last = first + per < count ? first + per : count;
    C value = reduceRange(kind, x, shape, out, first, last, partial);
    if (threadIdx.x == 0)
      scratch[b] = value;
  }
}

/// The second pass: one block per result over its `splits` values, in a
/// fixed order (the same sums every run).
template <typename T>
__global__ void reduceSplitsKernel(ReduceKind kind,
                                   const ComputeType<T> *scratch, T *y,
                                   int64_t n, int64_t splits,
                                   int64_t divisor) {
  using C = ComputeType<T>;
  __shared__ C partial[kThreads];
  ReduceShape flat; // scratch as [n, splits]
  flat.keptRank = flat.reducedRank = 1;
  flat.kept[0] = n;
  flat.keptStrides[0] = splits;
  flat.reduced[0] = splits;
  flat.reducedStrides[0] = 1;
  for (int64_t out = blockIdx.x; out < n; out += gridDim.x) {
    C value = reduceRange(kind, scratch, flat, out, 0, splits, partial);
    if (threadIdx.x == 0)
      y[out] = finishReduce<T>(kind, value, divisor);
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

/// Blocks per result: enough for about 4 blocks per multiprocessor of an
/// H100 in all, each with at least 8 elements per thread.
static int64_t reduceSplits(int64_t n, int64_t count) {
  const int64_t kTargetBlocks = 512, kMinPerBlock = 8 * kThreads;
  if (n >= kTargetBlocks)
    return 1;
  int64_t splits = (kTargetBlocks + n - 1) / n;
  int64_t most = (count + kMinPerBlock - 1) / kMinPerBlock;
  return splits < most ? splits : most;
}

size_t cuda::reduceScratchBytes(DType dtype, int64_t n, int64_t count) {
  int64_t splits = reduceSplits(n, count);
  if (splits <= 1)
    return 0;
  size_t element = dtype == DType::BF16 ? sizeof(float) : dtypeSize(dtype);
  return static_cast<size_t>(n * splits) * element;
}

cudaError_t cuda::launchReduce(ReduceKind kind, DType dtype, const void *x,
                               void *y, const ReduceShape &shape, int64_t n,
                               int64_t count, int64_t divisor, void *scratch,
                               cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  int64_t splits = reduceSplits(n, count);
  auto blocks = [](int64_t b) {
    return static_cast<unsigned>(b < 65535 * 8 ? b : 65535 * 8);
  };
  auto run = [&](auto tag) {
    using T = decltype(tag);
    using C = ComputeType<T>;
    if (splits <= 1) {
      reduceKernel<T><<<blocks(n), kThreads, 0, stream>>>(
          kind, static_cast<const T *>(x), static_cast<T *>(y), shape, n,
          count, divisor);
      return;
    }
    reduceSplitKernel<T><<<blocks(n * splits), kThreads, 0, stream>>>(
        kind, static_cast<const T *>(x), static_cast<C *>(scratch), shape, n,
        count, splits);
    // The partial results are summed as they are (already squared).
    ReduceKind combined =
        kind == ReduceKind::SumSquare ? ReduceKind::Sum : kind;
    reduceSplitsKernel<T><<<blocks(n), kThreads, 0, stream>>>(
        combined, static_cast<const C *>(scratch), static_cast<T *>(y), n,
        splits, divisor);
  };
  if (splits > 1 && !scratch)
    return cudaErrorInvalidValue;
  bool known = visitTypeOrBf16(dtype, run, /*withBool=*/false);
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}
