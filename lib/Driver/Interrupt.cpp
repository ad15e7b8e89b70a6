//===- Interrupt.cpp - Ctrl-C: every rank stops at one step ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Interrupt.h"
#include "ofdriver/Options.h"

#include "absl/strings/numbers.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <string>

using namespace ofdriver;

namespace {

std::atomic<int> signalsSeen{0};
std::atomic<int64_t> firstSignalNs{0};

int64_t monotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now); // Async-signal-safe.
  return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

extern "C" void onStopSignal(int sig) {
  if (isSecondInterrupt(sig))
    exitOnSecondInterrupt();
}

// Keys under the job's store.
const char *kRequest = "stop/request";
std::string frontierKey(int rank) {
  return "stop/frontier/" + std::to_string(rank);
}

} // namespace

bool ofdriver::isSecondInterrupt(int sig) {
  if (signalsSeen.fetch_add(1) == 0) {
    firstSignalNs = monotonicNs();
    return false;
  }
  return sig == SIGINT && monotonicNs() - firstSignalNs >= 200000000;
}

void ofdriver::exitOnSecondInterrupt() {
  static const char message[] =
      "\ninterrupted again: exiting now, without a checkpoint\n";
  ssize_t ignored = write(2, message, sizeof(message) - 1);
  (void)ignored;
  _exit(kInterruptedExit);
}

StopWatcher::StopWatcher(ofrt::StepGate &gate,
                         std::shared_ptr<ofrt::Store> store, int rank,
                         int world, std::chrono::milliseconds timeout)
    : gate(gate), store(world > 1 ? std::move(store) : nullptr), rank(rank),
      world(world), timeout(timeout) {
  signalsSeen = 0;
  previousInt = std::signal(SIGINT, onStopSignal);
  previousTerm = std::signal(SIGTERM, onStopSignal);
  thread = std::thread([this] { watch(); });
}

StopWatcher::~StopWatcher() { stop(); }

void StopWatcher::stop() {
  if (done.exchange(true))
    return;
  if (thread.joinable())
    thread.join();
  // The handlers from before (a library's caller may have its own, as
  // Python has for KeyboardInterrupt).
  std::signal(SIGINT, previousInt == SIG_ERR ? SIG_DFL : previousInt);
  std::signal(SIGTERM, previousTerm == SIG_ERR ? SIG_DFL : previousTerm);
  // A peer interrupted after this process ended waits for its frontier.
  if (store && !interrupted())
    (void)store->set(frontierKey(rank), std::to_string(gate.frontier()));
}

void StopWatcher::watch() {
  using namespace std::chrono;
  auto lastPoll = steady_clock::now();
  while (!done) {
    std::this_thread::sleep_for(milliseconds(20));
    bool here = signalsSeen > 0 || requested;
    bool asked = here;
    if (!asked && store && steady_clock::now() - lastPoll > milliseconds(100)) {
      lastPoll = steady_clock::now();
      // (A zero timeout would mean none to the stores underneath.)
      asked = store->get(kRequest, milliseconds(1)).ok();
    }
    if (!asked)
      continue;
    if (here && store)
      (void)store->set(kRequest, std::to_string(rank));
    if (here && store && gate.frontier() == 0) {
      // No step begun here: the processes may still be joining, and one
      // that never comes would hold the join until its timeout. Say where
      // this one stops (for peers that agree) and stop waiting at once.
      (void)store->set(frontierKey(rank), "0");
      gate.hold();
      joining = true;
      stopAt = 0;
      gate.release(0);
      store->cancel();
      return;
    }
    agree();
    return;
  }
}

void StopWatcher::agree() {
  int64_t limit = gate.hold();
  if (store) {
    // Every process publishes the highest step it began; all run to the
    // largest.
    error = store->set(frontierKey(rank), std::to_string(limit));
    for (int peer = 0; peer < world && error.ok(); ++peer) {
      if (peer == rank)
        continue;
      absl::StatusOr<std::string> value =
          store->get(frontierKey(peer), timeout);
      if (!value.ok()) {
        error = absl::DeadlineExceededError(
            "rank " + std::to_string(peer) +
            " did not say where it stopped within " +
            std::to_string(timeout.count()) + " ms of the stop request");
        break;
      }
      int64_t theirs = 0;
      if (!absl::SimpleAtoi(*value, &theirs)) {
        error = absl::DataLossError("rank " + std::to_string(peer) +
                                    "'s stop step '" + *value +
                                    "' in the store is not a number");
        break;
      }
      limit = std::max(limit, theirs);
    }
  }
  stopAt = limit;
  gate.release(limit);
}
