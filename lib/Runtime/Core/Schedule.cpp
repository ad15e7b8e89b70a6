//===- Schedule.cpp - The learning-rate schedule of update ops ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Schedule.h"
#include "ofrt/KernelParams.h"

#include <algorithm>
#include <cmath>

using namespace ofrt;

double LearningRateSchedule::at(int64_t step) const {
  if (step < warmupSteps)
    return lr * static_cast<double>(step + 1) /
           static_cast<double>(warmupSteps);
  if (totalSteps <= 0)
    return lr;
  double progress =
      std::min(1.0, static_cast<double>(step - warmupSteps) /
                        static_cast<double>(totalSteps - warmupSteps));
  return minLr + (lr - minLr) * 0.5 * (1.0 + std::cos(M_PI * progress));
}

/// The schedule an update op `Params` declares (none if its attributes do
/// not read; its kernel refuses it then).
template <typename Params>
static std::optional<LearningRateSchedule> declaredSchedule(const OpDesc &op) {
  absl::StatusOr<Params> declared = Params::read(op);
  if (!declared.ok())
    return std::nullopt;
  LearningRateSchedule schedule;
  schedule.lr = declared->lr;
  schedule.minLr = declared->min_lr;
  schedule.warmupSteps = declared->warmup_steps;
  schedule.totalSteps = declared->total_steps;
  return schedule;
}

std::optional<LearningRateSchedule>
LearningRateSchedule::ofPlan(const std::vector<RankProgram> &ranks) {
  for (const RankProgram &rank : ranks)
    for (const ActorSpec &actor : rank.actors) {
      const OpDesc &op = actor.op;
      if (op.type == params::SgdUpdateOp::kOpName)
        return declaredSchedule<params::SgdUpdateOp>(op);
      if (op.type == params::AdamUpdateOp::kOpName)
        return declaredSchedule<params::AdamUpdateOp>(op);
    }
  return std::nullopt;
}
