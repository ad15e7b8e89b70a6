//===- RankTiming.cpp - Timing every rank at once -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "RankTiming.h"

#include "ofrt/Device.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <thread>

using namespace ofrt;
using namespace ofrt::calibration;

RankPlacement RankPlacement::of(int ranks, int threads) {
  RankPlacement placement;
  std::vector<int> cores = allowedCores();
  bool crowded =
      int64_t(ranks) * std::max(1, threads) > static_cast<int64_t>(cores.size());
  if (crowded && threads <= 1 && !cores.empty())
    placement.cores = cores;
  placement.oneStreamThread = crowded;
  return placement;
}

void RankPlacement::pin(int rank) const {
  if (cores.empty())
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cores[rank % cores.size()], &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

double calibration::timeRanks(const RankPlacement &placement, int ranks,
                              int repeats,
                              const std::function<void(int)> &body) {
  using Clock = std::chrono::steady_clock;
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    std::vector<Clock::time_point> ends(ranks);
    std::atomic<int> arrived{0};
    Clock::time_point start;
    std::vector<std::thread> threads;
    for (int i = 0; i < ranks; ++i)
      threads.emplace_back([&, i] {
        placement.pin(i);
        // Start together: the timing is of every rank at once, from when
        // the last one arrived to when the last one ended, so that ranks
        // that share a core wait for it inside the timing.
        if (arrived.fetch_add(1) + 1 == ranks)
          start = Clock::now();
        while (arrived.load() < ranks)
          std::this_thread::yield();
        body(i);
        ends[i] = Clock::now();
      });
    for (std::thread &thread : threads)
      thread.join();
    best = std::min(best, std::chrono::duration<double>(
                              *std::max_element(ends.begin(), ends.end()) -
                              start)
                              .count());
  }
  return best;
}

void calibration::report(const CalibrationOptions &options, const char *format,
                         ...) {
  if (!options.report)
    return;
  va_list args;
  va_start(args, format);
  std::vfprintf(options.report, format, args);
  va_end(args);
}
