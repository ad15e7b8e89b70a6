//===- ActorTiming.h - One actor's time per firing ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Runs a one-rank program for some steps and returns the median time of
// one actor's firings after the first (from compute() to the completion the
// engine is told of), the figure the kernel benchmarks compare with a
// direct library call, and the matmul program both matmul benchmarks time
// with the operand values a direct call gets. Exits with the error if the
// program cannot run.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_BENCH_ACTORTIMING_H
#define ONEFLOW_BENCH_ACTORTIMING_H

#include "Kernels/Cpu/KernelUtils.h"
#include "TestRoles.h"

#include "ofrt/Random.h"
#include "ofrt/Session.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// The firings of `actor` in a run of `steps` steps, by step.
inline std::vector<ofrt::Firing> firingsOf(ofrt::RankProgram program,
                                           const ofrt::SessionOptions &options,
                                           int64_t actor, int64_t steps) {
  auto session = ofrt::Session::create(std::move(program), options);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::exit(1);
  }
  auto result = (*session)->run({steps, true});
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    std::exit(1);
  }
  std::vector<ofrt::Firing> firings;
  for (const ofrt::Firing &f : result->firings)
    if (f.actor == actor)
      firings.push_back(f);
  std::sort(firings.begin(), firings.end(),
            [](const ofrt::Firing &a, const ofrt::Firing &b) {
              return a.step < b.step;
            });
  return firings;
}

/// One firing's time, from compute() to the completion the engine is told
/// of (the device otherwise idle when its regsts have one buffer): the
/// median after the first step.
inline double medianFiringMs(ofrt::RankProgram program,
                             const ofrt::SessionOptions &options, int64_t actor,
                             int64_t steps) {
  std::vector<double> ms;
  for (const ofrt::Firing &f : firingsOf(std::move(program), options, actor,
                                          steps))
    if (f.step > 0)
      ms.push_back((f.endUs - f.startUs) / 1e3);
  return median(ms);
}

/// The time between the completions of consecutive firings after the first
/// two (the median): with regsts of two buffers the engine enqueues a
/// firing while the one before runs, so this is the actor's time per step
/// back to back, as in training.
inline double medianIntervalMs(ofrt::RankProgram program,
                               const ofrt::SessionOptions &options,
                               int64_t actor, int64_t steps) {
  std::vector<ofrt::Firing> firings =
      firingsOf(std::move(program), options, actor, steps);
  std::vector<double> ms;
  for (size_t i = 2; i < firings.size(); ++i)
    ms.push_back((firings[i].endUs - firings[i - 1].endUs) / 1e3);
  return median(ms);
}

/// The initializer of matmul operand `seed` (1: a, 2: b).
inline ofrt::Initializer operandInit() { return {"uniform", {-1, 1}}; }

/// A one-rank program c = a @ b on `device`, with a [m, k] and b [k, n]
/// variables (written once per buffer, the same every step; operandInit()
/// seeded 1 and 2) and c an output named "c", each regst of `buffers`
/// buffers. Actors: 0 a, 1 b, 2 the matmul, 3 the output; roles as the
/// compiler's plan export gives them.
inline ofrt::RankProgram matmulProgram(ofrt::DeviceKind device,
                                       ofrt::DType dtype, int64_t m, int64_t k,
                                       int64_t n, int64_t buffers = 1) {
  using namespace ofrt;
  RankProgram program;
  program.device = device;
  TensorDesc a{dtype, {m, k}}, b{dtype, {k, n}}, c{dtype, {m, n}};
  auto actor = [&](int64_t id, const std::string &type,
                   std::vector<int64_t> in, std::vector<int64_t> out,
                   std::vector<TensorDesc> inDescs,
                   std::vector<TensorDesc> outDescs) {
    ActorSpec spec;
    spec.id = id;
    spec.op.type = type;
    spec.op.role = oftest::roleOf(type);
    spec.op.name = type.substr(8) + std::to_string(id);
    spec.inputs = in;
    spec.outputs = out;
    spec.op.inputs = inDescs;
    spec.op.outputs = outDescs;
    program.actors.push_back(spec);
  };
  actor(0, "oneflow.variable", {}, {0}, {}, {a});
  actor(1, "oneflow.variable", {}, {1}, {}, {b});
  for (int64_t id : {0, 1}) {
    program.actors[id].op.attrs["init"] = operandInit().kind;
    program.actors[id].op.attrs["init_args"] = operandInit().args;
    program.actors[id].op.attrs["seed"] = id + 1;
    program.actors[id].op.attrs["name"] = std::string(id == 0 ? "a" : "b");
  }
  actor(2, "oneflow.matmul", {0, 1}, {2}, {a, b}, {c});
  actor(3, "oneflow.output", {2}, {}, {c}, {});
  program.actors[3].op.attrs["name"] = std::string("c");
  TensorDesc descs[] = {a, b, c};
  for (int64_t id : {0, 1, 2}) {
    RegstSpec r;
    r.id = id;
    r.desc = descs[id];
    r.count = buffers;
    r.producer = id;
    r.consumers = {id == 2 ? int64_t(3) : int64_t(2)};
    program.regsts.push_back(r);
  }
  program.streams.push_back({"compute", {0, 1, 2, 3}});
  return program;
}

/// The bytes of matmul operand `seed` of `shape` in `dtype`, exactly as the
/// variable kernel writes them, so a direct call multiplies the same data.
inline std::vector<uint8_t> operandBytes(int64_t seed, ofrt::DType dtype,
                                         std::vector<int64_t> shape) {
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  std::vector<double> values(numel);
  for (int64_t i = 0; i < numel; ++i)
    values[i] = ofrt::initialValue(operandInit(), shape, seed, i);
  std::vector<uint8_t> bytes(numel * ofrt::dtypeSize(dtype));
  absl::Status status = ofrt::cpu::storeValues(values, dtype, bytes.data());
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", status.ToString().c_str());
    std::exit(1);
  }
  return bytes;
}

} // namespace bench

#endif // ONEFLOW_BENCH_ACTORTIMING_H
