//===- actor_overhead.cpp - Engine cost per actor firing ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A chain of 1,000 trivial actors (each adds one to an i64 scalar) runs
// 1,000 steps through the engine; the same additions then run as a plain
// loop. Prints microseconds per firing for both, one stream and chains
// split over two streams.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Backend.h"
#include "ofrt/Engine.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

using namespace ofrt;

namespace {

class AddOne : public Kernel {
public:
  absl::Status compute(const KernelContext &,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    int64_t v = inputs.empty() ? 0 : *inputs[0].as<int64_t>();
    if (!outputs.empty())
      *outputs[0].as<int64_t>() = v + 1;
    return absl::OkStatus();
  }
};

RankProgram chain(int64_t actors, int streams, int64_t count) {
  RankProgram program;
  TensorDesc scalar{DType::I64, {}};
  for (int s = 0; s < streams; ++s)
    program.streams.push_back({"s" + std::to_string(s), {}});
  for (int64_t i = 0; i < actors; ++i) {
    ActorSpec actor;
    actor.id = i;
    actor.op.type = "bench.add_one";
    actor.op.name = "a" + std::to_string(i);
    // Contiguous blocks of the chain per stream.
    int s = static_cast<int>(i * streams / actors);
    actor.stream = program.streams[s].name;
    program.streams[s].actors.push_back(i);
    if (i > 0) {
      actor.inputs.push_back(i - 1);
      actor.op.inputs.push_back(scalar);
      program.regsts[i - 1].consumers.push_back(i);
    }
    if (i + 1 < actors) {
      RegstSpec regst;
      regst.id = i;
      regst.desc = scalar;
      regst.count = count;
      regst.producer = i;
      program.regsts.push_back(regst);
      actor.outputs.push_back(i);
      actor.op.outputs.push_back(scalar);
    }
    program.actors.push_back(actor);
  }
  return program;
}

double engineUsPerFiring(int64_t actors, int64_t steps, int streams,
                         int64_t count) {
  std::vector<double> samples;
  for (int repeat = 0; repeat < 3; ++repeat) {
    auto engine = Engine::create(
        chain(actors, streams, count),
        std::shared_ptr<Device>(*createDevice(DeviceKind::Cpu, 0)),
        [](const ActorSpec &) -> absl::StatusOr<std::unique_ptr<Kernel>> {
          return std::make_unique<AddOne>();
        });
    if (!engine.ok()) {
      std::fprintf(stderr, "%s\n", engine.status().ToString().c_str());
      std::exit(1);
    }
    auto result = (*engine)->run({steps, false});
    if (!result.ok() || result->steps != steps) {
      std::fprintf(stderr, "run failed\n");
      std::exit(1);
    }
    samples.push_back(1e6 * result->seconds / (actors * steps));
  }
  std::sort(samples.begin(), samples.end());
  return samples[1];
}

double loopUsPerAddition(int64_t actors, int64_t steps) {
  std::vector<int64_t> values(actors);
  AddOne kernel;
  std::vector<TensorView> in(1), out(1);
  auto start = std::chrono::steady_clock::now();
  for (int64_t s = 0; s < steps; ++s)
    for (int64_t i = 0; i < actors; ++i) {
      std::vector<TensorView> noInputs;
      in[0] = {&values[i > 0 ? i - 1 : 0], {DType::I64, {}}};
      out[0] = {&values[i], {DType::I64, {}}};
      (void)kernel.compute({s}, i > 0 ? in : noInputs, out);
    }
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();
  return 1e6 * seconds / (actors * steps);
}

} // namespace

int main() {
  const int64_t actors = 1000, steps = 1000;
  double loop = loopUsPerAddition(actors, steps);
  std::printf("chain of %lld trivial actors x %lld steps\n", (long long)actors,
              (long long)steps);
  std::printf("%-34s %10s %12s\n", "configuration", "us/firing",
              "vs plain loop");
  std::printf("%-34s %10.4f %12s\n", "plain loop (same kernel calls)", loop,
              "1.0x");
  struct Config {
    const char *name;
    int streams;
    int64_t count;
  } configs[] = {{"engine, 1 stream, regst count 1", 1, 1},
                 {"engine, 2 streams, regst count 1", 2, 1},
                 {"engine, 2 streams, regst count 2", 2, 2}};
  for (const Config &config : configs) {
    double us = engineUsPerFiring(actors, steps, config.streams, config.count);
    std::printf("%-34s %10.4f %11.1fx\n", config.name, us, us / loop);
  }
  std::printf("goal: at most 0.2 us per firing\n");
  return 0;
}
