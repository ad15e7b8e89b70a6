//===- Launch.h - Launchers of the CUDA C++ kernels ---------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What the .cu files export to the kernel classes: plain functions that
// enqueue a CUDA kernel on a stream and return the launch's error (no absl:
// nvcc compiles the callers' declarations too). Element types are the
// runtime's DType; the callers have checked them.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_KERNELS_CUDA_LAUNCH_H
#define OFRT_LIB_RUNTIME_KERNELS_CUDA_LAUNCH_H

#include "Kernels/Common/ElementwiseFunctions.h"
#include "ofrt/Tensor.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace ofrt {
namespace cuda {

/// The most axes a broadcasting kernel handles (after merging axes).
constexpr int kMaxAxes = 8;

/// A broadcast operand: the result's shape and, per operand, its element
/// strides along the result's axes (0 where it broadcasts).
struct BroadcastShape {
  int rank = 0;
  int64_t shape[kMaxAxes] = {};
  int64_t aStrides[kMaxAxes] = {};
  int64_t bStrides[kMaxAxes] = {};
};

/// y[i] = fn(x[i]) for `n` elements of `dtype` (F32, F64, BF16 computed in
/// f32, I8, I32, I64, Bool); s and q are the function's parameters.
cudaError_t launchUnary(elementwise::Fn fn, DType dtype, const void *x, void *y,
                        int64_t n, double s, double q, cudaStream_t stream);

/// c = op(a, b) with broadcasting; c has `resultType` (Bool for
/// comparisons). `n` elements of the result. BF16 computes in f32.
cudaError_t launchBinary(elementwise::Op op, DType dtype, DType resultType,
                         const void *a, const void *b, void *c,
                         const BroadcastShape &shape, int64_t n,
                         cudaStream_t stream);

/// A copy of the elements of `shape` from and to strided places (element
/// strides of the source and the destination per axis).
struct StridedCopy {
  int rank = 0;
  int64_t shape[kMaxAxes] = {};
  int64_t srcStrides[kMaxAxes] = {};
  int64_t dstStrides[kMaxAxes] = {};
};

/// Copies `n` = numel(copy.shape) elements of `elementBytes` (1, 2, 4, 8).
cudaError_t launchStridedCopy(size_t elementBytes, const void *src, void *dst,
                              const StridedCopy &copy, int64_t n,
                              cudaStream_t stream);

/// SumSquare sums the squares of the operand's elements.
enum class ReduceKind { Sum, Mean, Max, SumSquare };

/// A reduction as the kept axes (the result's elements, row-major) and the
/// reduced axes, each with the operand's element strides.
struct ReduceShape {
  int keptRank = 0, reducedRank = 0;
  int64_t kept[kMaxAxes] = {}, keptStrides[kMaxAxes] = {};
  int64_t reduced[kMaxAxes] = {}, reducedStrides[kMaxAxes] = {};
};

/// y[i] = the sum, maximum or mean (the sum divided by `divisor`) of the
/// `count` reduced elements of each of the `n` results. Max propagates NaN;
/// integer sums wrap and integer means truncate; no elements give 0, the
/// lowest value, or NaN (an integer mean: 0). BF16 accumulates in f32.
/// Few results of many elements run in two passes, several blocks per
/// result, through `scratch` (device memory of reduceScratchBytes(); null
/// when that is 0); the order of the additions is fixed.
cudaError_t launchReduce(ReduceKind kind, DType dtype, const void *x, void *y,
                         const ReduceShape &shape, int64_t n, int64_t count,
                         int64_t divisor, void *scratch, cudaStream_t stream);

/// The scratch bytes launchReduce needs for `n` results of `count` elements.
size_t reduceScratchBytes(DType dtype, int64_t n, int64_t count);

/// where: r[i] = c[i] ? x[i] : y[i] over the result's shape, each operand
/// with its element strides (0 where it broadcasts).
struct SelectShape {
  int rank = 0;
  int64_t shape[kMaxAxes] = {};
  int64_t cStrides[kMaxAxes] = {}, xStrides[kMaxAxes] = {},
          yStrides[kMaxAxes] = {};
};

/// Selects `n` elements of `elementBytes` (1, 2, 4, 8); c is i1.
cudaError_t launchSelect(size_t elementBytes, const void *c, const void *x,
                         const void *y, void *r, const SelectShape &shape,
                         int64_t n, cudaStream_t stream);

/// Index checks: the kernels below record in *firstBad (device memory, set
/// to kNoBadIndex first) the smallest position whose index is out of range.
constexpr int64_t kNoBadIndex = 0x7f7f7f7f7f7f7f7f; // memset to 0x7f

/// gather along an axis of x viewed as [outer, dim, inner] (rows of
/// `rowBytes` bytes): y[o, j] = x[o, indices[j] - begin], negative indices
/// counting from `limit`; rows outside [0, dim) are zero (a piece of a split
/// table). Indices outside [-limit, limit) are recorded.
cudaError_t launchGather(const void *x, DType indexType, const void *indices,
                         void *y, int64_t outer, int64_t dim, int64_t count,
                         int64_t rowBytes, int64_t begin, int64_t limit,
                         int64_t *firstBad, cudaStream_t stream);

/// gather_grad (f32, f64): dx = 0, then each row of dy added atomically
/// into the row its index names (the order of the additions varies).
cudaError_t launchGatherGrad(DType dtype, const void *dy, DType indexType,
                             const void *indices, void *dx, int64_t outer,
                             int64_t dim, int64_t count, int64_t inner,
                             int64_t begin, int64_t limit, int64_t *firstBad,
                             cudaStream_t stream);

/// loss[i] = -logProb[i, labels[i]] (f32, f64); labels outside
/// [0, classes) are recorded.
cudaError_t launchPickLoss(DType dtype, const void *logProb, DType labelType,
                           const void *labels, void *loss, int64_t rows,
                           int64_t classes, int64_t *firstBad,
                           cudaStream_t stream);

/// layer_norm on f32 rows of `inner` elements: y = (x - mean) * invStd *
/// gamma + beta, invStd = 1 / sqrt(var + eps) with the biased variance;
/// gamma and beta have `params` elements, repeated along the flat index.
cudaError_t launchLayerNorm(const float *x, const float *gamma,
                            const float *beta, float *y, float *mean,
                            float *invStd, int64_t outer, int64_t inner,
                            int64_t params, float eps, cudaStream_t stream);

/// layer_norm_grad on f32 rows of `inner` elements, gamma of `inner`:
/// dx = invStd * (g - mean(g) - xhat * mean(g * xhat)) with g = dy * gamma
/// and xhat = (x - mean) * invStd, the means over the row; dgamma and dbeta
/// (zeroed here first) sum dy * xhat and dy over the rows, with atomics.
cudaError_t launchLayerNormGrad(const float *x, const float *dy,
                                const float *mean, const float *invStd,
                                const float *gamma, float *dx, float *dgamma,
                                float *dbeta, int64_t outer, int64_t inner,
                                cudaStream_t stream);

/// cast between the plain types (f32, f64, bf16, i8, i32, i64, i1) with
/// elementwise::castElement (bf16 through f32, rounded to nearest even);
/// cudaErrorInvalidValue for other types.
cudaError_t launchCast(DType from, DType to, const void *x, void *y, int64_t n,
                       cudaStream_t stream);

/// dropout on `n` f32 or f64 elements at logical indices 0..n-1: element i
/// is kept (mask[i] = 1, y[i] = x[i] * scale) when
/// unitFromBits(randomBits(key, i)) >= rate (RandomBits.h, as on the CPU).
cudaError_t launchDropout(DType dtype, const void *x, void *y, uint8_t *mask,
                          int64_t n, uint64_t key, double rate, double scale,
                          cudaStream_t stream);

/// arg_max / arg_min over x viewed as [outer, length, inner]: the index of
/// the first extreme element (the last among equals with `last`), as i64.
cudaError_t launchArgReduce(DType dtype, bool max, bool last, const void *x,
                            int64_t *y, int64_t outer, int64_t length,
                            int64_t inner, cudaStream_t stream);

/// PyTorch's SGD step in place (param, grad, momentum buffer or null);
/// `scale` is a device pointer to one element, or null.
/// `skip` (one f32 on the device, or null): not 0, nothing changes.
cudaError_t launchSgd(DType dtype, void *param, const void *grad, void *buf,
                      const void *scale, const void *skip, int64_t n,
                      double lr, double wd, double momentum, bool nesterov,
                      cudaStream_t stream);

/// PyTorch's Adam (decoupled: AdamW) step in place.
cudaError_t launchAdam(DType dtype, void *param, const void *grad, void *m,
                       void *v, const void *scale, const void *skip, int64_t n,
                       double stepSize,
                       double correction2, double beta1, double beta2,
                       double epsilon, double wd, double decay, bool decoupled,
                       cudaStream_t stream);

/// Sets the f32 *found to `code` when one of the `n` floats of `x` (f32,
/// f64, bf16 or f16) is a NaN or an infinity, else leaves it: launches in
/// increasing order of code after *found is cleared leave the largest code
/// of the tensors that are not finite.
cudaError_t launchFindNonfinite(DType dtype, const void *x, int64_t n,
                                float code, void *found, cudaStream_t stream);

/// moving = momentum * moving + (1 - momentum) * value, in place.
cudaError_t launchMovingAverage(DType dtype, void *moving, const void *value,
                                int64_t n, double momentum,
                                cudaStream_t stream);

} // namespace cuda
} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_KERNELS_CUDA_LAUNCH_H
