//===- Progress.h - Per-step progress and metrics of a run ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Watches the scalar outputs rank 0 holds whole (a loss, an accuracy) at
// every step: a progress line on stderr (step, values, samples/s, time
// left) and, when asked, a CSV file with one row per step.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_PROGRESS_H
#define OFDRIVER_PROGRESS_H

#include "ofrt/Program.h"
#include "ofrt/Schedule.h"
#include "ofrt/Session.h"

#include "ofdriver/Options.h"

#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ofdriver {

class Progress {
public:
  /// Watches the scalar outputs that some rank of `ranks` (the plan's
  /// ranks this process runs) holds whole, each from the first such rank;
  /// `steps` is the planned number of steps (-1: unknown). `csvPath`
  /// empty: no CSV. `live`: redraw a progress line on stderr; else, with
  /// `logEvery` > 0, print a plain line every that many steps.
  static absl::StatusOr<std::unique_ptr<Progress>>
  create(const std::vector<ofrt::RankProgram> &ranks, int64_t steps,
         const std::string &csvPath, bool live, int64_t logEvery = 0);
  /// The scalar outputs some rank holds whole, each with the first rank
  /// that does.
  static std::map<std::string, int64_t>
  watchedOutputs(const std::vector<ofrt::RankProgram> &ranks);
  /// The rank whose process reports progress and metrics in a job of
  /// several processes: the first that holds a watched output (0: none).
  static int64_t reportingRank(const std::vector<ofrt::RankProgram> &ranks);
  ~Progress();

  /// A resumed run's first step: outputs arrive from it on, and the
  /// summary counts the steps of this run.
  void setFirstStep(int64_t step);
  /// Called with each step's watched values as they are all in.
  void setStepCallback(StepCallback callback) { onStep = std::move(callback); }
  /// Each watched output's value at every step done so far, in order.
  std::map<std::string, std::vector<double>> history() const;
  /// The observer to give the sessions.
  ofrt::OutputObserver observer();
  /// Ends the progress line (before the run's other output).
  void endLine();
  /// The summary: steps, time, samples/s and the first and last value of
  /// each watched output ("summary: 10 steps in 1.20 s, ...").
  std::string summary();

private:
  Progress() = default;
  void record(const std::string &name, int64_t step, double value);
  /// "step 5/10 | loss 2.3 | lr 0.01 | 900 samples/s | 1.2 s, 1.2 s left".
  std::string line(int64_t step, const std::map<std::string, double> &values,
                   double seconds, double rate) const;

  std::vector<std::string> names; ///< Watched outputs, sorted.
  std::map<std::string, int64_t> watchedRank; ///< The rank each is read on.
  int64_t steps = -1, samplesPerStep = 1, firstStep = 0, logEvery = 0;
  bool live = false;
  std::optional<ofrt::LearningRateSchedule> schedule;
  std::FILE *csv = nullptr;
  std::chrono::steady_clock::time_point start;
  std::optional<std::chrono::steady_clock::time_point> end; ///< endLine's.
  mutable std::mutex mutex;
  std::map<int64_t, std::map<std::string, double>> pending;
  std::map<std::string, double> first, last;
  std::map<std::string, std::vector<double>> histories;
  StepCallback onStep;
  int64_t done = -1; ///< The last step every watched value arrived for.
  int64_t seen = -1; ///< The last step any output reached.
  double drawn = -1; ///< Seconds into the run of the last redraw.
};

} // namespace ofdriver

#endif // OFDRIVER_PROGRESS_H
