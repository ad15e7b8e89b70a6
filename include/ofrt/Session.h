//===- Session.h - Running a program with data in and out -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A session binds a rank program's `oneflow.input` actors to data sources
// and its `oneflow.output` actors to sinks, creates every other kernel from
// the registry, and runs the engine.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_SESSION_H
#define OFRT_SESSION_H

#include "ofrt/Engine.h"

#include <chrono>

#include <functional>
#include <map>
#include <memory>
#include <set>

namespace ofrt {

class CheckpointReader;
class CommunicatorPool;

/// Where an input's batches come from.
struct InputSource {
  enum class Kind {
    Random, ///< Uniform in [low, high) (integers: [low, high)), new each step.
    Fill,   ///< Every element `value`.
    /// One logical batch per step, in order: a .npy array (docs in Npy.h)
    /// whose rows make batches (rows after the last whole batch unused), or
    /// raw little-endian elements. Every rank reads the logical batch and
    /// keeps its piece.
    File,
    /// As File, from `array` in memory (a library caller's array, shared
    /// by every rank, never copied); `path`, if set, names it in messages.
    Array,
  };
  Kind kind = Kind::Random;
  double low = 0, high = 1, value = 0;
  std::string path;
  std::shared_ptr<const TensorData> array;
  /// Files and arrays: start over after the last batch instead of ending
  /// the data.
  bool loop = false;
  /// Files of floats: a batch that holds a NaN or an infinity is an error
  /// that names the input, the step and the element (the runner's
  /// --on-nonfinite stop).
  bool refuseNonfinite = false;
  uint64_t seed = 0;
};

/// Sees every output's value at every step: this rank's piece, and whether
/// that piece is the whole logical tensor (false for a split piece or a
/// partial sum). Runs on the output's stream thread, so it must be short
/// and thread-safe; `value` is only valid during the call.
using OutputObserver =
    std::function<void(int64_t rank, const std::string &name, int64_t step,
                       const TensorView &value, bool whole)>;

/// Sees a variable's piece each time its actor fires at `step` after the
/// first step of a run: the value after `step` steps, before any op reads
/// it at that step (a consistent point for checkpoints). Runs on the
/// variable's stream thread; `value` is only valid during the call.
using VariableObserver =
    std::function<void(int64_t rank, const std::string &name, int64_t step,
                       const TensorView &value)>;

struct SessionOptions {
  std::map<std::string, InputSource> inputs; ///< By input name.
  /// Inputs not listed above get Random in [0, 1) (floats) or [0, 2)
  /// (integers), seeded by this plus their name.
  uint64_t seed = 0;
  /// The rank's groups, for collective and transfer actors
  /// (CollectiveKernels.h); a program with such actors needs one. Not owned;
  /// it must outlive the session.
  CommunicatorPool *communicators = nullptr;
  /// Called for every output at every step when set (progress, metrics).
  OutputObserver onOutput;
  /// When set, variables this checkpoint holds start from their piece of
  /// its value instead of their initializers. Not owned; ranks may share it.
  CheckpointReader *restore = nullptr;
  /// Called for every variable at every step but the first when set.
  VariableObserver onVariable;
  /// How the rank's device is created (kernel threads on the CPU).
  DeviceOptions device;
  /// The device's ordinal; -1: the plan's.
  int deviceOrdinal = -1;
  /// The input names of the whole plan, when this rank is one of several:
  /// a source in `inputs` for a name only other ranks read (another
  /// pipeline stage's) is not an error. Empty: this rank's own.
  std::set<std::string> planInputs;
};

class Session {
public:
  /// Creates the kernels and opens the data sources. An input source for a
  /// name the program does not have is an error, as is a file that cannot be
  /// read or holds a partial batch.
  static absl::StatusOr<std::unique_ptr<Session>>
  create(RankProgram program, const SessionOptions &options);

  absl::StatusOr<RunResult> run(const RunOptions &options);

  /// The value each output had at the last step, by output name.
  const std::map<std::string, TensorData> &outputs() const;
  const RankProgram &program() const;
  /// A host copy of the buffer of regst `regstId` that holds `step` (after
  /// a run: a variable's value, its regst having one buffer).
  absl::StatusOr<TensorData> regstValue(int64_t regstId, int64_t step) const;

  ~Session();

private:
  struct Impl;
  explicit Session(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl;
};

} // namespace ofrt

#endif // OFRT_SESSION_H
