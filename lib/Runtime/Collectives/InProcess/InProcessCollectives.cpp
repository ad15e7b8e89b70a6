//===- InProcessCollectives.cpp - Collectives through shared memory -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Ranks that are threads of one process read each other's buffers.
//
// Small messages (at most kStagingBytes per rank) take one barrier: each
// rank copies its input into its staging buffer for that barrier's parity,
// arrives, waits, and then reads what it needs from every rank's staging
// buffer. A staging buffer is written again two barriers later, when every
// rank has arrived at the barrier in between, so after it has finished
// reading.
//
// Larger messages take two barriers: ranks publish their buffer pointers,
// wait for each other, move the data directly between user buffers, and
// wait again so that no rank reuses a buffer a peer still reads or writes.
// An all-reduce splits the buffer into one chunk per rank; each rank sums
// its chunk over every input, block by block in a buffer that stays in
// cache, and writes the sums into every rank's output (only that rank
// touches that chunk of any buffer, so in-place operation is safe). Each
// element is summed by one rank in rank order, so every rank gets the same
// bits, and the same bits whichever path the size takes.
//
// The group's state is created by its rank 0 and found by the others
// through the store, under the group's key ("<pid>:<token>": another
// process's ranks cannot join). A communicator that is destroyed leaves its
// group: peers waiting for it fail at once instead of timing out; an error
// in a call breaks the group for every member.
//
//===----------------------------------------------------------------------===//

#include "SharedGroup.h"

#include "Collectives/CollectiveUtils.h"
#include "Collectives/Libraries.h"

#include "ofrt/Collectives.h"
#include "ofrt/Status.h"
#include "ofsupport/Layout.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>

using namespace ofrt;
using namespace ofrt::collectives;
using namespace ofrt::inproc;

namespace {

//===----------------------------------------------------------------------===//
// Groups by token, until every member has found its group
//===----------------------------------------------------------------------===//

class GroupDirectory {
public:
  static GroupDirectory &instance() {
    static GroupDirectory directory;
    return directory;
  }
  uint64_t add(std::shared_ptr<SharedGroup> group) {
    std::lock_guard<std::mutex> lock(mutex);
    groups[++last] = std::move(group);
    return last;
  }
  std::shared_ptr<SharedGroup> find(uint64_t token) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = groups.find(token);
    return it == groups.end() ? nullptr : it->second;
  }
  void remove(uint64_t token) {
    std::lock_guard<std::mutex> lock(mutex);
    groups.erase(token);
  }

private:
  std::mutex mutex;
  std::map<uint64_t, std::shared_ptr<SharedGroup>> groups;
  uint64_t last = 0;
};

//===----------------------------------------------------------------------===//
// Element-wise sums and copies
//===----------------------------------------------------------------------===//

/// Elements reduced per block: 16 KiB of f32, which stays in L1.
constexpr int64_t kBlockBytes = 16 * 1024;
/// out[i] = combine over k of inputs[k][i], in order of k (n >= 1 inputs).
template <typename T, typename Combine>
void combineInto(T *out, const std::vector<const T *> &inputs, int64_t count,
                 Combine combine) {
  const T *first = inputs[0];
  if (inputs.size() == 1) {
    std::copy_n(first, count, out);
    return;
  }
  const T *second = inputs[1];
  for (int64_t i = 0; i < count; ++i)
    out[i] = combine(first[i], second[i]);
  for (size_t k = 2; k < inputs.size(); ++k) {
    const T *in = inputs[k];
    for (int64_t i = 0; i < count; ++i)
      out[i] = combine(out[i], in[i]);
  }
}

/// out[i] = the sum, maximum or minimum over k of inputs[k][i].
template <typename T>
void reduceInto(T *out, const std::vector<const T *> &inputs, int64_t count,
                ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum:
    return combineInto(out, inputs, count, [](T a, T b) { return a + b; });
  case ReduceOp::Max:
    return combineInto(out, inputs, count,
                       [](T a, T b) { return std::max(a, b); });
  case ReduceOp::Min:
    return combineInto(out, inputs, count,
                       [](T a, T b) { return std::min(a, b); });
  }
}

/// Element offsets of consecutive chunks.
std::vector<int64_t> offsetsOf(const std::vector<int64_t> &chunks) {
  std::vector<int64_t> offsets(chunks.size() + 1, 0);
  for (size_t i = 0; i < chunks.size(); ++i)
    offsets[i + 1] = offsets[i] + chunks[i];
  return offsets;
}

//===----------------------------------------------------------------------===//
// The communicator
//===----------------------------------------------------------------------===//

class InProcessCommunicator : public Communicator {
public:
  /// `me` has passed the group's first barrier, the one that joined it.
  InProcessCommunicator(std::shared_ptr<SharedGroup> group, int me,
                        std::chrono::milliseconds timeout)
      : group(std::move(group)), me(me), timeoutMs(timeout) {}

  ~InProcessCommunicator() override { group->depart(me); }

  int rank() const override { return me; }
  int size() const override { return group->size(); }
  std::chrono::milliseconds timeout() const override { return timeoutMs; }

protected:
  absl::Status doAllReduce(DType dtype, const void *input, void *output,
                           int64_t count, ReduceOp op) override {
    std::string what = describe("all_reduce", dtype, count);
    int64_t bytes = count * dtypeSize(dtype);
    int n = size();
    if (n == 1) {
      if (input != output)
        std::memmove(output, input, bytes);
      return absl::OkStatus();
    }
    if (bytes <= static_cast<int64_t>(kStagingBytes)) {
      OFRT_RETURN_IF_ERROR(stageAndWait(input, bytes, what));
      withReducible(dtype, [&](auto zero) {
        using T = decltype(zero);
        std::vector<const T *> inputs;
        for (int q = 0; q < n; ++q)
          inputs.push_back(reinterpret_cast<const T *>(staged(q)));
        reduceInto(static_cast<T *>(output), inputs, count, op);
      });
      return absl::OkStatus();
    }
    publish(input, output);
    OFRT_RETURN_IF_ERROR(barrier(what));
    withReducible(dtype, [&](auto zero) {
      using T = decltype(zero);
      ofsupport::Range mine = ofsupport::balancedPart(count, n, me);
      std::vector<const T *> inputs(n);
      std::vector<T *> outputs(n);
      int64_t block = kBlockBytes / sizeof(T);
      std::vector<T> sums(block);
      for (int64_t at = mine.begin; at < mine.begin + mine.size; at += block) {
        int64_t length = std::min(block, mine.begin + mine.size - at);
        for (int q = 0; q < n; ++q)
          inputs[q] = static_cast<const T *>(group->slot(q).input) + at;
        reduceInto(sums.data(), inputs, length, op);
        // Non-temporal stores measured slower here (bench-allreduce-busbw).
        for (int q = 0; q < n; ++q)
          std::memcpy(static_cast<T *>(group->slot(q).output) + at,
                      sums.data(), length * sizeof(T));
      }
    });
    return barrier(what);
  }

  absl::Status doReduceScatter(DType dtype, const void *input, void *output,
                               const std::vector<int64_t> &chunks,
                               ReduceOp op) override {
    std::string what = describe("reduce_scatter", dtype, chunks[me]);
    std::vector<int64_t> offsets = offsetsOf(chunks);
    int64_t bytes = offsets.back() * dtypeSize(dtype);
    bool staged = bytes <= static_cast<int64_t>(kStagingBytes);
    if (staged) {
      OFRT_RETURN_IF_ERROR(stageAndWait(input, bytes, what));
    } else {
      publish(input, output);
      OFRT_RETURN_IF_ERROR(barrier(what));
    }
    withReducible(dtype, [&](auto zero) {
      using T = decltype(zero);
      std::vector<const T *> inputs;
      for (int q = 0; q < size(); ++q)
        inputs.push_back(
            (staged ? reinterpret_cast<const T *>(this->staged(q))
                    : static_cast<const T *>(group->slot(q).input)) +
            offsets[me]);
      reduceInto(static_cast<T *>(output), inputs, chunks[me], op);
    });
    return staged ? absl::OkStatus() : barrier(what);
  }

  absl::Status doAllGather(DType dtype, const void *input, void *output,
                           const std::vector<int64_t> &chunks) override {
    std::vector<int64_t> offsets = offsetsOf(chunks);
    std::string what = describe("all_gather", dtype, offsets.back());
    size_t element = dtypeSize(dtype);
    int64_t largest = *std::max_element(chunks.begin(), chunks.end());
    bool staged = largest * element <= kStagingBytes;
    if (staged) {
      OFRT_RETURN_IF_ERROR(stageAndWait(input, chunks[me] * element, what));
    } else {
      publish(input, output);
      OFRT_RETURN_IF_ERROR(barrier(what));
    }
    for (int q = 0; q < size(); ++q)
      std::memcpy(static_cast<uint8_t *>(output) + offsets[q] * element,
                  staged ? this->staged(q) : group->slot(q).input,
                  chunks[q] * element);
    return staged ? absl::OkStatus() : barrier(what);
  }

  absl::Status doAllToAll(DType dtype, const void *input, void *output,
                          int64_t count) override {
    std::vector<int64_t> counts(size(), count / size());
    return exchange(describe("all_to_all", dtype, count), dtype, input,
                    counts, output, counts);
  }

  absl::Status doAllToAllV(DType dtype, const void *input,
                           const std::vector<int64_t> &sendCounts, void *output,
                           const std::vector<int64_t> &recvCounts) override {
    int64_t total =
        std::accumulate(sendCounts.begin(), sendCounts.end(), int64_t{0});
    return exchange(describe("all_to_all_v", dtype, total), dtype, input,
                    sendCounts, output, recvCounts);
  }

  absl::Status doBroadcast(DType dtype, void *data, int64_t count,
                           int root) override {
    std::string what = describe("broadcast", dtype, count) + " from rank " +
                       std::to_string(root);
    size_t bytes = count * dtypeSize(dtype);
    bool staged = bytes <= kStagingBytes;
    if (staged) {
      OFRT_RETURN_IF_ERROR(
          stageAndWait(data, me == root ? bytes : 0, what));
    } else {
      publish(data, data);
      OFRT_RETURN_IF_ERROR(barrier(what));
    }
    if (me != root)
      std::memcpy(data, staged ? this->staged(root) : group->slot(root).input,
                  bytes);
    return staged ? absl::OkStatus() : barrier(what);
  }

  absl::Status doSend(DType dtype, const void *data, int64_t count, int peer,
                      uint32_t tag) override {
    std::string what = who() + ": " + describe("send", dtype, count) +
                       " to rank " + std::to_string(peer) + " (tag " +
                       std::to_string(tag) + ")";
    Post post;
    post.from = me;
    post.to = peer;
    post.tag = tag;
    post.data = data;
    post.bytes = count * dtypeSize(dtype);
    return group->send(post, timeoutMs, what);
  }

  absl::Status doRecv(DType dtype, void *data, int64_t count, int peer,
                      uint32_t tag) override {
    std::string what = who() + ": " + describe("recv", dtype, count) +
                       " from rank " + std::to_string(peer) + " (tag " +
                       std::to_string(tag) + ")";
    return group->recv(peer, me, tag, data, count * dtypeSize(dtype), timeoutMs,
                       what);
  }

private:
  /// An all-to-all: chunk q of this rank's input goes to rank q. A rank
  /// whose counts and data fit stages them ([counts][data]); the others
  /// publish pointers, and then every rank passes a second barrier (all
  /// see the same flags after the first, so all agree).
  absl::Status exchange(const std::string &what, DType dtype,
                        const void *input,
                        const std::vector<int64_t> &sendCounts, void *output,
                        const std::vector<int64_t> &recvCounts) {
    size_t element = dtypeSize(dtype);
    int64_t sent =
        std::accumulate(sendCounts.begin(), sendCounts.end(), int64_t{0});
    size_t header = sendCounts.size() * sizeof(int64_t);
    RankSlot &slot = group->slot(me);
    bool &mine = slot.staged[(barriers + 1) & 1];
    mine = header + sent * element <= kStagingBytes;
    if (mine) {
      uint8_t *staging = nextStaging();
      std::memcpy(staging, sendCounts.data(), header);
      if (sent)
        std::memcpy(staging + header, input, sent * element);
    } else {
      slot.input = input;
      slot.counts = sendCounts.data();
    }
    OFRT_RETURN_IF_ERROR(barrier(what));
    bool second = false;
    absl::Status status;
    int64_t at = 0;
    for (int q = 0; q < size(); ++q) {
      RankSlot &peer = group->slot(q);
      bool peerStaged = peer.staged[barriers & 1];
      second |= !peerStaged;
      const int64_t *counts =
          peerStaged ? reinterpret_cast<const int64_t *>(staged(q))
                     : peer.counts;
      const uint8_t *data = peerStaged
                                ? staged(q) + header
                                : static_cast<const uint8_t *>(peer.input);
      int64_t offset = 0;
      for (int k = 0; k < me; ++k)
        offset += counts[k];
      if (counts[me] != recvCounts[q]) {
        if (status.ok())
          status = absl::InvalidArgumentError(
              who() + ": " + what + ": rank " + std::to_string(q) +
              " sends " + std::to_string(counts[me]) +
              " elements, this rank expects " + std::to_string(recvCounts[q]));
        continue;
      }
      std::memcpy(static_cast<uint8_t *>(output) + at * element,
                  data + offset * element, recvCounts[q] * element);
      at += recvCounts[q];
    }
    if (second)
      OFRT_RETURN_IF_ERROR(barrier(what));
    return status;
  }

  void publish(const void *input, void *output) {
    group->slot(me).input = input;
    group->slot(me).output = output;
  }

  /// This rank's staging buffer for the next barrier.
  uint8_t *nextStaging() {
    return group->slot(me).staging[(barriers + 1) & 1].get();
  }

  /// Copies `bytes` of `data` into this rank's staging buffer for the next
  /// barrier, then passes it.
  absl::Status stageAndWait(const void *data, size_t bytes,
                            const std::string &what) {
    if (bytes)
      std::memcpy(nextStaging(), data, bytes);
    return barrier(what);
  }

  /// Rank q's staging buffer of the barrier just passed.
  const uint8_t *staged(int q) {
    return group->slot(q).staging[barriers & 1].get();
  }

  absl::Status barrier(const std::string &what) {
    ++barriers;
    group->arrive(me, barriers);
    return group->wait(barriers, timeoutMs, who() + ": " + what);
  }

  /// Peers waiting in a barrier or for a message fail at once.
  void onBroken(const absl::Status &status) override {
    group->breakGroup("rank " + std::to_string(me) +
                      " failed: " + std::string(status.message()));
  }

  std::shared_ptr<SharedGroup> group;
  int me;
  std::chrono::milliseconds timeoutMs;
  uint32_t barriers = 1; ///< Barriers this rank has arrived at.
};

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

class InProcessCollectives : public Collectives {
public:
  explicit InProcessCollectives(const CollectivesOptions &options)
      : options(options) {}

  std::string name() const override { return "inproc"; }

  absl::StatusOr<std::unique_ptr<Communicator>>
  join(const std::vector<int64_t> &ranks, int position,
       const std::string &key) override {
    int size = ranks.size();
    std::string who = "rank " + std::to_string(position) + " of " +
                      std::to_string(size) + ": joining the group failed";
    auto notJoined = [&](const std::string &missing) {
      return absl::DeadlineExceededError(
          who + ": not every rank joined within " +
          std::to_string(options.timeout.count()) + " ms; missing rank(s) " +
          missing);
    };
    std::string slotKey = key + "/inproc";
    std::shared_ptr<SharedGroup> group;
    uint64_t token = 0;
    if (position == 0) {
      group = std::make_shared<SharedGroup>(size);
      token = GroupDirectory::instance().add(group);
      OFRT_RETURN_IF_ERROR(options.store->set(
          slotKey, std::to_string(getpid()) + ":" + std::to_string(token)));
    } else {
      absl::StatusOr<std::string> value =
          options.store->get(slotKey, options.timeout);
      if (!value.ok()) {
        if (absl::IsDeadlineExceeded(value.status()))
          return notJoined(std::to_string(ranks[0]));
        return value.status();
      }
      long pid = 0;
      unsigned long long found = 0;
      if (std::sscanf(value->c_str(), "%ld:%llu", &pid, &found) != 2)
        return absl::InternalError(who + ": the store holds '" + *value +
                                   "' for the group");
      if (pid != getpid())
        return absl::FailedPreconditionError(
            who + ": rank " + std::to_string(ranks[0]) +
            " of the group runs in another process; the inproc collectives "
            "need every rank in one process (use gloo or mpi)");
      group = GroupDirectory::instance().find(found);
      if (!group)
        return absl::InternalError(who + ": the group is gone");
    }
    // Everyone has the group once everyone has passed its first barrier.
    group->arrive(position, 1);
    absl::Status status = group->wait(1, options.timeout, who);
    if (position == 0)
      GroupDirectory::instance().remove(token);
    if (!status.ok()) {
      group->breakGroup("rank " + std::to_string(position) +
                        " gave up joining");
      // Name the members that never came, by their global ranks.
      std::string missing;
      for (int q = 0; q < size; ++q)
        if (group->slot(q).arrivals.load() < 1)
          missing += (missing.empty() ? "" : ", ") + std::to_string(ranks[q]);
      if (!missing.empty())
        return notJoined(missing);
      return status;
    }
    return std::unique_ptr<Communicator>(
        new InProcessCommunicator(group, position, options.timeout));
  }

  absl::StatusOr<std::unique_ptr<ControlChannel>> controlChannel() override {
    return createStoreControlChannel(options.store, options.rank,
                                     options.worldSize, options.timeout);
  }

private:
  CollectivesOptions options;
};

} // namespace

void ofrt::registerInProcessCollectives(CollectivesRegistry &registry) {
  registry.add("inproc",
               "shared memory between ranks that are threads of one process",
               [](const CollectivesOptions &options)
                   -> absl::StatusOr<std::unique_ptr<Collectives>> {
                 if (!options.store)
                   return absl::InvalidArgumentError(
                       "the inproc collectives need a store");
                 return std::unique_ptr<Collectives>(
                     new InProcessCollectives(options));
               });
}
