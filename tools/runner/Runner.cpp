//===- Runner.cpp - Running a plan as the flags say -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "absl/flags/flag.h"

using namespace ofrun;

absl::StatusOr<Job> ofrun::jobFromFlags() {
  absl::StatusOr<Job> job = ofdriver::makeJob(jobOptionsFromFlags());
  if (!job.ok())
    return job.status();
  absl::StatusOr<ofdriver::RunOptions> run = runOptionsFromFlags();
  if (!run.ok())
    return run.status();
  if (absl::Status status =
          ofdriver::checkRunOptions(*run, reportOptionsFromFlags());
      !status.ok())
    return status;
  return job;
}

int ofrun::runPlan(const Job &job, const ofrt::LoadedPlan &plan,
                   const std::vector<std::string> &childArgs,
                   const VariablesHook &afterRun) {
  if (job.launches())
    return ofdriver::launchProcesses(
        job.processes, childArgs,
        std::chrono::milliseconds(absl::GetFlag(FLAGS_timeout_ms)));
  absl::StatusOr<ofdriver::RunOptions> options = runOptionsFromFlags();
  if (!options.ok())
    return fail(std::string(options.status().message()));
  if (options->steps < 1)
    return fail("--steps must be at least 1");
  if (absl::Status status = loadKernelPlugins(); !status.ok())
    return fail(std::string(status.message()));
  options->collectVariables = afterRun != nullptr;
  absl::StatusOr<ofdriver::RunResult> result =
      ofdriver::run(job, plan, *options);
  if (!result.ok())
    return fail(std::string(result.status().message()));
  if (result->rank == 0 && afterRun)
    if (int rc = afterRun(result->run.variables); rc != 0)
      return rc;
  if (absl::Status status =
          ofdriver::report(plan, *result, reportOptionsFromFlags());
      !status.ok())
    return fail(std::string(status.message()));
  return result->exitCode;
}
