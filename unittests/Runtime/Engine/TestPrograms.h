//===- TestPrograms.h - Hand-built rank programs for engine tests --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_ENGINE_TESTPROGRAMS_H
#define ONEFLOW_UNITTESTS_RUNTIME_ENGINE_TESTPROGRAMS_H

#include "ofrt/Backend.h"
#include "ofrt/Engine.h"

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace ofrt::test {

/// This rank's CPU device.
inline std::shared_ptr<Device> cpuDevice() {
  return std::shared_ptr<Device>(*createDevice(DeviceKind::Cpu, 0));
}

/// Builds a program of actors passing one i64 scalar along each regst.
class ProgramBuilder {
public:
  /// Adds an actor reading `inputs` (regst ids) and writing `numOutputs`
  /// regsts of count `count`; returns the actor id.
  int64_t actor(const std::string &name, const std::string &stream,
                std::vector<int64_t> inputs, int numOutputs = 1,
                int64_t count = 1) {
    int64_t id = program.actors.size();
    ActorSpec spec;
    spec.id = id;
    spec.op.type = "test." + name;
    spec.op.name = name;
    spec.op.location = "test.mlir:" + std::to_string(id + 1) + ":1";
    spec.stream = stream;
    spec.inputs = inputs;
    TensorDesc scalar{DType::I64, {}};
    for (int64_t regst : inputs) {
      spec.op.inputs.push_back(scalar);
      for (RegstSpec &r : program.regsts)
        if (r.id == regst && std::count(r.consumers.begin(),
                                        r.consumers.end(), id) == 0)
          r.consumers.push_back(id);
    }
    for (int i = 0; i < numOutputs; ++i) {
      RegstSpec regst;
      regst.id = program.regsts.size();
      regst.desc = scalar;
      regst.count = count;
      regst.producer = id;
      program.regsts.push_back(regst);
      spec.outputs.push_back(regst.id);
      spec.op.outputs.push_back(scalar);
    }
    program.actors.push_back(spec);
    StreamSpec *target = nullptr;
    for (StreamSpec &s : program.streams)
      if (s.name == stream)
        target = &s;
    if (!target) {
      program.streams.push_back({stream, {}});
      target = &program.streams.back();
    }
    target->actors.push_back(id);
    return id;
  }
  /// The first output regst of actor `id`.
  int64_t out(int64_t id, int index = 0) const {
    return program.actors[id].outputs[index];
  }

  RankProgram program;
};

/// out = step * 1000 + id + sum(inputs); sinks record what they read.
class SumKernel : public Kernel {
public:
  using Hook = std::function<absl::Status(int64_t step)>;
  SumKernel(int64_t id, Hook hook = nullptr, int64_t sleepUs = 0,
            std::map<int64_t, int64_t> *sink = nullptr,
            std::mutex *sinkMutex = nullptr)
      : id(id), hook(std::move(hook)), sleepUs(sleepUs), sink(sink),
        sinkMutex(sinkMutex) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    if (hook)
      if (absl::Status status = hook(context.step); !status.ok())
        return status;
    if (sleepUs)
      std::this_thread::sleep_for(std::chrono::microseconds(sleepUs));
    int64_t value = context.step * 1000 + id;
    for (const TensorView &in : inputs)
      value += *in.as<int64_t>();
    for (const TensorView &out : outputs)
      *out.as<int64_t>() = value;
    if (sink) {
      std::lock_guard<std::mutex> lock(*sinkMutex);
      (*sink)[context.step] = value;
    }
    return absl::OkStatus();
  }

private:
  int64_t id;
  Hook hook;
  int64_t sleepUs;
  std::map<int64_t, int64_t> *sink;
  std::mutex *sinkMutex;
};

} // namespace ofrt::test

#endif // ONEFLOW_UNITTESTS_RUNTIME_ENGINE_TESTPROGRAMS_H
