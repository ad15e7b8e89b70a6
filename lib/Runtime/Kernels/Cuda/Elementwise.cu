//===- Elementwise.cu - Unary, broadcasting binary and update kernels -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Grid-stride loops over the elements, with the formulas of
// ElementwiseFunctions.h (the CPU's too). A binary op whose operands both
// have the result's shape, or one of them a single element, indexes
// directly; other broadcasts turn the result's linear index into
// coordinates over at most kMaxAxes axes. bf16 elements compute in f32 and
// round once when stored, as the CPU's oneDNN primitives do. The optimizer
// updates are PyTorch's formulas in the parameter's type, as on the CPU.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/Grid.cuh"
#include "Kernels/Cuda/Launch.h"
#include "ofrt/RandomBits.h"

using namespace ofrt;
using namespace ofrt::cuda;
using namespace ofrt::elementwise;

namespace {

template <typename T>
__global__ void unaryKernel(Fn fn, const T *x, T *y, int64_t n, double s,
                            double q, bool integral) {
  using C = ComputeType<T>;
  GRID_LOOP(i, n) {
    if constexpr (std::is_floating_point_v<C>)
      y[i] = store<T>(floatFn<C>(fn, load<C>(x[i]), s, q));
    else
      y[i] = intFn<T>(fn, x[i], s, integral);
  }
}

template <typename T, typename R>
__global__ void binaryKernel(Op op, const T *a, const T *b, R *c,
                             BroadcastShape shape, int64_t n, int mode) {
  GRID_LOOP(i, n) {
    int64_t ia = i, ib = i;
    if (mode == 1) {
      ib = 0;
    } else if (mode == 2) {
      ia = 0;
    } else if (mode == 3) {
      ia = ib = 0;
      int64_t rest = i;
      for (int d = shape.rank - 1; d >= 0; --d) {
        int64_t coord = rest % shape.shape[d];
        rest /= shape.shape[d];
        ia += coord * shape.aStrides[d];
        ib += coord * shape.bStrides[d];
      }
    }
    using C = ComputeType<T>;
    c[i] = store<R>(binaryFn<C>(op, load<C>(a[ia]), load<C>(b[ib])));
  }
}

/// 0: both whole, 1: b one element, 2: a one element, 3: general.
int broadcastMode(const BroadcastShape &shape) {
  bool aWhole = true, bWhole = true, aOne = true, bOne = true;
  int64_t stride = 1;
  for (int d = shape.rank - 1; d >= 0; --d) {
    if (shape.shape[d] != 1) {
      aWhole &= shape.aStrides[d] == stride;
      bWhole &= shape.bStrides[d] == stride;
      aOne &= shape.aStrides[d] == 0;
      bOne &= shape.bStrides[d] == 0;
    }
    stride *= shape.shape[d];
  }
  if (aWhole && bWhole)
    return 0;
  if (aWhole && bOne)
    return 1;
  if (aOne && bWhole)
    return 2;
  return 3;
}

template <typename T>
__global__ void sgdKernel(T *param, const T *grad, T *buf, const T *scale,
                          const float *skip, int64_t n, T lr, T wd, T mu,
                          bool nesterov) {
  if (skip && *skip != 0.0f)
    return;
  T s = scale ? *scale : T(1);
  GRID_LOOP(i, n) {
    sgdElement(param[i], grad[i] * s, buf ? &buf[i] : nullptr, lr, wd, mu,
               nesterov);
  }
}

template <typename T>
__global__ void adamKernel(T *param, const T *grad, T *m, T *v, const T *scale,
                           const float *skip, int64_t n, T stepSize,
                           T correction2, T b1, T b2, T eps, T wd, T decay,
                           bool decoupled) {
  if (skip && *skip != 0.0f)
    return;
  T s = scale ? *scale : T(1);
  GRID_LOOP(i, n) {
    adamElement(param[i], grad[i] * s, m[i], v[i], stepSize, correction2, b1,
                b2, eps, wd, decay, decoupled);
  }
}

/// Writes `code` to *found when an element of `bits`, IEEE numbers of
/// Bits' width, has all exponent bits set (a NaN or an infinity); every
/// writer writes the same value.
template <typename Bits>
__global__ void findNonfiniteKernel(const Bits *bits, int64_t n, Bits exponent,
                                    float code, float *found) {
  GRID_LOOP(i, n) {
    if ((bits[i] & exponent) == exponent)
      *found = code;
  }
}

template <typename T>
__global__ void movingAverageKernel(T *moving, const T *value, int64_t n,
                                    T keep) {
  GRID_LOOP(i, n) { moving[i] = keep * moving[i] + (T(1) - keep) * value[i]; }
}

template <typename From, typename To>
__global__ void castKernel(const From *x, To *y, int64_t n, bool toBool) {
  using F = ComputeType<From>;
  using T = ComputeType<To>;
  GRID_LOOP(i, n) { y[i] = store<To>(castElement<F, T>(load<F>(x[i]), toBool)); }
}

template <typename T>
__global__ void dropoutKernel(const T *x, T *y, uint8_t *mask, int64_t n,
                              uint64_t key, double rate, T scale) {
  GRID_LOOP(i, n) {
    bool keep = unitFromBits(randomBits(key, static_cast<uint64_t>(i))) >= rate;
    mask[i] = keep;
    y[i] = keep ? x[i] * scale : T(0);
  }
}

} // namespace

cudaError_t cuda::launchCast(DType from, DType to, const void *x, void *y,
                             int64_t n, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  bool known = false;
  visitTypeOrBf16(from, [&](auto source) {
    known = visitTypeOrBf16(to, [&](auto target) {
      using From = decltype(source);
      using To = decltype(target);
      castKernel<From, To><<<blocksFor(n), kThreads, 0, stream>>>(
          static_cast<const From *>(x), static_cast<To *>(y), n,
          to == DType::Bool);
    });
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t cuda::launchDropout(DType dtype, const void *x, void *y,
                                uint8_t *mask, int64_t n, uint64_t key,
                                double rate, double scale,
                                cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  if (dtype == DType::F32)
    dropoutKernel<float><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const float *>(x), static_cast<float *>(y), mask, n, key,
        rate, static_cast<float>(scale));
  else
    dropoutKernel<double><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const double *>(x), static_cast<double *>(y), mask, n, key,
        rate, scale);
  return cudaGetLastError();
}

cudaError_t cuda::launchUnary(Fn fn, DType dtype, const void *x, void *y,
                              int64_t n, double s, double q,
                              cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  bool integral = std::nearbyint(s) == s && std::abs(s) < 9.2e18;
  bool known = visitTypeOrBf16(dtype, [&](auto tag) {
    using T = decltype(tag);
    unaryKernel<T><<<blocksFor(n), kThreads, 0, stream>>>(
        fn, static_cast<const T *>(x), static_cast<T *>(y), n, s, q, integral);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t cuda::launchBinary(Op op, DType dtype, DType resultType,
                               const void *a, const void *b, void *c,
                               const BroadcastShape &shape, int64_t n,
                               cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  int mode = broadcastMode(shape);
  bool known = visitTypeOrBf16(dtype, [&](auto tag) {
    using T = decltype(tag);
    if (resultType == DType::Bool)
      binaryKernel<T, uint8_t><<<blocksFor(n), kThreads, 0, stream>>>(
          op, static_cast<const T *>(a), static_cast<const T *>(b),
          static_cast<uint8_t *>(c), shape, n, mode);
    else
      binaryKernel<T, T><<<blocksFor(n), kThreads, 0, stream>>>(
          op, static_cast<const T *>(a), static_cast<const T *>(b),
          static_cast<T *>(c), shape, n, mode);
  });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

cudaError_t cuda::launchSgd(DType dtype, void *param, const void *grad,
                            void *buf, const void *scale, const void *skip,
                            int64_t n, double lr, double wd, double momentum,
                            bool nesterov, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  if (dtype == DType::F32)
    sgdKernel<float><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<float *>(param), static_cast<const float *>(grad),
        static_cast<float *>(buf), static_cast<const float *>(scale),
        static_cast<const float *>(skip), n, float(lr), float(wd),
        float(momentum), nesterov);
  else
    sgdKernel<double><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<double *>(param), static_cast<const double *>(grad),
        static_cast<double *>(buf), static_cast<const double *>(scale),
        static_cast<const float *>(skip), n, lr, wd, momentum, nesterov);
  return cudaGetLastError();
}

cudaError_t cuda::launchAdam(DType dtype, void *param, const void *grad,
                             void *m, void *v, const void *scale,
                             const void *skip, int64_t n,
                             double stepSize, double correction2, double beta1,
                             double beta2, double epsilon, double wd,
                             double decay, bool decoupled,
                             cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  if (dtype == DType::F32)
    adamKernel<float><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<float *>(param), static_cast<const float *>(grad),
        static_cast<float *>(m), static_cast<float *>(v),
        static_cast<const float *>(scale), static_cast<const float *>(skip), n,
        float(stepSize),
        float(correction2), float(beta1), float(beta2), float(epsilon),
        float(wd), float(decay), decoupled);
  else
    adamKernel<double><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<double *>(param), static_cast<const double *>(grad),
        static_cast<double *>(m), static_cast<double *>(v),
        static_cast<const double *>(scale), static_cast<const float *>(skip), n,
        stepSize, correction2, beta1,
        beta2, epsilon, wd, decay, decoupled);
  return cudaGetLastError();
}

cudaError_t cuda::launchFindNonfinite(DType dtype, const void *x, int64_t n,
                                      float code, void *found,
                                      cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  float *out = static_cast<float *>(found);
  switch (dtype) {
  case DType::F32:
    findNonfiniteKernel<uint32_t><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const uint32_t *>(x), n, 0x7f800000u, code, out);
    break;
  case DType::F64:
    findNonfiniteKernel<uint64_t><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const uint64_t *>(x), n, 0x7ff0000000000000ull, code,
        out);
    break;
  case DType::BF16:
  case DType::F16:
    findNonfiniteKernel<uint16_t><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<const uint16_t *>(x), n,
        static_cast<uint16_t>(dtype == DType::BF16 ? 0x7f80u : 0x7c00u), code,
        out);
    break;
  default:
    return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t cuda::launchMovingAverage(DType dtype, void *moving,
                                      const void *value, int64_t n,
                                      double momentum, cudaStream_t stream) {
  if (n == 0)
    return cudaSuccess;
  if (dtype == DType::F32)
    movingAverageKernel<float><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<float *>(moving), static_cast<const float *>(value), n,
        float(momentum));
  else
    movingAverageKernel<double><<<blocksFor(n), kThreads, 0, stream>>>(
        static_cast<double *>(moving), static_cast<const double *>(value), n,
        momentum);
  return cudaGetLastError();
}
