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

/// {"memory_bandwidth", "elementwise_bandwidth", "flops", "matmul_flops",
/// "op_rates", "op_overhead"} of the cluster file, each measured by chains of
/// the runtime's own kernels in the engine, one engine per rank, every rank at
/// once:
///   op_overhead            seconds per firing of an add of 16 floats;
///   elementwise_bandwidth  per add size (1Ki to 4Mi floats), the bytes it
///                          moves per second (the firing's overhead taken
///                          off); memory_bandwidth: the largest size's;
///   matmul_flops           per square matmul size (16 to 512), its flops
///                          per second, likewise; flops: the largest's;
///   op_rates               per op whose kernel does more per byte than an
///                          add (gelu, softmax, layer_norm, their
///                          gradients, sparse_softmax_cross_entropy,
///                          sgd_update, adam_update), at 1Ki, 16Ki and 256Ki
///                          floats, the bytes it reads and writes per
///                          second, likewise.
absl::StatusOr<nlohmann::ordered_json>
measureCompute(const CalibrationOptions &options,
               const RankPlacement &placement);

} // namespace ofrt::calibration

#endif // OFRT_LIB_CALIBRATION_COMPUTEFIGURES_H
