//===- ComputeFigures.h - What kernels cost in the engine -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_CALIBRATION_COMPUTEFIGURES_H
#define OFRT_LIB_CALIBRATION_COMPUTEFIGURES_H

#include "RankTiming.h"

#include "absl/status/statusor.h"

#include <nlohmann/json.hpp>

namespace ofrt::calibration {

/// {"op_overhead", "memory_bandwidth", "flops", "matmul_flops"} of the
/// cluster file, each measured by chains of the runtime's own kernels in
/// the engine, one engine per rank, every rank at once:
///   op_overhead       seconds per firing of a ReLU of 16 floats;
///   memory_bandwidth  bytes an add of 1 MiB operands moves per second;
///   matmul_flops      per square matmul size, its flops per second (the
///                     firing's overhead taken off); flops: the largest.
absl::StatusOr<nlohmann::ordered_json>
measureCompute(const CalibrationOptions &options,
               const RankPlacement &placement);

} // namespace ofrt::calibration

#endif // OFRT_LIB_CALIBRATION_COMPUTEFIGURES_H
