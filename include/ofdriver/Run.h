//===- Run.h - Running a plan: the driver library's run half ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Everything a program does with a plan once it has one: where the ranks
// run (threads of this process, processes it launches, or one rank under a
// launcher), the inputs, Ctrl-C, the non-finite checks, checkpoints, the
// progress line, and what rank 0 reports after the run. of-run,
// of-run-plan and the Python package are thin over it; it links the
// runtime only, never MLIR or LLVM, and reads no flag (Options.h).
//
//   absl::StatusOr<Job> job = makeJob(jobOptions);
//   absl::StatusOr<RunResult> result = run(*job, plan, runOptions);
//   report(plan, *result, reportOptions); // what of-run prints
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_RUN_H
#define OFDRIVER_RUN_H

#include "ofdriver/Launch.h"
#include "ofdriver/Options.h"

#include "ofrt/MultiRank.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ofdriver {

/// Where this process stands in the job, from JobOptions and the
/// environment.
struct Job {
  int devices = 1; ///< Ranks that are threads here.
  std::string device = "cpu"; ///< cpu or cuda.
  int processes = 0; ///< Ranks as processes this one launches.
  std::optional<ProcessRank> launched; ///< A launcher started this rank.
  /// Under a launcher: how this rank meets the others.
  std::string storeDir, redis, jobId = "of-run", hostname;

  /// The ranks the plan must have.
  int ranks() const {
    return launched ? launched->world : processes > 0 ? processes : devices;
  }
  /// Whether this process launches the job's processes instead of running.
  bool launches() const { return !launched && processes > 1; }
};

/// Parses "cpu:N" (1 <= N <= 4096) or "cuda:1", --devices' syntax, into
/// `job`'s devices and device.
absl::Status parseDevices(const std::string &devices, Job &job);

/// Checks `options` and reads the launcher's environment.
absl::StatusOr<Job> makeJob(const JobOptions &options);

/// Checks what a run and its report are asked to do before anything
/// compiles or runs (counts, modes, the collective library, and that the
/// files written after the run can be written).
absl::Status checkRunOptions(const RunOptions &run,
                             const ReportOptions &report);

/// Checks that `plan` (read from `model`) has the job's ranks.
absl::Status checkPlanRanks(const ofrt::LoadedPlan &plan, const Job &job,
                            const std::string &model);

struct RunResult {
  /// Outputs, timing of every rank and, when collected, the variables.
  ofrt::MultiRankResult run;
  /// Each scalar output a rank holds whole (the loss), at every step, as
  /// the reporting process saw them.
  std::map<std::string, std::vector<double>> scalars;
  /// 0; 1 after a stop for a value that is not finite (said on stderr);
  /// kInterruptedExit after Ctrl-C.
  int exitCode = 0;
  /// After a stop (Ctrl-C, a value that is not finite): the last step
  /// run; else -1.
  int64_t stoppedAfter = -1;
  /// This process's first rank (rank 0 reports the outputs).
  int rank = 0;
  /// This process watched the loss (prints the summary).
  bool reports = true;
  /// "summary: 10 steps in 1.2 s, ...", printed last by report().
  std::string summary;
};

/// Runs this process's ranks of `plan` for `job` (not a job that
/// launches: see launchProcesses). Prints what a run says as it goes
/// (notes, progress, non-finite findings, checkpoints saved) with
/// programName().
absl::StatusOr<RunResult> run(const Job &job, const ofrt::LoadedPlan &plan,
                              const RunOptions &options);

/// On rank 0: prints the outputs, the timing (and kernel time by op with
/// `profile`), a pipeline's bubbles and writes the trace and the outputs'
/// files; then, on the reporting process, the summary.
absl::Status report(const ofrt::LoadedPlan &plan, const RunResult &result,
                    const ReportOptions &options);

//===----------------------------------------------------------------------===//
// What the tools that run plans do around a run (RunTool.cpp)
//===----------------------------------------------------------------------===//

/// Loads the kernel plugins among `paths` (the others are dialect plugins,
/// which the compiler loads); once per process.
absl::Status loadKernelPlugins(const std::vector<std::string> &paths);

/// What --list-devices prints: every device each built-in backend can use
/// here, one a line, and whether it computes in bf16 and f16.
std::string describeDevices();

/// What the variables hold after a run, by name (logical values); returns
/// an exit code.
using VariablesHook =
    std::function<int(const std::map<std::string, ofrt::TensorData> &)>;

/// Runs `plan` for `job` as of-run and of-run-plan do: a job that launches
/// runs `job.processes` copies of this program with `childArgs` (argv
/// without the program name); otherwise this process's ranks run with
/// `options`, `afterRun` (when set) gets rank 0's variables after the run
/// (a non-zero code it returns ends there), and rank 0 reports as `report`
/// says. Returns the exit code, or the error to print.
absl::StatusOr<int> runAndReport(const Job &job, const ofrt::LoadedPlan &plan,
                                 RunOptions options,
                                 const ReportOptions &report,
                                 const std::vector<std::string> &childArgs,
                                 const VariablesHook &afterRun = nullptr);

} // namespace ofdriver

#endif // OFDRIVER_RUN_H
