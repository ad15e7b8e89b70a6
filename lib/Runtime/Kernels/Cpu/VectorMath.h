//===- VectorMath.h - Element-wise functions oneDNN does not have ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Functions without a oneDNN algorithm, computed on whole vectors by glibc's
// vector math library (libmvec, glibc 2.35+: erff on 8 floats with AVX2, 16
// with AVX-512, 4 with SSE) instead of one std::erf call per element (7.5 ns
// an element on an AVX2 EPYC: the GPT's gelu gradient spent 30 ms a step on
// it).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_KERNELS_CPU_VECTORMATH_H
#define ONEFLOW_LIB_RUNTIME_KERNELS_CPU_VECTORMATH_H

#include <cstdint>

namespace ofrt {
namespace cpu {

/// y[i] = erf(x[i]) for i < n, on the calling thread's OpenMP threads;
/// within libmvec's 4 ulp of the correctly rounded result.
void vectorErf(const float *x, float *y, int64_t n);

} // namespace cpu
} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_KERNELS_CPU_VECTORMATH_H
