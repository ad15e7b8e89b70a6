//===- Schedule.cpp - The learning-rate schedule of update ops ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Schedule.h"

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

std::optional<LearningRateSchedule>
LearningRateSchedule::ofPlan(const std::vector<RankProgram> &ranks) {
  for (const RankProgram &rank : ranks)
    for (const ActorSpec &actor : rank.actors) {
      const OpDesc &op = actor.op;
      if (op.role != OpRole::Optimizer)
        continue;
      LearningRateSchedule schedule;
      schedule.lr = op.get<double>("lr", 0.0);
      schedule.minLr = op.get<double>("min_lr", 0.0);
      schedule.warmupSteps = op.get<int64_t>("warmup_steps", 0);
      schedule.totalSteps = op.get<int64_t>("total_steps", 0);
      return schedule;
    }
  return std::nullopt;
}
