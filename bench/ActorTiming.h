//===- ActorTiming.h - One actor's time per firing ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Runs a one-rank program for some steps and returns the median time of
// one actor's firings after the first (from compute() to the completion the
// engine is told of), the figure the kernel benchmarks compare with a
// direct library call. Exits with the error if the program cannot run.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_BENCH_ACTORTIMING_H
#define ONEFLOW_BENCH_ACTORTIMING_H

#include "ofrt/Session.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace bench {

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double medianFiringMs(ofrt::RankProgram program,
                             const ofrt::SessionOptions &options, int64_t actor,
                             int64_t steps) {
  auto session = ofrt::Session::create(std::move(program), options);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    std::exit(1);
  }
  auto result = (*session)->run({steps, true});
  if (!result.ok()) {
    std::fprintf(stderr, "%s\n", result.status().ToString().c_str());
    std::exit(1);
  }
  std::vector<double> ms;
  for (const ofrt::Firing &f : result->firings)
    if (f.actor == actor && f.step > 0)
      ms.push_back((f.endUs - f.startUs) / 1e3);
  return median(ms);
}

} // namespace bench

#endif // ONEFLOW_BENCH_ACTORTIMING_H
