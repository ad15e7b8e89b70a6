//===- Report.cpp - What rank 0 prints after a run ------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Run.h"

#include "ofdriver/Nonfinite.h"

#include "ofrt/Npy.h"
#include "ofrt/Engine.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>

using namespace ofdriver;

namespace {

void printOutput(const std::string &name, const ofrt::TensorData &t,
                 int limit) {
  if (t.bytes.empty() && t.desc.numel() != 0) {
    std::printf("%s: (never computed)\n", name.c_str());
    return;
  }
  int64_t n = t.desc.numel();
  if (limit == 0) { // Only what it is.
    std::printf("%s: %s\n", name.c_str(), t.desc.str().c_str());
    return;
  }
  std::printf("%s: %s = ", name.c_str(), t.desc.str().c_str());
  if (t.desc.rank() > 0)
    std::printf("[");
  for (int64_t i = 0; i < std::min<int64_t>(n, limit); ++i)
    std::printf("%s%.6g", i ? ", " : "", ofrt::loadElement(t.desc.dtype, t.bytes.data(), i));
  if (n > limit)
    std::printf(", ... (%" PRId64 " values)", n);
  if (t.desc.rank() > 0)
    std::printf("]");
  std::printf("\n");
}

void printTiming(const ofrt::RankProgram &program,
                 const ofrt::RunResult &result,
                 const std::vector<ofrt::RunResult> &ranks, bool profile) {
  std::printf("ran %" PRId64 " steps in %.3f s: %.3f ms/step, %.1f steps/s\n",
              result.steps, result.seconds,
              result.steps ? 1e3 * result.seconds / result.steps : 0.0,
              result.seconds > 0 ? result.steps / result.seconds : 0.0);
  if (ranks.size() > 1) {
    std::printf("%zu ranks, ms/step:", ranks.size());
    for (size_t r = 0; r < ranks.size(); ++r)
      std::printf(" %.3f", ranks[r].steps
                                    ? 1e3 * ranks[r].seconds / ranks[r].steps
                                    : 0.0);
    std::printf("\n");
  }
  // Only an asynchronous device (a GPU) has any: firings whose end the host
  // had to see before another actor could go on.
  if (result.hostWaits > 0 && result.steps > 0)
    std::printf("host waits: %.1f per step\n",
                double(result.hostWaits) / result.steps);
  if (result.firings.empty())
    return;
  // Steady state: from the end of step 0 to the end of the last step, so
  // that one-time costs (thread start-up, JIT) are left out.
  std::vector<double> stepEnd(result.steps, 0);
  for (const ofrt::Firing &f : result.firings)
    if (f.step < result.steps)
      stepEnd[f.step] = std::max(stepEnd[f.step], f.endUs);
  if (result.steps > 1)
    std::printf("steady state (steps 1-%" PRId64 "): %.3f ms/step\n",
                result.steps - 1,
                (stepEnd.back() - stepEnd.front()) / 1e3 / (result.steps - 1));
  if (!profile)
    return;
  std::map<int64_t, std::string> types;
  for (const ofrt::ActorSpec &actor : program.actors)
    types[actor.id] = actor.op.type;
  std::map<std::string, std::pair<double, int64_t>> byType;
  double total = 0;
  for (const ofrt::Firing &f : result.firings) {
    auto &entry = byType[types[f.actor]];
    entry.first += f.endUs - f.startUs;
    entry.second += 1;
    total += f.endUs - f.startUs;
  }
  std::vector<std::pair<std::string, std::pair<double, int64_t>>> rows(
      byType.begin(), byType.end());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.first > b.second.first;
  });
  std::printf("kernel time by op (%.3f ms in all):\n", total / 1e3);
  for (const auto &[type, entry] : rows)
    std::printf("  %-36s %10.3f ms  %5.1f%%  %" PRId64 " firings\n",
                type.c_str(), entry.first / 1e3,
                total > 0 ? 100 * entry.first / total : 0.0, entry.second);
}

/// For a pipeline (transfers that run per micro-batch): the share of each
/// steady-state step that each rank's compute stream is idle. A rank's
/// step lasts from the end of its previous step to the end of its own (its
/// last firing; the next step's inputs are read while a step runs, so a
/// step's first-to-last span overlaps its predecessor's). Each rank's own
/// clock is enough, so ranks in other processes (which report their steps'
/// loads to rank 0) count too.
void printBubbles(const std::vector<ofrt::RankProgram> &programs,
                  const std::vector<ofrt::RunResult> &ranks) {
  bool pipelined = false;
  for (const ofrt::RankProgram &program : programs)
    for (const ofrt::ActorSpec &actor : program.actors)
      pipelined |=
          actor.op.role == ofrt::OpRole::Transfer && actor.firingsPerStep > 1;
  if (!pipelined || ranks.size() != programs.size())
    return;
  size_t steps = ranks[0].stepLoads.size();
  for (const ofrt::RunResult &rank : ranks)
    steps = std::min(steps, rank.stepLoads.size());
  if (steps < 3)
    return;
  std::printf("pipeline bubble (idle share of the compute stream, steps "
              "1-%zu), per rank:",
              steps - 2);
  for (const ofrt::RunResult &rank : ranks) {
    double idle = 0;
    for (size_t s = 1; s + 1 < steps; ++s) {
      double span = rank.stepLoads[s].endUs - rank.stepLoads[s - 1].endUs;
      idle += 1 - rank.stepLoads[s].computeUs / std::max(span, 1e-9);
    }
    std::printf(" %.3f", idle / (steps - 2));
  }
  std::printf("\n");
}

} // namespace

absl::Status ofdriver::report(const ofrt::LoadedPlan &plan,
                              const RunResult &result,
                              const ReportOptions &options) {
  if (result.rank != 0) {
    if (result.reports)
      std::printf("%s\n", result.summary.c_str());
    return absl::OkStatus();
  }
  const ofrt::MultiRankResult &run = result.run;
  for (const auto &[name, value] : run.outputs)
    if (name != kNonfiniteOutput)
      printOutput(name, value, options.printLimit);
  if (!options.saveOutputs.empty())
    for (const auto &[name, value] : run.outputs)
      if (absl::Status status =
              ofrt::writeNpy(options.saveOutputs + "/" + name + ".npy", value);
          !status.ok())
        return status;
  printTiming(plan.ranks[0], run.ranks[0], run.ranks, options.profile);
  printBubbles(plan.ranks, run.ranks);
  if (!options.trace.empty()) {
    // Every rank: this process's, and under a launcher the others' too
    // (MultiRankOptions::reportFirings).
    std::vector<ofrt::RankProgram> programs;
    std::vector<std::vector<ofrt::Firing>> firings;
    size_t count = 0;
    for (size_t r = 0; r < run.ranks.size(); ++r) {
      if (run.ranks[r].firings.empty() && r != 0)
        continue;
      programs.push_back(plan.ranks[r]);
      firings.push_back(run.ranks[r].firings);
      count += firings.back().size();
    }
    if (absl::Status status =
            ofrt::writeChromeTrace(programs, firings, options.trace);
        !status.ok())
      return status;
    std::printf("trace: %s (%zu firings)\n", options.trace.c_str(), count);
  }
  if (result.reports)
    std::printf("%s\n", result.summary.c_str());
  return absl::OkStatus();
}
