//===- cuda_matmul_vs_cublaslt.cpp - GPU matmul actor vs direct cuBLASLt --===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A 4096x4096x4096 matmul as an actor of the runtime on cuda:0 (its firing
// time: from compute() to the completion the engine is told of, with the
// GPU otherwise idle) against the same cuBLASLt matmul called directly and
// timed with CUDA events, in one process. f32 (--dtype f32), f32 with TF32
// (--dtype tf32) and bf16 with f32 accumulation (--dtype bf16). Prints the
// ratio direct / runtime (goal: at least 0.95) and TFLOP/s. Both multiply
// the same uniform(-1, 1) operands. Needs a GPU: without one it says so and
// exits 2.
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

double runtimeMs(DType dtype, bool tf32) {
  SessionOptions options;
  options.device.allowTf32 = tf32;
  return bench::medianFiringMs(
      bench::matmulProgram(DeviceKind::Cuda, dtype, kN, kN, kN), options, 2,
      kSteps);
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

double directMs(DType dtype, bool tf32) {
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
  std::vector<double> ms;
  for (int64_t i = 0; i < kSteps; ++i) {
    CHECK_CUDA(cudaEventRecord(start, stream));
    CHECK_LT(cublasLtMatmul(lt, desc, &one, b, layout, a, layout, &zero, c,
                            layout, c, layout, &heuristic.algo, workspace,
                            workspaceBytes, stream));
    CHECK_CUDA(cudaEventRecord(stop, stream));
    CHECK_CUDA(cudaEventSynchronize(stop));
    float elapsed = 0;
    CHECK_CUDA(cudaEventElapsedTime(&elapsed, start, stop));
    if (i > 0)
      ms.push_back(elapsed);
  }
  cublasLtMatmulPreferenceDestroy(preference);
  cublasLtMatrixLayoutDestroy(layout);
  cublasLtMatmulDescDestroy(desc);
  cublasLtDestroy(lt);
  cudaStreamDestroy(stream);
  for (void *p : {a, b, c, workspace})
    cudaFree(p);
  return bench::median(ms);
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
  double direct1 = directMs(dtype, tf32), runtime1 = runtimeMs(dtype, tf32);
  double direct2 = directMs(dtype, tf32), runtime2 = runtimeMs(dtype, tf32);
  double direct = std::min(direct1, direct2),
         runtime = std::min(runtime1, runtime2);
  double tflops = 2.0 * kN * kN * kN / 1e12;
  std::printf("matmul %lld^3 %s on cuda:0, median of %lld steps\n",
              (long long)kN, mode.c_str(), (long long)kSteps);
  std::printf("%-24s %10s %10s\n", "", "ms", "TFLOP/s");
  std::printf("%-24s %10.3f %10.1f\n", "direct cuBLASLt call", direct,
              tflops / direct * 1e3);
  std::printf("%-24s %10.3f %10.1f\n", "runtime matmul actor", runtime,
              tflops / runtime * 1e3);
  std::printf("ratio direct/runtime: %.3f (goal at least 0.95)\n",
              direct / runtime);
  return 0;
}
