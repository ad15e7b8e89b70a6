//===- Watchdog.h - Tests that cannot hang ----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_WATCHDOG_H
#define ONEFLOW_UNITTESTS_RUNTIME_WATCHDOG_H

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>

namespace oftest {

/// Runs `test`, ending the process if it has not finished within `limit`
/// (a hung collective would otherwise hang the whole test run).
inline void withWatchdog(const std::function<void()> &test,
                         std::chrono::seconds limit = std::chrono::seconds(20)) {
  auto done = std::async(std::launch::async, test);
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "watchdog: test hung for %llds\n",
                 static_cast<long long>(limit.count()));
    std::_Exit(1);
  }
  done.get();
}

} // namespace oftest

#endif // ONEFLOW_UNITTESTS_RUNTIME_WATCHDOG_H
