//===- TrainFlags.h - of-run's training flags -------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H
#define ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H

#include "Train.h"

#include "absl/status/statusor.h"

#include <optional>

namespace ofrun {

/// The training passes' options from --train, --loss, --optimizer, --lr,
/// ..., --strategy for `devices` ranks; nullopt without --train.
absl::StatusOr<std::optional<oftools::TrainOptions>>
trainOptionsFromFlags(int64_t devices);

/// OK unless `options` ask for a mixed precision (--precision bf16) that
/// the backend of `options.device` cannot compute in on this machine.
absl::Status checkPrecision(const oftools::TrainOptions &options);

} // namespace ofrun

#endif // ONEFLOW_TOOLS_OFRUN_TRAINFLAGS_H
