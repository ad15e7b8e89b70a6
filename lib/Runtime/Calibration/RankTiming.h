//===- RankTiming.h - Timing every rank at once -----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The calibration's ranks are threads that start each measurement together;
// ranks that outnumber the cores, each on one thread, take the allowed cores
// in turn, as of-run places them (MultiRank.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_CALIBRATION_RANKTIMING_H
#define OFRT_LIB_CALIBRATION_RANKTIMING_H

#include "ofrt/Calibration.h"

#include <functional>
#include <vector>

namespace ofrt::calibration {

/// Where the ranks run: the core of each rank (empty: wherever the system
/// puts them) and whether its streams share one engine thread.
struct RankPlacement {
  std::vector<int> cores;
  bool oneStreamThread = false;

  /// As of-run places `ranks` ranks of `threads` kernel threads each.
  static RankPlacement of(int ranks, int threads);
  /// Pins the calling thread to rank `rank`'s core, if it has one.
  void pin(int rank) const;
};

/// Best over `repeats` of the slowest rank's seconds for `body(rank)`,
/// every rank a thread, all starting together.
double timeRanks(const RankPlacement &placement, int ranks, int repeats,
                 const std::function<void(int)> &body);

/// Prints a line of the table to `options.report`, if any.
void report(const CalibrationOptions &options, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

} // namespace ofrt::calibration

#endif // OFRT_LIB_CALIBRATION_RANKTIMING_H
