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
#include "ofrt/Status.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>

using namespace ofrt;
using namespace ofrt::calibration;

namespace {

/// `actors` calls of `op` in a row on one stream. A source writes each of
/// the op's operands; a chained call's first operand is the previous
/// call's first result instead (so that each call waits for the one
/// before, as in a program), an unchained call reads the source's only (an
/// update in place, which has no result).
struct Chain {
  std::string op;
  std::map<std::string, AttrValue> attrs;
  std::vector<TensorDesc> inputs;
  std::vector<TensorDesc> outputs;
  bool chained = true;
  int actors = 1;
  int steps = 1;

  /// Bytes a call reads and writes (the cost model's getMemoryBytes).
  double bytes() const {
    double total = 0;
    for (const TensorDesc &desc : inputs)
      total += desc.bytes();
    for (const TensorDesc &desc : outputs)
      total += desc.bytes();
    return total;
  }
};

TensorDesc f32(std::vector<int64_t> shape) {
  return TensorDesc{DType::F32, std::move(shape)};
}

/// A binary op of two operands of `shape` into a third, chained.
Chain binaryChain(const std::string &op, std::vector<int64_t> shape) {
  Chain chain;
  chain.op = op;
  chain.inputs = {f32(shape), f32(shape)};
  chain.outputs = {f32(shape)};
  return chain;
}

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
  StreamSpec stream{"compute", {}};
  auto addActor = [&](const std::string &type,
                      const std::vector<int64_t> &inputs,
                      const std::vector<TensorDesc> &outputs) {
    ActorSpec actor;
    actor.id = program.actors.size();
    actor.op.type = type;
    actor.op.role = roleOfOp(type);
    actor.op.name = "calibration" + std::to_string(actor.id);
    actor.op.location = "calibration";
    if (type == chain.op)
      actor.op.attrs = chain.attrs;
    actor.inputs = inputs;
    for (int64_t input : inputs) {
      actor.op.inputs.push_back(program.regsts[input].desc);
      std::vector<int64_t> &consumers = program.regsts[input].consumers;
      if (std::find(consumers.begin(), consumers.end(), actor.id) ==
          consumers.end())
        consumers.push_back(actor.id);
    }
    for (const TensorDesc &desc : outputs) {
      RegstSpec regst;
      regst.id = program.regsts.size();
      regst.desc = desc;
      regst.producer = actor.id;
      program.regsts.push_back(regst);
      actor.outputs.push_back(regst.id);
    }
    actor.op.outputs = outputs;
    stream.actors.push_back(actor.id);
    program.actors.push_back(actor);
    return actor.outputs;
  };
  std::vector<int64_t> source = addActor(kSourceOp, {}, chain.inputs);
  std::vector<int64_t> previous;
  for (int i = 0; i < chain.actors; ++i) {
    std::vector<int64_t> inputs = source;
    if (chain.chained && !previous.empty())
      inputs.front() = previous.front();
    previous = addActor(chain.op, inputs, chain.outputs);
  }
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

/// The seconds per call of one op at several sizes.
struct Series {
  std::string title;            ///< The report's heading ("add elements").
  const char *unit, *rateTitle; ///< "bytes" and "bytes/s", or flops.
  struct Row {
    int64_t size;
    double amount, call;
  };
  std::vector<Row> rows;
};

/// Times `chainOf(size)`'s op at each of `sizes`: chains of 4 calls, each
/// worth `amount(size)` (bytes or flops), about `budget` of it per rank a
/// chain.
absl::StatusOr<Series> timeSeries(const CalibrationOptions &options,
                                  const RankPlacement &placement, Series series,
                                  const std::vector<int64_t> &sizes,
                                  const std::function<Chain(int64_t)> &chainOf,
                                  const std::function<double(int64_t)> &amount,
                                  double budget) {
  for (int64_t size : sizes) {
    Chain chain = chainOf(size);
    chain.actors = 4;
    chain.steps =
        std::clamp<int>(budget / (chain.actors * amount(size)), 1, 200);
    absl::StatusOr<double> call = timeChain(options, placement, chain);
    if (!call.ok())
      return call.status();
    series.rows.push_back({size, amount(size), *call});
  }
  return series;
}

/// [{`unit`: amount, "rate": per second}] of `series` in increasing size, a
/// call's rate leaving out the firing's `overhead`; one report row each.
nlohmann::ordered_json ratesOf(const CalibrationOptions &options,
                               const Series &series, double overhead) {
  nlohmann::ordered_json rates = nlohmann::ordered_json::array();
  report(options, "  %-24s %12s %12s\n", series.title.c_str(), "us per call",
         series.rateTitle);
  for (const Series::Row &row : series.rows) {
    double rate = row.amount / std::max(row.call - overhead, 1e-9);
    rates.push_back({{series.unit, row.amount}, {"rate", rate}});
    report(options, "  %-24lld %12.2f %12.3g\n",
           static_cast<long long>(row.size), row.call * 1e6, rate);
  }
  return rates;
}

/// One call of `op` on `elements` f32 values as rows of 64 (under 64Ki
/// elements) or 256: the ops whose kernels do more per byte than an add
/// (transcendentals, a pass per row, an optimizer's arithmetic: a scalar
/// loop per element), each
/// measured, where the cost model would price them at an add's bandwidth.
Chain opChain(const std::string &op, int64_t elements) {
  int64_t cols = elements < (int64_t(1) << 16) ? 64 : 256;
  std::vector<int64_t> x = {elements / cols, cols}, rows = {elements / cols},
                       row = {cols};
  Chain chain;
  chain.op = op;
  if (op == "oneflow.gelu" || op == "oneflow.softmax") {
    chain.inputs = {f32(x)};
    chain.outputs = {f32(x)};
  } else if (op == "oneflow.gelu_grad" || op == "oneflow.softmax_grad") {
    chain.inputs = {f32(x), f32(x)};
    chain.outputs = {f32(x)};
  } else if (op == "oneflow.layer_norm") {
    chain.inputs = {f32(x), f32(row), f32(row)};
    chain.outputs = {f32(x), f32(rows), f32(rows)};
  } else if (op == "oneflow.layer_norm_grad") {
    chain.inputs = {f32(x), f32(x), f32(rows), f32(rows), f32(row)};
    chain.outputs = {f32(x), f32(row), f32(row)};
  } else if (op == "oneflow.sparse_softmax_cross_entropy") {
    // Labels of class 0; the probabilities feed the next call.
    chain.inputs = {f32(x), TensorDesc{DType::I64, rows}};
    chain.outputs = {f32(x), f32(rows)};
  } else if (op == "oneflow.sgd_update") { // in place, with momentum
    chain.inputs.assign(3, f32({elements}));
    chain.attrs = {{"lr", 1e-3}, {"momentum", 0.9}};
    chain.chained = false;
  } else { // adam_update: a parameter, its gradient and 2 states in place
    chain.inputs.assign(4, f32({elements}));
    chain.attrs = {{"lr", 1e-3}, {"decoupled", true}};
    chain.chained = false;
  }
  if (op == "oneflow.softmax" || op == "oneflow.softmax_grad")
    chain.attrs = {{"axis", int64_t(-1)}};
  return chain;
}

/// The ops opChain makes.
const char *const kRatedOps[] = {"oneflow.gelu",
                                 "oneflow.gelu_grad",
                                 "oneflow.softmax",
                                 "oneflow.softmax_grad",
                                 "oneflow.layer_norm",
                                 "oneflow.layer_norm_grad",
                                 "oneflow.sparse_softmax_cross_entropy",
                                 "oneflow.sgd_update",
                                 "oneflow.adam_update"};

} // namespace

absl::StatusOr<nlohmann::ordered_json>
calibration::measureCompute(const CalibrationOptions &options,
                            const RankPlacement &placement) {
  // The firing's cost, which small programs' steps hang on, is timed before,
  // between and after the rates, and is their median: a slow second of the
  // machine (ranks sharing cores, a VM's neighbours) then moves one of the
  // three (one pass's firings once took 1.4, 1.4 and 2.1 us).
  std::vector<double> firings;
  auto timeFiring = [&]() -> absl::Status {
    Chain firing = binaryChain("oneflow.add", {16});
    firing.actors = 64;
    firing.steps = 100;
    absl::StatusOr<double> seconds = timeChain(options, placement, firing);
    if (!seconds.ok())
      return seconds.status();
    firings.push_back(*seconds);
    return absl::OkStatus();
  };
  std::vector<Series> series;
  auto timeRates = [&](Series named, const std::vector<int64_t> &sizes,
                       const std::function<Chain(int64_t)> &chainOf,
                       const std::function<double(int64_t)> &amount,
                       double budget) -> absl::Status {
    absl::StatusOr<Series> timed = timeSeries(
        options, placement, std::move(named), sizes, chainOf, amount, budget);
    if (!timed.ok())
      return timed.status();
    series.push_back(*std::move(timed));
    return absl::OkStatus();
  };
  OFRT_RETURN_IF_ERROR(timeFiring());
  // Element-wise: adds of two operands into a third, from cache-sized to
  // memory-sized, about 2e8 bytes per rank per chain.
  OFRT_RETURN_IF_ERROR(timeRates(
      {"add elements", "bytes", "bytes/s", {}},
      {1 << 10, 1 << 14, 1 << 18, 1 << 22},
      [](int64_t n) { return binaryChain("oneflow.add", {n}); },
      [](int64_t n) { return 3.0 * n * 4; }, 2e8));
  // Matmuls of square sizes, about 1e8 flops per rank per chain.
  OFRT_RETURN_IF_ERROR(timeRates(
      {"matmul size", "flops", "flop/s", {}}, {16, 32, 64, 128, 256, 512},
      [](int64_t m) {
        return binaryChain("oneflow.matmul", {m, m});
      },
      [](int64_t m) { return 2.0 * m * m * m; }, 1e8));
  OFRT_RETURN_IF_ERROR(timeFiring());
  // Ops that do more per byte than an add, from a call whose fixed costs
  // show (oneDNN's set-up, a pass per row) to a cache-sized and a larger
  // one, about 2e7 bytes per rank per chain.
  for (const char *op : kRatedOps) {
    auto chainOf = [op](int64_t n) { return opChain(op, n); };
    OFRT_RETURN_IF_ERROR(timeRates(
        {std::string(op + std::strlen("oneflow.")) + " elements",
         "bytes",
         "bytes/s",
         {}},
        {1 << 10, 1 << 14, 1 << 18}, chainOf,
        [&](int64_t n) { return chainOf(n).bytes(); }, 2e7));
  }
  OFRT_RETURN_IF_ERROR(timeFiring());
  std::vector<double> sorted = firings;
  std::sort(sorted.begin(), sorted.end());
  double overhead = sorted[1];

  nlohmann::ordered_json bandwidths = ratesOf(options, series[0], overhead);
  nlohmann::ordered_json rates = ratesOf(options, series[1], overhead);
  nlohmann::ordered_json opRates = nlohmann::ordered_json::object();
  for (size_t i = 0; i < std::size(kRatedOps); ++i)
    opRates[kRatedOps[i]] = ratesOf(options, series[2 + i], overhead);
  // The largest sizes' rates stand for memory bandwidth and flops.
  double bandwidth = bandwidths.back()["rate"].get<double>();
  double peak = rates.back()["rate"].get<double>();
  report(options,
         "  kernel firing in the engine %.3g s (the median of %.3g, %.3g and "
         "%.3g in turn), memory bandwidth per rank %.3g B/s, matmul of 512 per "
         "rank "
         "%.3g flop/s\n",
         overhead, firings[0], firings[1], firings[2], bandwidth, peak);
  nlohmann::ordered_json figures;
  figures["memory_bandwidth"] = bandwidth;
  figures["elementwise_bandwidth"] = bandwidths;
  figures["flops"] = peak;
  figures["matmul_flops"] = rates;
  figures["op_rates"] = opRates;
  figures["op_overhead"] = overhead;
  return figures;
}
