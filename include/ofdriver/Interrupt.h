//===- Interrupt.h - Ctrl-C: every rank stops at one step -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The first SIGINT or SIGTERM asks the run to stop: this process holds its
// step gate (ofrt::StepGate: sources begin no new step), and the job's
// processes agree through their store on the highest step any of them
// began; every rank finishes up to that step, the checkpoint is saved and
// the program exits 130. A process that sees another's request in the
// store stops the same way. A second SIGINT (0.2 s or more after the
// first; timeout(1) sends one to the process and one to its group) exits at
// once, without a checkpoint. A signal before this process began a step
// (its processes may still be joining, waiting for one that never comes)
// cancels the store's waits and ends the run at once, with no step run.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_INTERRUPT_H
#define OFDRIVER_INTERRUPT_H

#include "ofrt/Engine.h"
#include "ofrt/Store.h"

#include "absl/status/status.h"

#include <atomic>
#include <csignal>
#include <chrono>
#include <memory>
#include <thread>

namespace ofdriver {

/// The exit status of a run stopped by a signal (the shell's 128 + SIGINT).
constexpr int kInterruptedExit = 130;

/// For signal handlers (async-signal-safe): counts `sig` and returns true
/// when it is a second Ctrl-C, a SIGINT at least 0.2 s after the first
/// signal (tools such as timeout(1) signal a process and its group at
/// once; a repeated SIGTERM keeps asking politely).
bool isSecondInterrupt(int sig);

/// Writes "interrupted again: exiting now, without a checkpoint" and exits
/// with kInterruptedExit at once (async-signal-safe).
[[noreturn]] void exitOnSecondInterrupt();

class StopWatcher {
public:
  /// Watches for signals (and, with a store and several processes, for a
  /// peer's request) while it lives; `rank` and `world` are this process's
  /// place in the job (0 and 1 for ranks that are threads of one process).
  StopWatcher(ofrt::StepGate &gate, std::shared_ptr<ofrt::Store> store,
              int rank, int world, std::chrono::milliseconds timeout);
  ~StopWatcher();
  /// Ends watching (the run is over) and restores the signals' handlers
  /// from before.
  /// With peers, publishes where this process ended, for a peer that asks
  /// later.
  void stop();
  /// Asks every rank of the job to stop as a first Ctrl-C does (the run
  /// found a reason to end early): this process begins no new step from
  /// now on; thread-safe.
  void request() {
    gate.hold();
    requested = true;
  }
  /// Whether the run was asked to stop, and at which step (exclusive).
  bool interrupted() const { return stopAt >= 0; }
  /// Whether a signal came before this process began a step, while the
  /// job's processes may still be joining: the store was cancelled (a
  /// peer that never comes would hold the join until its timeout) and no
  /// step runs.
  bool stoppedJoining() const { return joining; }
  int64_t stopStep() const { return stopAt; }
  /// Why the processes could not agree, if they could not.
  absl::Status status() const { return error; }

private:
  void watch();
  void agree();

  ofrt::StepGate &gate;
  std::shared_ptr<ofrt::Store> store;
  int rank, world;
  std::chrono::milliseconds timeout;
  std::atomic<bool> done{false};
  std::atomic<bool> requested{false}, joining{false};
  std::atomic<int64_t> stopAt{-1};
  absl::Status error;
  std::thread thread;
  void (*previousInt)(int) = SIG_DFL;
  void (*previousTerm)(int) = SIG_DFL;
};

} // namespace ofdriver

#endif // OFDRIVER_INTERRUPT_H
