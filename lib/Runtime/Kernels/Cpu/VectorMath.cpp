//===- VectorMath.cpp - Element-wise functions oneDNN does not have -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "VectorMath.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>

// libmvec's entry points (the x86-64 vector function ABI: 'b' SSE, 'd'
// AVX2, 'e' AVX-512; N<lanes>v: unmasked, one vector argument). Each picks
// its implementation for the running processor when it is loaded.
extern "C" {
__m128 _ZGVbN4v_erff(__m128);
__m256 _ZGVdN8v_erff(__m256);
}

using namespace ofrt;

namespace {

/// Which libmvec width this processor runs.
bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2") &&
                          __builtin_cpu_supports("fma");
  return has;
}

__attribute__((target("avx2,fma"))) void erfAvx2(const float *x, float *y,
                                                 int64_t n) {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(y + i, _ZGVdN8v_erff(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i)
    y[i] = std::erf(x[i]);
}

void erfSse(const float *x, float *y, int64_t n) {
  int64_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_storeu_ps(y + i, _ZGVbN4v_erff(_mm_loadu_ps(x + i)));
  for (; i < n; ++i)
    y[i] = std::erf(x[i]);
}

} // namespace

void cpu::vectorErf(const float *x, float *y, int64_t n) {
  // Chunks of whole cache lines, one or more per thread.
  constexpr int64_t kChunk = 16384;
  int64_t chunks = (n + kChunk - 1) / kChunk;
  bool avx2 = hasAvx2();
#pragma omp parallel for schedule(static) if (chunks > 1)
  for (int64_t c = 0; c < chunks; ++c) {
    int64_t begin = c * kChunk, count = std::min(kChunk, n - begin);
    if (avx2)
      erfAvx2(x + begin, y + begin, count);
    else
      erfSse(x + begin, y + begin, count);
  }
}
