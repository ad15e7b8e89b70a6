//===- matmul_vs_dnnl.cpp - Runtime matmul against a direct oneDNN call ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A 1024x1024x1024 f32 matmul as an actor of the runtime (its kernel time
// per firing, from the engine's firing records) against the same oneDNN
// matmul primitive called directly, in one process with the same threads.
// Both multiply the same uniform(-1, 1) operands. Prints the ratio
// direct / runtime (goal: at least 0.95).
//
//===----------------------------------------------------------------------===//

#include "ActorTiming.h"

#include "ofrt/Session.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace ofrt;

namespace {

int64_t kM = 1024, kK = 1024, kN = 1024, kSteps = 30;

double runtimeMs() {
  return bench::medianFiringMs(
      bench::matmulProgram(DeviceKind::Cpu, DType::F32, kM, kK, kN),
      SessionOptions(), 2, kSteps);
}

double directMs() {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  memory::desc a({kM, kK}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc b({kK, kN}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc c({kM, kN}, memory::data_type::f32, memory::format_tag::ab);
  matmul prim(matmul::primitive_desc(matmul::desc(a, b, c), eng));
  // The actor's operands, value for value.
  std::vector<uint8_t> av = bench::operandBytes(1, DType::F32, {kM, kK}),
                       bv = bench::operandBytes(2, DType::F32, {kK, kN});
  std::vector<float> cv(kM * kN);
  memory am(a, eng, av.data()), bm(b, eng, bv.data()), cm(c, eng, cv.data());
  std::vector<double> ms;
  for (int i = 0; i < kSteps; ++i) {
    auto start = std::chrono::steady_clock::now();
    prim.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm},
                        {DNNL_ARG_DST, cm}});
    strm.wait();
    if (i > 0)
      ms.push_back(std::chrono::duration<double, std::milli>(
                       std::chrono::steady_clock::now() - start)
                       .count());
  }
  return bench::median(ms);
}

} // namespace

int main(int argc, char **argv) {
  // --size N --steps S: a smaller check (the test runs one).
  for (int i = 1; i + 1 < argc; i += 2) {
    int64_t value = std::atoll(argv[i + 1]);
    if (std::strcmp(argv[i], "--size") == 0 && value > 0)
      kM = kK = kN = value;
    else if (std::strcmp(argv[i], "--steps") == 0 && value > 1)
      kSteps = value;
    else {
      std::fprintf(stderr, "bench-matmul-vs-dnnl: bad flag '%s %s' (--size "
                   "N, --steps S > 1)\n", argv[i], argv[i + 1]);
      return 1;
    }
  }
  // Interleave to share whatever else the machine is doing.
  double direct1 = directMs(), runtime1 = runtimeMs();
  double direct2 = directMs(), runtime2 = runtimeMs();
  double direct = std::min(direct1, direct2),
         runtime = std::min(runtime1, runtime2);
  double gflops = 2.0 * kM * kN * kK / 1e9;
  std::printf("matmul %lldx%lldx%lld f32, median of %lld steps\n",
              (long long)kM, (long long)kK, (long long)kN, (long long)kSteps);
  std::printf("%-24s %10s %10s\n", "", "ms", "GFLOP/s");
  std::printf("%-24s %10.3f %10.1f\n", "direct oneDNN call", direct,
              gflops / direct * 1e3);
  std::printf("%-24s %10.3f %10.1f\n", "runtime matmul actor", runtime,
              gflops / runtime * 1e3);
  std::printf("ratio direct/runtime: %.3f (goal at least 0.95)\n",
              direct / runtime);
  return 0;
}
