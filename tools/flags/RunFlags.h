//===- RunFlags.h - The flags of every program that runs plans --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// of-run and of-run-plan share these flags (defined in RunFlags.cpp), read
// into the driver library's options (ofdriver/Options.h); the driver does
// everything after a plan exists (ofdriver/Run.h). Nothing here links MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_FLAGS_RUNFLAGS_H
#define ONEFLOW_TOOLS_FLAGS_RUNFLAGS_H

#include "ToolFlags.h"

#include "ofdriver/Run.h"

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"

#include <string>
#include <vector>

ABSL_DECLARE_FLAG(int64_t, steps);
ABSL_DECLARE_FLAG(int, threads);
ABSL_DECLARE_FLAG(std::string, devices);
ABSL_DECLARE_FLAG(bool, allow_tf32);
ABSL_DECLARE_FLAG(bool, list_devices);
ABSL_DECLARE_FLAG(int, nproc_per_node);
ABSL_DECLARE_FLAG(std::string, store_dir);
ABSL_DECLARE_FLAG(std::string, redis);
ABSL_DECLARE_FLAG(std::string, job_id);
ABSL_DECLARE_FLAG(std::string, hostname);
ABSL_DECLARE_FLAG(std::string, collectives);
ABSL_DECLARE_FLAG(std::string, stream_threads);
ABSL_DECLARE_FLAG(int64_t, timeout_ms);
ABSL_DECLARE_FLAG(std::vector<std::string>, input);
ABSL_DECLARE_FLAG(uint64_t, seed);
ABSL_DECLARE_FLAG(std::string, trace);
ABSL_DECLARE_FLAG(int, print_limit);
ABSL_DECLARE_FLAG(std::string, save_outputs);
ABSL_DECLARE_FLAG(std::string, metrics);
ABSL_DECLARE_FLAG(std::string, progress);
ABSL_DECLARE_FLAG(bool, profile);
ABSL_DECLARE_FLAG(int64_t, log_every);
ABSL_DECLARE_FLAG(std::string, resume);
ABSL_DECLARE_FLAG(std::string, on_nonfinite);

namespace ofrun {

using ofdriver::programName;
using ofdriver::Job;

/// The job from --devices, --nproc-per-node, --store-dir/--redis and the
/// launcher's environment; checks the run and report flags too, before
/// anything compiles.
absl::StatusOr<Job> jobFromFlags();

using ofdriver::checkPlanRanks;

using ofdriver::VariablesHook;

/// ofdriver::runAndReport with the options the flags give; prints the
/// error, if any. Returns the exit code.
int runPlan(const Job &job, const ofrt::LoadedPlan &plan,
            const std::vector<std::string> &childArgs,
            const VariablesHook &afterRun = nullptr);


/// The --help groups of the flags of-run and of-run-plan share (of-run
/// adds its Training group).
std::vector<oftools::FlagGroup> runFlagGroups();

/// Sets the program's name and parses the flags (ToolFlags.h; argv as
/// normalized is kept in `normalized` for launched copies); returns the
/// positional arguments, the program first.
std::vector<std::string> parseFlags(int argc, char **argv,
                                    const oftools::ToolInfo &tool,
                                    std::vector<std::string> &normalized);

/// Prints "<program>: error: <message>" and returns 1.
int fail(const std::string &message);

/// The driver library's options from the flags (ofdriver/Options.h);
/// checked by ofdriver::makeJob and ofdriver::checkRunOptions.
ofdriver::JobOptions jobOptionsFromFlags();
absl::StatusOr<ofdriver::RunOptions> runOptionsFromFlags();
ofdriver::ReportOptions reportOptionsFromFlags();

} // namespace ofrun

#endif // ONEFLOW_TOOLS_FLAGS_RUNFLAGS_H
