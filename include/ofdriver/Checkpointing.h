//===- Checkpointing.h - Saving and resuming a run's variables -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// --save DIR, --save-every N, --keep K, --resume PATH and --resume-partial:
// opens and checks the checkpoint to resume from, makes the run continue its
// step count, snapshots the variables every N steps and saves them, and
// saves once more after the run (also after Ctrl-C). Format and guarantees:
// ofrt/Checkpoint.h and docs/checkpoints.md.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_CHECKPOINTING_H
#define OFDRIVER_CHECKPOINTING_H

#include "ofrt/Checkpoint.h"
#include "ofrt/MultiRank.h"

#include "ofdriver/Options.h"

#include <mutex>

namespace ofdriver {

class Checkpointing {
public:
  /// Checks `options` for `plan`; opens and checks the checkpoint to
  /// resume from; `onNonfinite` says whether checkpoints may hold values
  /// that are not finite.
  /// `allRanksHere`: every rank runs in this process (else one does);
  /// `verbose`: this process says what it loads and saves.
  static absl::StatusOr<std::unique_ptr<Checkpointing>>
  create(const ofrt::LoadedPlan &plan, const CheckpointOptions &options,
         NonfiniteAction onNonfinite, bool allRanksHere, bool verbose);

  /// The step the run starts at: the resumed checkpoint's, else 0.
  int64_t firstStep() const;
  /// Sets the run's first step, the checkpoint to load and what the run
  /// must collect for saves.
  void configure(ofrt::MultiRankOptions &options);
  /// After the run (on the rank that holds the variables): saves them when
  /// --save is given and prints where; also reports a failed mid-run save.
  absl::Status finish(const ofrt::MultiRankResult &result);
  /// The logical value of every variable of the plan as --resume holds it,
  /// without running (of-run --steps 0 --resume CKPT --export-onnx OUT).
  absl::StatusOr<std::map<std::string, ofrt::TensorData>> resumedVariables();

private:
  Checkpointing() = default;
  /// Keeps the primary pieces of steps to save; saves a step when every
  /// piece has arrived.
  void observe(int64_t rank, const std::string &name, int64_t step,
               const ofrt::TensorView &value);
  absl::Status save(int64_t step,
                    const std::map<std::string, ofrt::TensorData> &tensors);

  /// Refuses --resume of a checkpoint that holds values that are not
  /// finite, unless they are allowed (a warning then).
  absl::Status checkResumedValues() const;

  std::string saveRoot;
  bool verbose = false;
  /// Checkpoints may hold values that are not finite (--on-nonfinite).
  bool allowNonfinite = false;
  int64_t every = 0;
  ofrt::SaveOptions saveOptions;
  std::unique_ptr<ofrt::CheckpointReader> resume;
  std::vector<std::vector<ofrt::VariablePiece>> variables;
  /// Per rank: the index in variables[rank] of each variable name.
  std::vector<std::map<std::string, size_t>> index;
  size_t primaryPieces = 0;

  std::mutex mutex;
  /// Per step being snapshotted: values like variables, and how many.
  std::map<int64_t, std::pair<std::vector<std::vector<ofrt::TensorData>>,
                              size_t>>
      pending;
  absl::Status saveError;
};

/// The logical value of every variable of `plan` in the checkpoint that
/// `options` resume from, checked against the plan, without running (of-run
/// --steps 0 --resume CKPT --export-onnx OUT); `onNonfinite` as create's.
absl::StatusOr<std::map<std::string, ofrt::TensorData>>
checkpointVariables(const ofrt::LoadedPlan &plan,
                    const CheckpointOptions &options,
                    NonfiniteAction onNonfinite);

} // namespace ofdriver

#endif // OFDRIVER_CHECKPOINTING_H
