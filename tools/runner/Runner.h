//===- Runner.h - Running a plan as the flags say ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What of-run (which compiles models first) and of-run-plan (which only runs
// plans) share once they have a plan: where the ranks run (this process,
// --nproc-per-node processes, or one rank under a launcher), the sessions'
// inputs and options, Ctrl-C, checkpoints, the progress line, and what rank
// 0 prints after the run. Links no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_RUNNER_RUNNER_H
#define ONEFLOW_TOOLS_RUNNER_RUNNER_H

#include "Launch.h"
#include "RunFlags.h"

#include "ofrt/MultiRank.h"

#include <functional>
#include <map>
#include <optional>

namespace ofrun {

/// Where this process stands in the job, from the flags and the
/// environment.
struct Job {
  int devices = 1; ///< --devices KIND:N: ranks that are threads here.
  std::string device = "cpu"; ///< KIND: cpu or cuda.
  int processes = 0; ///< --nproc-per-node.
  std::optional<ProcessRank> launched; ///< A launcher started this rank.

  /// The ranks the plan must have.
  int ranks() const {
    return launched ? launched->world : processes > 0 ? processes : devices;
  }
  /// Whether this process launches the job's processes instead of running.
  bool launches() const { return !launched && processes > 1; }
};

/// Reads and checks --devices, --nproc-per-node, --threads, --timeout-ms,
/// --store-dir/--redis and the launcher's environment.
absl::StatusOr<Job> jobFromFlags();

/// Checks that `plan` (read from `model`) has the job's ranks.
absl::Status checkPlanRanks(const ofrt::LoadedPlan &plan, const Job &job,
                            const std::string &model);

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
