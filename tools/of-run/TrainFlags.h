//===- TrainFlags.h - of-run's training flags -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H
#define ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H

#include "Runner.h"
#include "ofdriver/Compile.h"

#include "absl/status/statusor.h"

#include <optional>

namespace ofrun {

/// The --help group of the training flags (TrainingOptions.def's, with
/// --train, --labels, --mesh and --recalibrate).
oftools::FlagGroup trainingFlagGroup();

/// The training passes' options from --train, --loss, --optimizer, --lr,
/// ..., --strategy for `devices` ranks; nullopt without --train.
absl::StatusOr<std::optional<ofdriver::TrainOptions>>
trainOptionsFromFlags(int64_t devices);

/// OK unless `options` ask for a mixed precision (--precision bf16) that
/// the backend of `options.device` cannot compute in on this machine.
absl::Status checkPrecision(const ofdriver::TrainOptions &options);

/// With --strategy auto and no --cluster, sets the cluster file the search
/// prices with: this machine's figures for the job's ranks, collective
/// library and --threads, from the cache (ofrt/Calibration.h) or measured
/// now (--recalibrate: always). Under an outside launcher (the ranks would
/// each measure alone), on a device other than the CPU, or when measuring
/// fails, the built-in figures, with a note that says why.
void findClusterFigures(ofdriver::TrainOptions &options, const Job &job);

} // namespace ofrun

#endif // ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H
