//===- Engine.h - Runs one rank's actors ------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The actor engine of the OneFlow paper: one thread per stream, actors that
// fire when every consumed regst has a readable buffer and every produced
// regst a free one, regst messages through in-process queues, end-of-data
// propagated from the sources, and a failing kernel stopping every actor.
//
// The engine names no backend: it runs on the Device it is given, one
// device Stream per plan stream, and learns that a firing's work has
// finished from the event it records after it (Device.h). On the CPU that
// is at once. On an asynchronous device (a GPU) the engine tells a
// consumer its regst is readable, and a producer its buffer is free, as
// soon as the firing is enqueued, wherever stream order keeps the data
// safe: on the same stream, nothing more; across streams, the reader's
// stream waits for the writer's event (and a producer's for its consumer's
// read) before its kernel. It waits for the host to see a firing finish
// only when a kernel on the other side runs on the host
// (Kernel::runsOnHost): a host wait, counted in RunResult::hostWaits.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_ENGINE_H
#define OFRT_ENGINE_H

#include "ofrt/Device.h"
#include "ofrt/Program.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace ofrt {

/// Creates the kernel of an actor. of-run uses the kernel registry plus its
/// data sources and sinks; tests inject their own kernels.
using KernelProvider =
    std::function<absl::StatusOr<std::unique_ptr<Kernel>>(const ActorSpec &)>;

/// One firing of one actor, for traces and tests.
struct Firing {
  int64_t actor = 0;
  int64_t step = 0;   ///< From the run's first step.
  double startUs = 0; ///< Microseconds since the run started.
  double endUs = 0;
  int64_t micro = 0; ///< The micro-batch within the step.
  /// Whether an actor waited for the host to see this firing finish.
  bool hostWait = false;
};

/// Where the sources of a process's ranks stop early (Ctrl-C). A source
/// asks before each step it begins; the gate remembers the highest step
/// begun (its frontier). To stop, the runner holds the gate (sources begin
/// no step beyond the frontier and wait), agrees with the job's other
/// processes on the largest frontier, and releases the gate with that as
/// the limit: every rank then finishes the same steps and no step begun
/// anywhere is left half done.
class StepGate {
public:
  enum class Verdict { Go, Wait, End };
  /// Whether a source may begin kernel step `step`.
  Verdict admit(int64_t step);
  /// Stops sources beginning steps at or beyond the frontier; returns it
  /// (steps below it may have begun somewhere in this process).
  int64_t hold();
  /// Lets sources run up to `limit` (exclusive), where they end, and wakes
  /// the engines that wait on the gate.
  void release(int64_t limit);
  bool holding() const;
  /// The highest step begun, plus one.
  int64_t frontier() const;
  /// Engines register how to wake their threads while they run.
  int64_t subscribe(std::function<void()> wake);
  void unsubscribe(int64_t id);

private:
  mutable std::mutex mutex;
  bool held = false;
  int64_t begun = 0;
  int64_t limit = std::numeric_limits<int64_t>::max();
  int64_t nextId = 0;
  std::map<int64_t, std::function<void()>> wakers;
};

struct RunOptions {
  /// Sources stop after this many steps; -1 runs until a source's kernel
  /// reports the end of its data (absl::OutOfRangeError).
  int64_t maxSteps = -1;
  /// Record every firing (RunResult::firings).
  bool recordFirings = false;
  /// When set, sources ask it before each step (Ctrl-C; shared by the
  /// ranks of a process).
  StepGate *gate = nullptr;
  /// The step kernels see first (KernelContext::step): a run resumed from
  /// a checkpoint continues its step count, so learning-rate schedules,
  /// dropout masks and file batches continue too. Firings, maxSteps and
  /// RunResult::steps count from the start of this run.
  int64_t firstStep = 0;
  /// Where firings' times count from: the ranks of one process share it, so
  /// their traces line up. Unset: the start of this run.
  std::optional<std::chrono::steady_clock::time_point> epoch;
};

/// What one step of a rank did, from its firings: how long the actors of
/// its "compute" stream ran, and when its last firing ended (on the rank's
/// clock, as Firing::endUs). A pipeline's bubble is the compute stream's
/// idle share of the time between two steps' ends.
struct StepLoad {
  double computeUs = 0;
  double endUs = 0;
};

struct RunResult {
  int64_t steps = 0; ///< Steps every sink completed.
  double seconds = 0;
  std::vector<Firing> firings; ///< In no particular order.
  /// Per step, when firings are recorded (stepLoads()); a multi-process
  /// job reports them to rank 0 with the timing.
  std::vector<StepLoad> stepLoads;
  /// The engine threads that drove the rank's streams: one per stream (a
  /// per-micro-batch transfer may have one of its own), or one for all
  /// (DeviceOptions::oneStreamThread).
  int64_t threads = 0;
  /// Firings on an asynchronous device whose end the host had to see
  /// before another actor could go on (a consumer or producer runs on the
  /// host); 0 on the CPU, whose work is done when a kernel returns.
  int64_t hostWaits = 0;
};

class Engine {
public:
  /// Validates `program`, allocates its buffers on `device` (which must
  /// be of the program's kind), creates a stream per plan stream and every
  /// kernel.
  static absl::StatusOr<std::unique_ptr<Engine>>
  create(RankProgram program, std::shared_ptr<Device> device,
         const KernelProvider &provider);
  ~Engine();

  /// Runs until the sources end (or maxSteps). A kernel error stops every
  /// actor and is returned naming the actor, its op, its source location
  /// and the step.
  absl::StatusOr<RunResult> run(const RunOptions &options);

  const RankProgram &program() const;
  Device &device() const;

  /// The buffer that holds `step` of regst `regstId` (buffer step % count),
  /// in device memory; valid as long as the engine lives. After a run, the
  /// last step a sink read is still there unless the regst's memory is
  /// shared.
  const void *buffer(int64_t regstId, int64_t step) const;
  /// A host copy of that buffer.
  absl::StatusOr<TensorData> read(int64_t regstId, int64_t step) const;

private:
  struct Impl;
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

/// Steps 0 .. steps - 1 of `program`'s `firings`.
std::vector<StepLoad> stepLoads(const RankProgram &program,
                                const std::vector<Firing> &firings,
                                int64_t steps);

/// Writes `firings` as a Chrome trace (chrome://tracing, Perfetto): one
/// complete event per firing, one thread row per stream.
absl::Status writeChromeTrace(const RankProgram &program,
                              const std::vector<Firing> &firings,
                              const std::string &path);
/// The same for several ranks (firings[i] are programs[i]'s), one process
/// row per rank.
absl::Status writeChromeTrace(const std::vector<RankProgram> &programs,
                              const std::vector<std::vector<Firing>> &firings,
                              const std::string &path);

} // namespace ofrt

#endif // OFRT_ENGINE_H
