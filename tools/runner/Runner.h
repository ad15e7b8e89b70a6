//===- Runner.h - Running a plan as the flags say ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What of-run (which compiles models first) and of-run-plan (which only runs
// plans) share once they have a plan: the flags read into the driver
// library's options, and its run (ofdriver/Run.h). Links no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_RUNNER_RUNNER_H
#define ONEFLOW_TOOLS_RUNNER_RUNNER_H

#include "RunFlags.h"

#include "ofdriver/Run.h"

#include <functional>
#include <map>

namespace ofrun {

using ofdriver::Job;

/// The job from --devices, --nproc-per-node, --store-dir/--redis and the
/// launcher's environment; checks the run and report flags too, before
/// anything compiles.
absl::StatusOr<Job> jobFromFlags();

using ofdriver::checkPlanRanks;

/// What the variables hold after a run, by name (logical values).
using VariablesHook =
    std::function<int(const std::map<std::string, ofrt::TensorData> &)>;

/// Runs `plan` for `job`: launches --nproc-per-node copies of this program
/// with `childArgs` (argv without the program name), or runs this process's
/// ranks and, on rank 0, prints the outputs, the timing, the trace and the
/// checkpoint saved. `afterRun`, when set, gets every variable's value after
/// the run (on rank 0). Returns the exit code.
int runPlan(const Job &job, const ofrt::LoadedPlan &plan,
            const std::vector<std::string> &childArgs,
            const VariablesHook &afterRun = nullptr);

} // namespace ofrun

#endif // ONEFLOW_TOOLS_RUNNER_RUNNER_H
