//===- Nonfinite.cpp - A run that notices NaN and infinity ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Nonfinite.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Tensor.h"

#include "absl/strings/match.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace ofdriver;

namespace {

/// Steps reported one by one; later ones are counted for the summary.
constexpr int64_t kReportedSteps = 5;
/// Steps remembered, so that a step's second finding is not a new step.
constexpr size_t kRecentSteps = 64;

std::string describe(double value) {
  return std::isnan(value) ? "NaN" : value > 0 ? "+infinity" : "-infinity";
}

} // namespace

absl::StatusOr<NonfiniteAction>
ofdriver::parseNonfiniteAction(const std::string &mode) {
  if (mode == "stop")
    return NonfiniteAction::Stop;
  if (mode == "skip")
    return NonfiniteAction::Skip;
  if (mode == "warn")
    return NonfiniteAction::Warn;
  if (mode == "off")
    return NonfiniteAction::Off;
  return absl::InvalidArgumentError("--on-nonfinite '" + mode +
                                    "' is not stop, skip, warn or off");
}

const char *ofdriver::nonfiniteActionName(NonfiniteAction action) {
  switch (action) {
  case NonfiniteAction::Stop:
    return "stop";
  case NonfiniteAction::Skip:
    return "skip";
  case NonfiniteAction::Warn:
    return "warn";
  case NonfiniteAction::Off:
    return "off";
  }
  return "stop";
}

const char *ofdriver::optimizerNonfiniteMode(NonfiniteAction action) {
  switch (action) {
  case NonfiniteAction::Stop:
  case NonfiniteAction::Skip:
    return "skip";
  case NonfiniteAction::Warn:
    return "report";
  case NonfiniteAction::Off:
    break;
  }
  return "off";
}

bool ofdriver::savesNonfinite(NonfiniteAction action) {
  return action == NonfiniteAction::Warn || action == NonfiniteAction::Off;
}

std::string ofdriver::findNonfinite(const ofrt::TensorData &value) {
  ofrt::DType dtype = value.desc.dtype;
  if (dtype != ofrt::DType::F32 && dtype != ofrt::DType::F64 &&
      dtype != ofrt::DType::BF16 && dtype != ofrt::DType::F16)
    return "";
  int64_t n = value.desc.numel(), count = 0, first = -1;
  double firstValue = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = ofrt::loadElement(dtype, value.bytes.data(), i);
    if (std::isfinite(v))
      continue;
    if (count++ == 0) {
      first = i;
      firstValue = v;
    }
  }
  if (count == 0)
    return "";
  return (std::isnan(firstValue) ? "a NaN" : "an infinity") +
         std::string(" at index ") + std::to_string(first) + " (" +
         std::to_string(count) + " of " + std::to_string(n) +
         " values not finite)";
}

NonfiniteMonitor::NonfiniteMonitor(const std::vector<ofrt::RankProgram> &ranks,
                                   NonfiniteAction action, bool reports,
                                   std::function<void()> requestStop)
    : action(action), reports(reports), requestStop(std::move(requestStop)) {
  for (const ofrt::RankProgram &program : ranks)
    for (const ofrt::ActorSpec &actor : program.actors) {
      const ofrt::OpDesc &op = actor.op;
      if (op.type == "oneflow.find_nonfinite") {
        auto codes = op.get<std::vector<int64_t>>("codes", {});
        auto names = op.get<std::vector<std::string>>("labels", {});
        for (size_t i = 0; i < codes.size(); ++i)
          labels.emplace(codes[i], i < names.size() ? names[i] : op.name);
      }
      if (op.role == ofrt::OpRole::Output &&
          ofrt::userName(op) == kNonfiniteOutput)
        skipsUpdates |= op.get<bool>("skips_updates", false);
    }
}

void NonfiniteMonitor::observe(int64_t rank, const std::string &name,
                               int64_t step, const ofrt::TensorView &value,
                               bool whole) {
  if (action == NonfiniteAction::Off || !whole || value.desc.numel() != 1)
    return;
  ofrt::DType dtype = value.desc.dtype;
  if (dtype != ofrt::DType::F32 && dtype != ofrt::DType::F64 &&
      dtype != ofrt::DType::BF16 && dtype != ofrt::DType::F16)
    return;
  double v = ofrt::loadElement(dtype, value.data, 0);
  if (name == kNonfiniteOutput) {
    if (v == 0)
      return;
    auto label = labels.find(static_cast<int64_t>(v));
    std::string what = label == labels.end()
                           ? "check " + std::to_string(int64_t(v))
                           : label->second;
    // A variable is checked as the step begins: an earlier update made it
    // so, and skipping steps cannot repair it.
    bool variable = absl::StartsWith(what, "variable '");
    report(step,
           "the " + what +
               (variable ? " holds a NaN or an infinity as the step begins "
                           "(an earlier step's update made it so)"
                         : " holds a NaN or an infinity (the first gradient "
                           "that does)") +
               (skipsUpdates ? "; the step updated no variable"
                : action == NonfiniteAction::Warn
                    ? ""
                    : "; the plan does not skip such steps (it was "
                      "compiled with --on-nonfinite warn or off), the "
                      "variables took it in"),
           /*repairable=*/!variable);
    return;
  }
  // A loss every rank holds is read from one: the first to report it
  // (each process of a job reads its own).
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (watched.try_emplace(name, rank).first->second != rank)
      return;
  }
  if (!std::isfinite(v))
    report(step, "output '" + name + "' is " + describe(v) + " on rank " +
                     std::to_string(rank));
}

void NonfiniteMonitor::report(int64_t step, const std::string &what,
                              bool repairable) {
  bool stop = false;
  {
    std::lock_guard<std::mutex> lock(mutex);
    // One finding per step (its loss and its gradients); steps complete
    // nearly in order, so only recent ones are kept.
    // A variable that is not finite stops a run that skips, though its
    // step was reported already (for its loss).
    bool stops = action == NonfiniteAction::Stop ||
                 (action == NonfiniteAction::Skip && !repairable);
    auto [it, inserted] = recent.try_emplace(step);
    it->second.insert(what);
    if (!inserted && !(stops && !stopRequested))
      return;
    if (inserted) {
      while (recent.size() > kRecentSteps)
        recent.erase(recent.begin());
      ++count;
      first = count == 1 ? step : std::min(first, step);
      last = std::max(last, step);
    }
    if (stops) {
      if (stopRequested)
        return;
      stopRequested = true;
      stopStep = step;
      stop = true;
      unrepairable = !repairable;
    } else if (reports && count <= kReportedSteps) {
      std::fprintf(stderr, "%s: warning: step %lld: %s; %s\n", programName(),
                   static_cast<long long>(step), what.c_str(),
                   action == NonfiniteAction::Skip
                       ? "going on without it (--on-nonfinite skip)"
                       : "training goes on with it (--on-nonfinite warn)");
      if (count == kReportedSteps)
        std::fprintf(stderr,
                     "%s: warning: further steps with values that are not "
                     "finite are counted, not listed\n",
                     programName());
    }
  }
  if (stop && requestStop)
    requestStop();
}

bool NonfiniteMonitor::stopped() const {
  std::lock_guard<std::mutex> lock(mutex);
  return stopRequested;
}

std::string NonfiniteMonitor::stopMessage() const {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = recent.find(stopStep);
  std::string message = "step " + std::to_string(stopStep) + ": ";
  if (it == recent.end())
    return message + "a value is not finite";
  // In a fixed order, whichever arrived first.
  for (const std::string &what : it->second)
    message += (&what == &*it->second.begin() ? "" : "; ") + what;
  return message;
}

std::string NonfiniteMonitor::stopReason() const {
  std::lock_guard<std::mutex> lock(mutex);
  if (unrepairable)
    return "--on-nonfinite skip cannot repair a variable; resume from an "
           "earlier checkpoint, with a smaller learning rate";
  return "--on-nonfinite stop; skip goes on without such steps, warn trains "
         "on with them";
}

void NonfiniteMonitor::printSummary() const {
  std::lock_guard<std::mutex> lock(mutex);
  if (!reports || action == NonfiniteAction::Stop || count == 0)
    return;
  std::fprintf(stderr,
               "%s: warning: %lld step(s) had values that are not finite "
               "(first: step %lld, last: step %lld)\n",
               programName(), static_cast<long long>(count),
               static_cast<long long>(first), static_cast<long long>(last));
}
