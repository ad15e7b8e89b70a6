//===- Schedule.h - The learning-rate schedule of update ops ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every optimizer update op carries its schedule (lr, warmup_steps,
// total_steps, min_lr): the kernels apply it, and the runner shows the rate
// of the current step.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_SCHEDULE_H
#define OFRT_SCHEDULE_H

#include "ofrt/Program.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ofrt {

struct LearningRateSchedule {
  double lr = 0, minLr = 0;
  int64_t warmupSteps = 0, totalSteps = 0;

  /// The learning rate at `step` (from 0): linear warm-up, then cosine
  /// decay to `minLr` at `totalSteps` when that is set.
  double at(int64_t step) const;

  /// The schedule of the first optimizer update in `ranks`; nullopt when
  /// none updates (not a training step).
  static std::optional<LearningRateSchedule>
  ofPlan(const std::vector<RankProgram> &ranks);
};

} // namespace ofrt

#endif // OFRT_SCHEDULE_H
