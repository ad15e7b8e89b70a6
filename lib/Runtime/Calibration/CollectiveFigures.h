//===- CollectiveFigures.h - Alpha and beta of the collectives --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_CALIBRATION_COLLECTIVEFIGURES_H
#define OFRT_LIB_CALIBRATION_COLLECTIVEFIGURES_H

#include "RankTiming.h"

#include "absl/status/statusor.h"

#include <nlohmann/json.hpp>

namespace ofrt::calibration {

/// {"collectives": {...}, "mesh_axes": [...]} of the cluster file: the
/// four collectives on all of `options.ranks`, then on each axis of each of
/// `options.meshes`.
absl::StatusOr<nlohmann::ordered_json>
measureCollectives(const CalibrationOptions &options,
                   const RankPlacement &placement);

} // namespace ofrt::calibration

#endif // OFRT_LIB_CALIBRATION_COLLECTIVEFIGURES_H
