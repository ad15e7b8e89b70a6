//===- matmul_vs_dnnl.cpp - Runtime matmul against a direct oneDNN call ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A 1024x1024x1024 f32 matmul as an actor of the runtime (its kernel time
// per firing, from the engine's firing records) against the same oneDNN
// matmul primitive called directly, in one process with the same threads.
// Prints the ratio direct / runtime (goal: at least 0.95).
//
//===----------------------------------------------------------------------===//

#include "ActorTiming.h"

#include "ofrt/Session.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace ofrt;

namespace {

const int64_t kM = 1024, kK = 1024, kN = 1024, kSteps = 30;

RankProgram matmulProgram() {
  RankProgram program;
  TensorDesc a{DType::F32, {kM, kK}}, b{DType::F32, {kK, kN}},
      c{DType::F32, {kM, kN}};
  auto regst = [&](int64_t id, TensorDesc desc, int64_t producer,
                   int64_t consumer) {
    RegstSpec r;
    r.id = id;
    r.desc = desc;
    r.producer = producer;
    r.consumers = {consumer};
    program.regsts.push_back(r);
  };
  auto actor = [&](int64_t id, const std::string &type,
                   std::vector<int64_t> in, std::vector<int64_t> out,
                   std::vector<TensorDesc> inDescs,
                   std::vector<TensorDesc> outDescs) {
    ActorSpec spec;
    spec.id = id;
    spec.op.type = type;
    spec.op.name = type.substr(8);
    spec.inputs = in;
    spec.outputs = out;
    spec.op.inputs = inDescs;
    spec.op.outputs = outDescs;
    program.actors.push_back(spec);
  };
  actor(0, "oneflow.input", {}, {0}, {}, {a});
  program.actors[0].op.attrs["name"] = std::string("a");
  actor(1, "oneflow.variable", {}, {1}, {}, {b});
  program.actors[1].op.attrs["init"] = std::string("uniform");
  program.actors[1].op.attrs["init_args"] = std::vector<double>{-1, 1};
  actor(2, "oneflow.matmul", {0, 1}, {2}, {a, b}, {c});
  actor(3, "oneflow.output", {2}, {}, {c}, {});
  program.actors[3].op.attrs["name"] = std::string("c");
  regst(0, a, 0, 2);
  regst(1, b, 1, 2);
  regst(2, c, 2, 3);
  program.streams.push_back({"compute", {0, 1, 2, 3}});
  return program;
}

double runtimeMs() {
  // Like the direct call's operands, the actor's are the same every step
  // (a filled input, a variable written once), so caches treat both alike.
  SessionOptions options;
  InputSource fill;
  fill.kind = InputSource::Kind::Fill;
  fill.value = 0.5;
  options.inputs["a"] = fill;
  return bench::medianFiringMs(matmulProgram(), options, 2, kSteps);
}

double directMs() {
  using namespace dnnl;
  engine eng(engine::kind::cpu, 0);
  stream strm(eng);
  memory::desc a({kM, kK}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc b({kK, kN}, memory::data_type::f32, memory::format_tag::ab);
  memory::desc c({kM, kN}, memory::data_type::f32, memory::format_tag::ab);
  matmul prim(matmul::primitive_desc(matmul::desc(a, b, c), eng));
  std::vector<float> av(kM * kK, 0.5f), bv(kK * kN, 0.25f), cv(kM * kN);
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

int main() {
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
