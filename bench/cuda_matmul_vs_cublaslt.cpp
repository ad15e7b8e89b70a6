//===- cuda_matmul_vs_cublaslt.cpp - GPU matmul actor vs direct cuBLASLt --===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A 4096x4096x4096 matmul as an actor of the runtime on cuda:0 against the
// same cuBLASLt matmul called directly and timed with CUDA events, in one
// process, two ways: one firing alone (from compute() to the completion the
// engine is told of, the GPU otherwise idle: launch and completion latency
// included) and back to back (regsts of two buffers, the time between
// completions; the direct calls enqueued in a row), as training runs. f32
// (--dtype f32), f32 with TF32 (--dtype tf32) and bf16 with f32
// accumulation (--dtype bf16). Prints the ratios direct / runtime (goal,
// back to back: at least 0.95) and TFLOP/s. Both multiply the same
// uniform(-1, 1) operands. Needs a GPU: without one it says so and exits 2.
//
//===----------------------------------------------------------------------===//

#include "ActorTiming.h"

#include "ofrt/Session.h"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

using namespace ofrt;

namespace {

const int64_t kN = 4096, kSteps = 30;

/// The actor's time: one firing alone (regsts of one buffer: the GPU idle
/// when it fires), and per step back to back (two buffers: the next firing
/// enqueued while one runs).
struct Times {
  double alone, backToBack;
};

Times runtimeMs(DType dtype, bool tf32) {
  SessionOptions options;
  options.device.allowTf32 = tf32;
  auto program = [&](int64_t buffers) {
    return bench::matmulProgram(DeviceKind::Cuda, dtype, kN, kN, kN, buffers);
  };
  return {bench::medianFiringMs(program(1), options, 2, kSteps),
          bench::medianIntervalMs(program(2), options, 2, kSteps)};
}

#define CHECK_CUDA(call)                                                       \
  do {                                                                         \
    cudaError_t e = (call);                                                    \
    if (e != cudaSuccess) {                                                    \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));          \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)
#define CHECK_LT(call)                                                         \
  do {                                                                         \
    cublasStatus_t s = (call);                                                 \
    if (s != CUBLAS_STATUS_SUCCESS) {                                          \
      std::fprintf(stderr, "%s: %s\n", #call, cublasLtGetStatusString(s));     \
      std::exit(1);                                                            \
    }                                                                          \
  } while (false)

/// The direct call's time: one call alone (synchronized after each), and
/// per call of kSteps enqueued back to back; CUDA events time both.
Times directMs(DType dtype, bool tf32) {
  cudaDataType_t type = dtype == DType::BF16 ? CUDA_R_16BF : CUDA_R_32F;
  size_t bytes = kN * kN * dtypeSize(dtype);
  void *a, *b, *c, *workspace;
  size_t workspaceBytes = 32 << 20;
  CHECK_CUDA(cudaMalloc(&a, bytes));
  CHECK_CUDA(cudaMalloc(&b, bytes));
  CHECK_CUDA(cudaMalloc(&c, bytes));
  CHECK_CUDA(cudaMalloc(&workspace, workspaceBytes));
  // The actor's operands: the same values, not zeros (which draw less power).
  std::vector<uint8_t> av = bench::operandBytes(1, dtype, {kN, kN}),
                       bv = bench::operandBytes(2, dtype, {kN, kN});
  CHECK_CUDA(cudaMemcpy(a, av.data(), bytes, cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(b, bv.data(), bytes, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  cublasLtHandle_t lt;
  CHECK_LT(cublasLtCreate(&lt));
  cublasLtMatmulDesc_t desc;
  CHECK_LT(cublasLtMatmulDescCreate(
      &desc, tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
      CUDA_R_32F));
  cublasLtMatrixLayout_t layout;
  CHECK_LT(cublasLtMatrixLayoutCreate(&layout, type, kN, kN, kN));
  cublasLtMatmulPreference_t preference;
  CHECK_LT(cublasLtMatmulPreferenceCreate(&preference));
  CHECK_LT(cublasLtMatmulPreferenceSetAttribute(
      preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspaceBytes,
      sizeof(workspaceBytes)));
  cublasLtMatmulHeuristicResult_t heuristic = {};
  int found = 0;
  CHECK_LT(cublasLtMatmulAlgoGetHeuristic(lt, desc, layout, layout, layout,
                                          layout, preference, 1, &heuristic,
                                          &found));
  float one = 1, zero = 0;
  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  auto matmul = [&] {
    CHECK_LT(cublasLtMatmul(lt, desc, &one, b, layout, a, layout, &zero, c,
                            layout, c, layout, &heuristic.algo, workspace,
                            workspaceBytes, stream));
  };
  std::vector<double> ms;
  for (int64_t i = 0; i < kSteps; ++i) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    matmul();
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float elapsed = 0;
    CHECK_CUDA(cudaEventElapsedTime(&elapsed, start, stop));
    if (i > 0)
      ms.push_back(elapsed);
  }
  CHECK_CUDA(cudaEventRecord(start, stream));
  for (int64_t i = 0; i < kSteps; ++i)
    matmul();
  CHECK_CUDA(cudaEventRecord(stop, stream));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float all = 0;
  CHECK_CUDA(cudaEventElapsedTime(&all, start, stop));
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(layout);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  cudaStreamDestroy(stream);
  for (void *p : {a, b, c, workspace})
    cudaFree(p);
  return {bench::median(ms), all / kSteps};
}

} // namespace

int main(int argc, char **argv) {
  std::string mode = "tf32";
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--dtype") == 0)
      mode = argv[i + 1];
  if (mode != "f32" && mode != "tf32" && mode != "bf16") {
    std::fprintf(stderr, "--dtype '%s' is not f32, tf32 or bf16\n",
                 mode.c_str());
    return 1;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("skipped: no GPU (bench-cuda-matmul-vs-cublaslt needs one)\n");
    return 2;
  }
  DType dtype = mode == "bf16" ? DType::BF16 : DType::F32;
  bool tf32 = mode == "tf32";
  // Interleaved, each side's best of two (other work on the GPU's host).
  Times direct1 = directMs(dtype, tf32), runtime1 = runtimeMs(dtype, tf32);
  Times direct2 = directMs(dtype, tf32), runtime2 = runtimeMs(dtype, tf32);
  Times direct{std::min(direct1.alone, direct2.alone),
               std::min(direct1.backToBack, direct2.backToBack)};
  Times runtime{std::min(runtime1.alone, runtime2.alone),
                std::min(runtime1.backToBack, runtime2.backToBack)};
  double tflops = 2.0 * kN * kN * kN / 1e12;
  std::printf("matmul %lld^3 %s on cuda:0, medians of %lld steps\n",
              (long long)kN, mode.c_str(), (long long)kSteps);
  std::printf("%-34s %10s %10s\n", "", "ms", "TFLOP/s");
  auto row = [&](const char *name, double ms) {
    std::printf("%-34s %10.3f %10.1f\n", name, ms, tflops / ms * 1e3);
  };
  row("direct cuBLASLt call, alone", direct.alone);
  row("runtime matmul actor, alone", runtime.alone);
  row("direct cuBLASLt calls, back to back", direct.backToBack);
  row("runtime matmul actor, back to back", runtime.backToBack);
  std::printf("ratio direct/runtime, one firing alone (compute() to the "
              "engine's completion): %.3f\n",
              direct.alone / runtime.alone);
  std::printf("ratio direct/runtime, back to back: %.3f (goal at least "
              "0.95)\n",
              direct.backToBack / runtime.backToBack);
  return 0;
}
