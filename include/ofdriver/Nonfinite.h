//===- Nonfinite.h - A run that notices NaN and infinity --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// --on-nonfinite: what a training run (a plan that updates variables) does
// when a step's loss (any scalar output a rank holds whole), gradients or
// file inputs are not finite. The gradients are checked
// in the plan (oneflow-optimizer's nonfinite option: one find_nonfinite per
// gradient, their maximum fetched as the output "nonfinite" and, in plans
// compiled to skip, the updates' skip flag); the monitor reads that flag
// and the scalar outputs as they arrive, names the step, the tensor and the
// rank, and stops the run (stop), or reports and goes on (skip, warn).
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_NONFINITE_H
#define OFDRIVER_NONFINITE_H

#include "ofrt/Program.h"
#include "ofrt/Session.h"

#include "ofdriver/Options.h"

#include "absl/status/statusor.h"

#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace ofdriver {

/// The output that carries a step's gradient check (the name
/// oneflow-optimizer gives it, lib/Transforms/Optimizer.cpp).
constexpr const char *kNonfiniteOutput = "nonfinite";

/// The option value of oneflow-optimizer's `nonfinite` for `action`: skip
/// for stop and skip, report for warn, off for off.
const char *optimizerNonfiniteMode(NonfiniteAction action);

/// Whether checkpoints may hold values that are not finite (warn, off).
bool savesNonfinite(NonfiniteAction action);

/// Where `value` (a float tensor) first holds a NaN or an infinity, as
/// "a NaN at index 12 (3 values not finite)"; empty when every value is
/// finite or the tensor is not of floats.
std::string findNonfinite(const ofrt::TensorData &value);

/// Watches every output of this process's ranks. Thread-safe.
class NonfiniteMonitor {
public:
  /// `ranks`: the plan's ranks (for the labels of the gradient checks).
  /// `reports`: this process prints (the others stop silently).
  /// `requestStop`: asks every rank of the job to stop after the steps
  /// begun.
  NonfiniteMonitor(const std::vector<ofrt::RankProgram> &ranks,
                   NonfiniteAction action, bool reports,
                   std::function<void()> requestStop);

  void observe(int64_t rank, const std::string &name, int64_t step,
               const ofrt::TensorView &value, bool whole);

  /// Whether the run was stopped for a value that is not finite, and the
  /// message that said why.
  bool stopped() const;
  std::string stopMessage() const;
  /// Why the run stopped, after the message: the action's choices, or
  /// that a variable that is not finite stops even a run that skips.
  std::string stopReason() const;
  /// After the run: one line with the steps that had values that are not
  /// finite, when more than were reported one by one.
  void printSummary() const;

private:
  /// `repairable`: skipping steps leaves the variables finite (a
  /// gradient, an input, the loss); a variable that is not finite stops a
  /// run that skips.
  void report(int64_t step, const std::string &what, bool repairable = true);

  NonfiniteAction action;
  bool reports;
  std::function<void()> requestStop;
  /// find_nonfinite's codes and what they check ("gradient of 'w'").
  std::map<int64_t, std::string> labels;
  /// The plan skips the updates of a step whose gradients are not finite.
  bool skipsUpdates = false;
  /// The scalar outputs checked, each with the one rank it is read from.
  std::map<std::string, int64_t> watched;
  mutable std::mutex mutex;
  /// The last steps found (a step's loss and gradients are one finding).
  std::map<int64_t, std::set<std::string>> recent;
  /// Steps found, the first and the last.
  int64_t count = 0, first = -1, last = -1;
  bool stopRequested = false;
  int64_t stopStep = -1;
  /// The stop was for a variable, which skipping cannot repair.
  bool unrepairable = false;
};

} // namespace ofdriver

#endif // OFDRIVER_NONFINITE_H
