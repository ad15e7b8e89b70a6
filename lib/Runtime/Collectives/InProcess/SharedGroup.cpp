//===- SharedGroup.cpp - Memory the ranks of one group share --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "SharedGroup.h"

#include "ofrt/Device.h"

#include <algorithm>
#include <climits>
#include <thread>

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

using namespace ofrt::inproc;
using Clock = std::chrono::steady_clock;

namespace {

void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#else
  std::this_thread::yield();
#endif
}

/// Sleeps while `*word == expected`, at most `timeout`.
void futexWait(std::atomic<uint32_t> &word, uint32_t expected,
               std::chrono::nanoseconds timeout) {
#if defined(__linux__)
  timespec ts;
  ts.tv_sec = timeout.count() / 1000000000;
  ts.tv_nsec = timeout.count() % 1000000000;
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAIT_PRIVATE,
          expected, &ts, nullptr, 0);
#else
  (void)word;
  (void)expected;
  std::this_thread::sleep_for(std::min<std::chrono::nanoseconds>(
      timeout, std::chrono::microseconds(50)));
#endif
}

void futexWakeAll(std::atomic<uint32_t> &word) {
#if defined(__linux__)
  syscall(SYS_futex, reinterpret_cast<uint32_t *>(&word), FUTEX_WAKE_PRIVATE,
          INT_MAX, nullptr, nullptr, 0);
#else
  (void)word;
#endif
}

/// Spin iterations before yielding, and yields before sleeping. A peer
/// running on another core arrives within the spins; when ranks outnumber
/// cores, the yields hand this core to a peer that has work left, which
/// is cheaper than a sleep and a wake-up.
constexpr int kSpins = 200;
constexpr int kYields = 64;

/// Spins only when every rank's two busy threads (its compute and its
/// collective stream) can have a core of their own: otherwise the core a
/// waiter spins on is one a peer, or another stream of its own rank, needs
/// to reach the barrier (on 2 cores, spinning made the GPT example's
/// tensor-parallel step on 4 ranks 1.2x to 1.3x slower; bench/README.md).
int spinsFor(int size) {
  return static_cast<int>(ofrt::allowedCores().size()) >= 2 * size ? kSpins : 0;
}

} // namespace

SharedGroup::SharedGroup(int size) : slots(size), spins(spinsFor(size)) {
  for (RankSlot &slot : slots)
    for (auto &buffer : slot.staging)
      buffer.reset(new uint8_t[kStagingBytes]);
}

bool SharedGroup::reached(uint32_t index) const {
  uint32_t target = index * static_cast<uint32_t>(slots.size());
  return static_cast<int32_t>(arrived.load(std::memory_order_acquire) -
                              target) >= 0;
}

void SharedGroup::arrive(int rank, uint32_t index) {
  slots[rank].arrivals.store(index, std::memory_order_relaxed);
  uint32_t now = arrived.fetch_add(1, std::memory_order_acq_rel) + 1;
  if (now == index * static_cast<uint32_t>(slots.size())) {
    epoch.fetch_add(1, std::memory_order_seq_cst);
    if (sleepers.load(std::memory_order_seq_cst) > 0)
      futexWakeAll(epoch);
  }
}

std::string SharedGroup::missing(uint32_t index) const {
  std::string ranks;
  for (size_t r = 0; r < slots.size(); ++r)
    if (static_cast<int32_t>(slots[r].arrivals.load() - index) < 0)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return ranks;
}

/// "<what> timed out after <timeout> ms".
static std::string timedOut(const std::string &what,
                            std::chrono::milliseconds timeout) {
  return what + " timed out after " + std::to_string(timeout.count()) + " ms";
}

std::string SharedGroup::departedMissing(uint32_t index) const {
  std::string ranks;
  for (size_t r = 0; r < slots.size(); ++r)
    if (static_cast<int32_t>(slots[r].arrivals.load() - index) < 0 &&
        slots[r].departed.load())
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
  return ranks;
}

/// "rank 1" or "ranks 1, 2".
static std::string ranksText(const std::string &list) {
  return (list.find(',') == std::string::npos ? "rank " : "ranks ") + list;
}

absl::Status SharedGroup::wait(uint32_t index,
                               std::chrono::milliseconds timeout,
                               const std::string &what) {
  for (int i = 0; i < spins; ++i) {
    if (reached(index))
      return absl::OkStatus();
    cpuRelax();
  }
  for (int i = 0; i < kYields; ++i) {
    if (reached(index))
      return absl::OkStatus();
    std::this_thread::yield();
  }
  Clock::time_point deadline = Clock::now() + timeout;
  sleepers.fetch_add(1, std::memory_order_seq_cst);
  absl::Status status;
  while (true) {
    uint32_t seen = epoch.load(std::memory_order_seq_cst);
    if (reached(index))
      break;
    if (broken.load()) {
      status = absl::UnavailableError(what + " failed: the group broke (" +
                                      brokenReason() +
                                      "); waiting for rank(s) " +
                                      missing(index));
      break;
    }
    if (std::string gone = departedMissing(index); !gone.empty()) {
      status = absl::UnavailableError(what + " failed: " + ranksText(gone) +
                                      " left the group");
      break;
    }
    Clock::time_point now = Clock::now();
    if (now >= deadline) {
      status = absl::DeadlineExceededError(timedOut(what, timeout) +
                                           " waiting for rank(s) " +
                                           missing(index));
      break;
    }
    futexWait(epoch, seen,
              std::min<Clock::duration>(deadline - now,
                                        std::chrono::milliseconds(100)));
  }
  sleepers.fetch_sub(1, std::memory_order_seq_cst);
  return status;
}

void SharedGroup::breakGroup(const std::string &why) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (reason.empty())
      reason = why;
    broken = true;
  }
  wakeAll();
}

void SharedGroup::depart(int rank) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    slots[rank].departed = true;
  }
  wakeAll();
}

void SharedGroup::wakeAll() {
  epoch.fetch_add(1, std::memory_order_seq_cst);
  futexWakeAll(epoch);
  mailChanged.notify_all();
}

std::string SharedGroup::brokenReason() {
  std::lock_guard<std::mutex> lock(mutex);
  return reason;
}

absl::Status SharedGroup::send(const Post &post,
                               std::chrono::milliseconds timeout,
                               const std::string &what) {
  Clock::time_point deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex);
  auto it = mailbox.insert(mailbox.end(), post);
  mailChanged.notify_all();
  while (!it->taken) {
    if (broken || slots[post.to].departed) {
      std::string why = broken ? "the group broke (" + reason + ")"
                               : ranksText(std::to_string(post.to)) +
                                     " left the group";
      mailbox.erase(it);
      return absl::UnavailableError(what + " failed: " + why);
    }
    if (mailChanged.wait_until(lock, deadline) == std::cv_status::timeout &&
        !it->taken) {
      mailbox.erase(it);
      return absl::DeadlineExceededError(timedOut(what, timeout) +
                                         " waiting for its recv");
    }
  }
  mailbox.erase(it);
  return absl::OkStatus();
}

absl::Status SharedGroup::recv(int from, int to, uint32_t tag, void *data,
                               size_t bytes, std::chrono::milliseconds timeout,
                               const std::string &what) {
  Clock::time_point deadline = Clock::now() + timeout;
  std::unique_lock<std::mutex> lock(mutex);
  while (true) {
    for (Post &post : mailbox) {
      if (post.taken || post.from != from || post.to != to || post.tag != tag)
        continue;
      if (post.bytes != bytes)
        return absl::InvalidArgumentError(
            what + " got " + std::to_string(post.bytes) +
            " bytes from its peer, expected " + std::to_string(bytes));
      std::copy_n(static_cast<const uint8_t *>(post.data), bytes,
                  static_cast<uint8_t *>(data));
      post.taken = true;
      mailChanged.notify_all();
      return absl::OkStatus();
    }
    if (broken)
      return absl::UnavailableError(what + " failed: the group broke (" +
                                    reason + ")");
    if (slots[from].departed)
      return absl::UnavailableError(what + " failed: " +
                                    ranksText(std::to_string(from)) +
                                    " left the group");
    if (mailChanged.wait_until(lock, deadline) == std::cv_status::timeout)
      return absl::DeadlineExceededError(timedOut(what, timeout) +
                                         " waiting for its send");
  }
}
