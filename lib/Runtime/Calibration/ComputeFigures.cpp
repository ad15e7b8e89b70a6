//===- ComputeFigures.cpp - What kernels cost in the engine ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each figure times a chain of actors on one stream of each rank's engine:
// a source writes zeros (no denormals, no non-finite values), then
// `actors` kernels of one op each read the previous one's result (and a
// binary op the source's too). A firing's time is the chain's step time
// over its actors, so that it includes everything the engine adds to a
// kernel: messages, regst bookkeeping, thread hand-offs.
//
//===----------------------------------------------------------------------===//

#include "ComputeFigures.h"

#include "ofrt/Backend.h"
#include "ofrt/Engine.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <mutex>

using namespace ofrt;
using namespace ofrt::calibration;

namespace {

/// A chain of `actors` kernels of `op` on tensors of `shape` (a binary op
/// also reads the source).
struct Chain {
  std::string op;
  std::vector<int64_t> shape;
  bool binary = false;
  int actors = 1;
  int steps = 1;
};

constexpr const char *kSourceOp = "calibration.zeros";

/// Writes zeros into its result.
class ZerosKernel : public Kernel {
public:
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                       const std::vector<TensorView> &outputs) override {
    for (const TensorView &out : outputs)
      std::memset(out.data, 0, out.desc.bytes());
    return absl::OkStatus();
  }
};

RankProgram chainProgram(const Chain &chain) {
  RankProgram program;
  TensorDesc desc{DType::F32, chain.shape};
  StreamSpec stream{"compute", {}};
  auto addActor = [&](const std::string &type, std::vector<int64_t> inputs) {
    ActorSpec actor;
    actor.id = program.actors.size();
    actor.op.type = type;
    actor.op.name = "calibration" + std::to_string(actor.id);
    actor.op.location = "calibration";
    actor.inputs = inputs;
    for (int64_t input : inputs) {
      actor.op.inputs.push_back(desc);
      std::vector<int64_t> &consumers = program.regsts[input].consumers;
      if (std::find(consumers.begin(), consumers.end(), actor.id) ==
          consumers.end())
        consumers.push_back(actor.id);
    }
    RegstSpec regst;
    regst.id = program.regsts.size();
    regst.desc = desc;
    regst.producer = actor.id;
    program.regsts.push_back(regst);
    actor.outputs = {regst.id};
    actor.op.outputs = {desc};
    stream.actors.push_back(actor.id);
    program.actors.push_back(actor);
    return regst.id;
  };
  int64_t source = addActor(kSourceOp, {});
  int64_t previous = source;
  for (int i = 0; i < chain.actors; ++i)
    previous =
        addActor(chain.op, chain.binary ? std::vector<int64_t>{previous, source}
                                        : std::vector<int64_t>{previous});
  program.streams.push_back(stream);
  return program;
}

/// Seconds per firing of one of the chain's kernels (the source's firing
/// included in the chain's), every rank running its own engine at once
/// (enough steps that starting a run's threads is lost in them).
absl::StatusOr<double> timeChain(const CalibrationOptions &options,
                                 const RankPlacement &placement,
                                 const Chain &chain) {
  int ranks = options.ranks;
  KernelProvider provider =
      [](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    if (actor.op.type == kSourceOp)
      return std::unique_ptr<Kernel>(new ZerosKernel());
    return KernelRegistry::global().create(DeviceKind::Cpu, actor.op);
  };
  // An engine runs once: each timing gets new ones.
  auto makeEngines =
      [&]() -> absl::StatusOr<std::vector<std::unique_ptr<Engine>>> {
    std::vector<std::unique_ptr<Engine>> engines;
    for (int r = 0; r < ranks; ++r) {
      DeviceOptions device;
      device.threads = options.threads;
      device.oneStreamThread = placement.oneStreamThread;
      if (!placement.cores.empty())
        device.cores = {placement.cores[r % placement.cores.size()]};
      absl::StatusOr<std::unique_ptr<Device>> created =
          createDevice(DeviceKind::Cpu, 0, device);
      if (!created.ok())
        return created.status();
      absl::StatusOr<std::unique_ptr<Engine>> engine =
          Engine::create(chainProgram(chain), std::move(*created), provider);
      if (!engine.ok())
        return engine.status();
      engines.push_back(std::move(*engine));
    }
    return engines;
  };
  absl::Status failed;
  std::mutex mutex;
  // The best of a few runs of `steps` steps; the first makes the kernels'
  // primitives and touches the buffers.
  auto time = [&](int64_t steps) -> absl::StatusOr<double> {
    double best = 1e30;
    for (int repeat = 0; repeat <= std::min(options.repeats, 3); ++repeat) {
      absl::StatusOr<std::vector<std::unique_ptr<Engine>>> engines =
          makeEngines();
      if (!engines.ok())
        return engines.status();
      RunOptions run;
      run.maxSteps = steps;
      best = std::min(best, timeRanks(placement, ranks, 1, [&](int r) {
                        absl::StatusOr<RunResult> result =
                            (*engines)[r]->run(run);
                        if (!result.ok()) {
                          std::lock_guard<std::mutex> lock(mutex);
                          failed.Update(result.status());
                        }
                      }));
      if (!failed.ok())
        return failed;
    }
    return best;
  };
  absl::StatusOr<double> seconds = time(chain.steps);
  if (!seconds.ok())
    return seconds.status();
  return *seconds / chain.steps / chain.actors;
}

/// Rates of `op` at each of `sizes`: chains of 4 calls on tensors of
/// `shape(size)`, each call worth `amount(size)` (bytes or flops), about
/// `budget` of it per rank a chain; a call's rate leaves out the firing's
/// `overhead`. One report row per size under `title` and `rateTitle`;
/// returns
/// [{`unit`: amount, "rate": per second}] in increasing size.
absl::StatusOr<nlohmann::ordered_json>
measureRates(const CalibrationOptions &options, const RankPlacement &placement,
             const char *op, const char *title, const char *unit,
             const char *rateTitle, const std::vector<int64_t> &sizes,
             const std::function<std::vector<int64_t>(int64_t)> &shape,
             const std::function<double(int64_t)> &amount, double budget,
             double overhead) {
  nlohmann::ordered_json rates = nlohmann::ordered_json::array();
  report(options, "  %-15s %12s %12s\n", title, "us per call", rateTitle);
  for (int64_t size : sizes) {
    int actors = 4;
    int steps = std::clamp<int>(budget / (actors * amount(size)), 1, 200);
    absl::StatusOr<double> call =
        timeChain(options, placement, {op, shape(size), true, actors, steps});
    if (!call.ok())
      return call.status();
    double rate = amount(size) / std::max(*call - overhead, 1e-9);
    rates.push_back({{unit, amount(size)}, {"rate", rate}});
    report(options, "  %-15lld %12.2f %12.3g\n", static_cast<long long>(size),
           *call * 1e6, rate);
  }
  return rates;
}

} // namespace

absl::StatusOr<nlohmann::ordered_json>
calibration::measureCompute(const CalibrationOptions &options,
                            const RankPlacement &placement) {
  nlohmann::ordered_json figures;
  absl::StatusOr<double> overhead =
      timeChain(options, placement, {"oneflow.add", {16}, true, 64, 100});
  if (!overhead.ok())
    return overhead.status();
  // Element-wise: adds of two operands into a third, from cache-sized to
  // memory-sized, about 2e8 bytes per rank per chain.
  absl::StatusOr<nlohmann::ordered_json> bandwidths = measureRates(
      options, placement, "oneflow.add", "add elements", "bytes", "bytes/s",
      {1 << 10, 1 << 14, 1 << 18, 1 << 22},
      [](int64_t n) { return std::vector<int64_t>{n}; },
      [](int64_t n) { return 3.0 * n * 4; }, 2e8, *overhead);
  if (!bandwidths.ok())
    return bandwidths.status();
  // Matmuls of square sizes, about 1e8 flops per rank per chain.
  absl::StatusOr<nlohmann::ordered_json> rates = measureRates(
      options, placement, "oneflow.matmul", "matmul size", "flops", "flop/s",
      {16, 32, 64, 128, 256, 512},
      [](int64_t m) {
        return std::vector<int64_t>{m, m};
      },
      [](int64_t m) { return 2.0 * m * m * m; }, 1e8, *overhead);
  if (!rates.ok())
    return rates.status();
  // The largest sizes' rates stand for memory bandwidth and flops.
  double bandwidth = bandwidths->back()["rate"].get<double>();
  double peak = rates->back()["rate"].get<double>();
  report(options,
         "  kernel firing in the engine %.3g s, memory bandwidth per rank "
         "%.3g B/s, matmul of 512 per rank %.3g flop/s\n",
         *overhead, bandwidth, peak);
  figures["memory_bandwidth"] = bandwidth;
  figures["elementwise_bandwidth"] = *bandwidths;
  figures["flops"] = peak;
  figures["matmul_flops"] = *rates;
  figures["op_overhead"] = *overhead;
  return figures;
}
