//===- of-run-plan.cpp - Run compiled plans, without the compiler ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   of-run-plan model.plan [--steps N] [--input NAME=SOURCE]... [flags]
//   of-run-plan model.plan --check
//
// Runs a plan compiled elsewhere (`of-run MODEL --emit_plan P`, or
// `of-translate --export-plan`) with the flags of of-run that concern
// running: ranks in this process or several, launchers, inputs,
// checkpoints, traces. It links no MLIR and no LLVM, so a node that only
// runs plans needs the runtime's libraries alone.
//
//===----------------------------------------------------------------------===//

#include "RunFlags.h"

#include "ofrt/Plan.h"

#include "absl/flags/flag.h"
#include "absl/strings/match.h"

#include <cstdio>

ABSL_FLAG(bool, check, false,
          "Only load the plan and check it (version, references, every "
          "rank's program), print what it holds, and exit: nothing runs "
          "and no device is opened (scripts/bundle-runtime.sh checks the "
          "plans it bundles so)");

using ofrun::fail;

int main(int argc, char **argv) {
  std::vector<std::string> normalized;
  std::vector<oftools::FlagGroup> groups = ofrun::runFlagGroups();
  groups.insert(groups.begin(), {"Plan", {"check"}});
  std::vector<std::string> args = ofrun::parseFlags(
      argc, argv,
      {"of-run-plan",
       "run a compiled OneFlow plan (.plan, binary, or .plantxt, text); "
       "links no compiler",
       "of-run-plan PLAN [flags]", groups},
      normalized);
  if (args.size() != 2)
    return fail("expected exactly one plan file (.plan or .plantxt); see "
                "--help");
  std::string model = args[1];
  if (absl::EndsWith(model, ".mlir") || absl::EndsWith(model, ".onnx"))
    return fail("'" + model +
                "' is a model, not a plan: of-run-plan runs compiled plans "
                "(compile with of-run MODEL --emit-plan PLAN, or of-run "
                "runs the model itself)");
  if (absl::GetFlag(FLAGS_check)) {
    absl::StatusOr<ofrt::LoadedPlan> plan = ofrt::loadPlanFile(model);
    if (!plan.ok())
      return fail(std::string(plan.status().message()));
    size_t actors = 0;
    for (const ofrt::RankProgram &rank : plan->ranks)
      actors += rank.actors.size();
    std::printf("plan '%s' loads: %lld rank(s), %zu actors\n", model.c_str(),
                static_cast<long long>(plan->worldSize), actors);
    return 0;
  }
  absl::StatusOr<ofrun::Job> job = ofrun::jobFromFlags();
  if (!job.ok())
    return fail(std::string(job.status().message()));
  absl::StatusOr<ofrt::LoadedPlan> plan = ofrt::loadPlanFile(model);
  if (!plan.ok())
    return fail(std::string(plan.status().message()));
  if (absl::Status status = ofrun::checkPlanRanks(*plan, *job, model);
      !status.ok())
    return fail(std::string(status.message()));
  std::vector<std::string> rest(normalized.begin() + 1, normalized.end());
  return ofrun::runPlan(*job, *plan, rest);
}
