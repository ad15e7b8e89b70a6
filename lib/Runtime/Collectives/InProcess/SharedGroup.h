//===- SharedGroup.h - Memory the ranks of one group share ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The state of one group whose ranks are threads of this process: a
// barrier, a slot per rank where it publishes its buffers for the current
// collective, staging buffers for small messages, and mailboxes for send
// and recv. Private to the in-process collectives.
//
// The barrier counts arrivals on one monotone counter: every rank passes
// the same barriers in the same order, so barrier k is complete once the
// counter reaches k * size, and no reset is needed. A waiting rank spins
// briefly (a peer on another core arrives within microseconds), then
// yields its core (ranks may outnumber cores), then sleeps on a futex until
// the last arrival wakes it, the group breaks, or its deadline passes.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_COLLECTIVES_INPROCESS_SHAREDGROUP_H
#define OFRT_LIB_RUNTIME_COLLECTIVES_INPROCESS_SHAREDGROUP_H

#include "absl/status/status.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ofrt::inproc {

/// Messages up to this many bytes per rank go through staging buffers: one
/// barrier per collective instead of two.
constexpr size_t kStagingBytes = 64 * 1024;

/// What a rank publishes for the collective in progress.
struct alignas(64) RankSlot {
  const void *input = nullptr;
  void *output = nullptr;
  /// Element counts per peer (all_to_all_v's sends).
  const int64_t *counts = nullptr;
  /// Whether the rank staged its message instead of publishing pointers
  /// (all_to_all, where ranks may decide differently), per barrier parity
  /// as the staging buffers: a rank past a call without a second barrier
  /// sets the next call's while its peers still read this one's.
  bool staged[2] = {false, false};
  /// Barriers this rank has arrived at (for naming missing ranks).
  std::atomic<uint32_t> arrivals{0};
  /// The rank's communicator is gone: it will arrive nowhere again.
  std::atomic<bool> departed{false};
  /// Staging buffers, two so that one collective's can be read while the
  /// next one's are written (see InProcessCollectives.cpp).
  std::unique_ptr<uint8_t[]> staging[2];
};

/// A message waiting in a mailbox until its recv takes it.
struct Post {
  int from = 0, to = 0;
  uint32_t tag = 0;
  const void *data = nullptr;
  size_t bytes = 0;
  bool taken = false;
};

class SharedGroup {
public:
  explicit SharedGroup(int size);

  int size() const { return static_cast<int>(slots.size()); }
  RankSlot &slot(int rank) { return slots[rank]; }

  /// Arrives at barrier `index` (1, 2, ...) as `rank`.
  void arrive(int rank, uint32_t index);
  /// Waits until every rank has arrived at barrier `index`. Errors: the
  /// group broke (a rank left or failed), or `timeout` passed; both start
  /// with `what` and name the ranks that are missing.
  absl::Status wait(uint32_t index, std::chrono::milliseconds timeout,
                    const std::string &what);

  /// Marks the group broken (a rank failed in a call: the peers' state is
  /// unknown) and wakes every waiter.
  void breakGroup(const std::string &reason);
  /// Marks `rank` gone: calls that wait for it fail, others go on.
  void depart(int rank);
  /// The reason it broke, or "" while it works.
  std::string brokenReason();

  // Send and recv: a send posts and waits until its recv has copied it.
  absl::Status send(const Post &post, std::chrono::milliseconds timeout,
                    const std::string &what);
  absl::Status recv(int from, int to, uint32_t tag, void *data, size_t bytes,
                    std::chrono::milliseconds timeout, const std::string &what);

private:
  bool reached(uint32_t index) const;
  std::string missing(uint32_t index) const;
  /// The missing ranks of barrier `index` that have departed, or "".
  std::string departedMissing(uint32_t index) const;
  void wakeAll();

  std::vector<RankSlot> slots;
  /// Spins of a waiter before it yields (0 when the ranks' threads
  /// outnumber the cores).
  const int spins;
  alignas(64) std::atomic<uint32_t> arrived{0};
  /// Bumped by each completed barrier and by breakGroup; sleepers wait on it.
  alignas(64) std::atomic<uint32_t> epoch{0};
  std::atomic<int> sleepers{0};
  std::atomic<bool> broken{false};

  std::mutex mutex; ///< Guards `reason` and the mailbox.
  std::string reason;
  std::condition_variable mailChanged;
  std::list<Post> mailbox;
};

} // namespace ofrt::inproc

#endif // OFRT_LIB_RUNTIME_COLLECTIVES_INPROCESS_SHAREDGROUP_H
