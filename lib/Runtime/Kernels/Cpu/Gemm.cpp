//===- Gemm.cpp - Which library multiplies f32 matrices -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Gemm.h"
#include "CpuKernels.h"
#include "DnnlUtils.h"

#include <cblas.h>

#include <cstdlib>

using namespace ofrt;
using namespace ofrt::cpu;

/// Whether the loaded OpenBLAS is its OpenMP build (2): the pthread build
/// keeps its own thread pool, which would fight oneDNN's OpenMP threads.
static bool openBlasUsesOpenMp() { return openblas_get_parallel() == 2; }

/// Whether OpenBLAS computes with its AVX2 (or wider) kernels here. Its
/// DYNAMIC_ARCH build picks them by CPU model, and a model it does not know
/// (0.3.21 on a recent Xeon: "Prescott") gets SSE3 kernels, 2.5x slower
/// than oneDNN's AVX2 GEMM (31 against 80 GFLOP/s; bench-gemm-libraries).
static bool openBlasHasAvx2Kernels() {
  std::string core = openblas_get_corename();
  for (const char *fast :
       {"Haswell", "Zen", "SkylakeX", "Cooperlake", "SapphireRapids"})
    if (core == fast)
      return true;
  return false;
}

absl::StatusOr<GemmLibrary> cpu::f32GemmLibrary() {
  const char *forced = std::getenv("OF_CPU_GEMM");
  std::string name = forced ? forced : "";
  if (name == "onednn")
    return GemmLibrary::OneDnn;
  if (name == "openblas") {
    if (!openBlasUsesOpenMp())
      return absl::FailedPreconditionError(
          "OF_CPU_GEMM=openblas, but the OpenBLAS loaded is not its OpenMP "
          "build (" + std::string(openblas_get_config()) +
          "); install libopenblas0-openmp");
    return GemmLibrary::OpenBlas;
  }
  if (!name.empty())
    return absl::InvalidArgumentError("OF_CPU_GEMM='" + name +
                                      "' is not onednn or openblas");
  return !dnnlHasAvx512() && openBlasUsesOpenMp() && openBlasHasAvx2Kernels()
             ? GemmLibrary::OpenBlas
             : GemmLibrary::OneDnn;
}

std::string cpu::gemmLibraryName(GemmLibrary library) {
  if (library == GemmLibrary::OneDnn)
    return "oneDNN";
  // "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64".
  std::string config = openblas_get_config();
  size_t space = config.find(' ', config.find(' ') + 1);
  return config.substr(0, space) + " (OpenMP, " + openblas_get_corename() +
         " kernels)";
}

void cpu::openBlasSgemm(bool transposeA, bool transposeB, int64_t m, int64_t n,
                        int64_t k, const float *a, int64_t lda, const float *b,
                        int64_t ldb, float *c, float beta) {
  cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
              transposeB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, a, lda, b,
              ldb, beta, c, n);
}

std::string ofrt::describeCpuLibraries() {
  absl::StatusOr<GemmLibrary> gemm = f32GemmLibrary();
  return std::string("oneDNN with ") + dnnlIsaName() + ", f32 GEMM " +
         (gemm.ok() ? "on " + gemmLibraryName(*gemm)
                    : "unusable: " + std::string(gemm.status().message()));
}
