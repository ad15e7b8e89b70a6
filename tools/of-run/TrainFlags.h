//===- TrainFlags.h - of-run's training flags -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H
#define ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H

#include "Runner.h"
#include "ofdriver/Compile.h"

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"

#include <optional>

ABSL_DECLARE_FLAG(bool, recalibrate);

namespace ofrun {

/// The --help group of the training flags (TrainingOptions.def's, with
/// --train, --labels, --mesh and --recalibrate).
oftools::FlagGroup trainingFlagGroup();

/// The training passes' options from --train, --loss, --optimizer, --lr,
/// ..., --strategy for `devices` ranks; nullopt without --train.
absl::StatusOr<std::optional<ofdriver::TrainOptions>>
trainOptionsFromFlags(int64_t devices);

} // namespace ofrun

#endif // ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H
