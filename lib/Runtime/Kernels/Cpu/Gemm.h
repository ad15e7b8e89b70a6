//===- Gemm.h - Which library multiplies f32 matrices -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// f32 matrix products run on oneDNN's matmul or on OpenBLAS (its OpenMP
// build, which takes its thread count from the calling thread as oneDNN
// does), whichever is faster on the machine that runs the plan: the plan
// never says. Measured (bench/README.md, "An AVX2 machine";
// bench-gemm-libraries): where oneDNN 2.6 computes with AVX2, its GEMM runs
// a transposed left operand at half speed (the weight gradients of every
// linear layer) and, over a GPT's products, is 1.25x slower than OpenBLAS
// at one thread and 1.09x at two. With AVX-512 oneDNN stays (there it
// matched PyTorch's GEMM; the two libraries were not compared there). So
// does it where OpenBLAS does not know the CPU and falls back to SSE3
// kernels (a Xeon with AVX-512 capped to AVX2: oneDNN 80 GFLOP/s, OpenBLAS
// 31; with OPENBLAS_CORETYPE=Haswell the two are level).
// OF_CPU_GEMM=onednn|openblas overrides the choice (benchmarks, tests).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_KERNELS_CPU_GEMM_H
#define ONEFLOW_LIB_RUNTIME_KERNELS_CPU_GEMM_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <string>

namespace ofrt {
namespace cpu {

enum class GemmLibrary { OneDnn, OpenBlas };

/// The library for f32 matrix products here: OF_CPU_GEMM if set, else
/// OpenBLAS where oneDNN lacks AVX-512 and the OpenMP OpenBLAS is loaded
/// with its AVX2 kernels (or wider) for this CPU, else oneDNN. An unknown OF_CPU_GEMM, or openblas without a usable
/// OpenBLAS, is an error naming the variable.
absl::StatusOr<GemmLibrary> f32GemmLibrary();

/// "oneDNN" or "OpenBLAS 0.3.21 (OpenMP, Haswell kernels)": what
/// --list-devices prints.
std::string gemmLibraryName(GemmLibrary library);

/// Row-major C (m x n) = op(A) op(B) + beta C with op a transpose where
/// asked; lda and ldb are the row strides of A and B as stored. On
/// OpenBLAS, with the calling thread's OpenMP thread count.
void openBlasSgemm(bool transposeA, bool transposeB, int64_t m, int64_t n,
                   int64_t k, const float *a, int64_t lda, const float *b,
                   int64_t ldb, float *c, float beta = 0.0f);

} // namespace cpu
} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_KERNELS_CPU_GEMM_H
