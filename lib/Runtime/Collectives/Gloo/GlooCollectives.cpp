//===- GlooCollectives.cpp - CPU collectives over Gloo (TCP) ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One gloo::rendezvous::Context per group, fully connected over TCP; the
// ranks exchange addresses through the job's store (an adapter makes it a
// Gloo store), and all groups of a rank share one TCP device (a listening
// socket and its event-loop thread). Gloo reports failures by throwing
// (IoException for a closed connection or a timeout, EnforceNotMet for
// broken invariants); every call catches them and returns an error naming
// this rank and the collective. A timeout poisons Gloo's context, so the
// first error breaks the communicator and later calls fail at once.
//
// This Gloo (Debian's 2022 snapshot) has no options-style reduce_scatter:
// reduceScatter is an alltoallv of the chunks followed by a local sum, which
// moves as many bytes as a ring reduce-scatter.
//
//===----------------------------------------------------------------------===//

#include "Collectives/CollectiveUtils.h"
#include "Collectives/Libraries.h"

#include "ofrt/Collectives.h"

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"

#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <netdb.h>

#include <cstring>
#include <numeric>

using namespace ofrt;
using namespace ofrt::collectives;

namespace {
/// A slot prefix none of Gloo's collectives uses, for send and recv.
constexpr uint8_t kPointToPointSlotPrefix = 0x10;

/// Calls fn(T()) with an unsigned type of `bytes` bytes: Gloo's data
/// movement is typed only by element size.
template <typename Fn> void withElementOfSize(size_t bytes, Fn &&fn) {
  switch (bytes) {
  case 1:
    return fn(uint8_t());
  case 2:
    return fn(uint16_t());
  case 4:
    return fn(uint32_t());
  default:
    return fn(uint64_t());
  }
}

/// All-reduces up to this size use Gloo's bcube algorithm, larger ones its
/// ring.
constexpr int64_t kBcubeMaxBytes = 256 * 1024;

/// Gloo's element-wise reduction for `op` (gloo/math.h).
template <typename T> gloo::AllreduceOptions::Func reduceFunction(ReduceOp op) {
  using Func = void (*)(void *, const void *, const void *, size_t);
  switch (op) {
  case ReduceOp::Max:
    return static_cast<Func>(&gloo::max<T>);
  case ReduceOp::Min:
    return static_cast<Func>(&gloo::min<T>);
  case ReduceOp::Sum:
    break;
  }
  return static_cast<Func>(&gloo::sum<T>);
}

/// Where member `position` of the group joined under `key` publishes the
/// addresses its peers see, one line per pair ("[127.0.0.1]:40123", as
/// Gloo's errors write them).
std::string addressKey(const std::string &key, int position) {
  return key + "/address/" + std::to_string(position);
}

class GlooCommunicator : public Communicator {
public:
  /// `store` and `key`: where each member published its address (so that
  /// a failure can name the peer by rank); `ranks`: the members' global
  /// ranks.
  GlooCommunicator(std::shared_ptr<gloo::rendezvous::Context> context,
                   std::chrono::milliseconds timeout,
                   std::shared_ptr<ofrt::Store> store, std::string key,
                   std::vector<int64_t> ranks)
      : context(std::move(context)), timeoutMs(timeout),
        store(std::move(store)), key(std::move(key)), ranks(std::move(ranks)) {}

  int rank() const override { return context->rank; }
  int size() const override { return context->size; }
  std::chrono::milliseconds timeout() const override { return timeoutMs; }

protected:
  absl::Status doAllReduce(DType dtype, const void *input, void *output,
                           int64_t count, ReduceOp op) override {
    return guard(describe("all_reduce", dtype, count), [&] {
      withReducible(dtype, [&](auto zero) {
        using T = decltype(zero);
        gloo::AllreduceOptions options(context);
        if (input != output)
          options.setInput(static_cast<T *>(const_cast<void *>(input)), count);
        options.setOutput(static_cast<T *>(output), count);
        options.setReduceFunction(reduceFunction<T>(op));
        options.setTag(nextTag++);
        // Small all-reduces are latency-bound: Gloo's ring splits even a
        // few bytes into 2p segments exchanged one after another, bcube
        // exchanges whole halves in log2(p) rounds (mlp-digits' 38 KB of
        // gradients on 2 ranks: 1.7 -> 1.2 ms a step). Large ones keep the
        // ring's pipelined segments.
        if (count * static_cast<int64_t>(sizeof(T)) <= kBcubeMaxBytes)
          options.setAlgorithm(gloo::AllreduceOptions::Algorithm::BCUBE);
        gloo::allreduce(options);
      });
    });
  }

  absl::Status doReduceScatter(DType dtype, const void *input, void *output,
                               const std::vector<int64_t> &chunks,
                               ReduceOp op) override {
    int64_t mine = chunks[rank()];
    return guard(describe("reduce_scatter", dtype, mine), [&] {
      withReducible(dtype, [&](auto zero) {
        using T = decltype(zero);
        // Row i of `pieces` is rank i's chunk destined for this rank.
        std::vector<T> pieces(std::max<int64_t>(1, mine * size()));
        gloo::AlltoallvOptions options(context);
        options.setInput(static_cast<T *>(const_cast<void *>(input)), chunks);
        options.setOutput(pieces.data(), std::vector<int64_t>(size(), mine));
        options.setTag(nextTag++);
        gloo::alltoallv(options);
        T *out = static_cast<T *>(output);
        std::copy_n(pieces.data(), mine, out);
        auto combine = reduceFunction<T>(op);
        for (int i = 1; i < size(); ++i)
          combine(out, out, pieces.data() + i * mine, mine);
      });
    });
  }

  absl::Status doAllGather(DType dtype, const void *input, void *output,
                           const std::vector<int64_t> &chunks) override {
    int64_t total = 0;
    for (int64_t chunk : chunks)
      total += chunk;
    return guard(describe("all_gather", dtype, total), [&] {
      withElementOfSize(dtypeSize(dtype), [&](auto zero) {
        using T = decltype(zero);
        gloo::AllgathervOptions options(context);
        options.setInput(static_cast<T *>(const_cast<void *>(input)),
                         chunks[rank()]);
        options.setOutput(static_cast<T *>(output),
                          std::vector<size_t>(chunks.begin(), chunks.end()));
        options.setTag(nextTag++);
        gloo::allgatherv(options);
      });
    });
  }

  absl::Status doAllToAll(DType dtype, const void *input, void *output,
                          int64_t count) override {
    return guard(describe("all_to_all", dtype, count), [&] {
      withElementOfSize(dtypeSize(dtype), [&](auto zero) {
        using T = decltype(zero);
        gloo::AlltoallOptions options(context);
        options.setInput(static_cast<T *>(const_cast<void *>(input)), count);
        options.setOutput(static_cast<T *>(output), count);
        options.setTag(nextTag++);
        gloo::alltoall(options);
      });
    });
  }

  absl::Status doAllToAllV(DType dtype, const void *input,
                           const std::vector<int64_t> &sendCounts, void *output,
                           const std::vector<int64_t> &recvCounts) override {
    int64_t total =
        std::accumulate(sendCounts.begin(), sendCounts.end(), int64_t{0});
    return guard(describe("all_to_all_v", dtype, total), [&] {
      withElementOfSize(dtypeSize(dtype), [&](auto zero) {
        using T = decltype(zero);
        // Gloo wants non-null buffers even when every count is zero.
        T dummy[1];
        gloo::AlltoallvOptions options(context);
        options.setInput(input ? static_cast<T *>(const_cast<void *>(input))
                               : dummy,
                         sendCounts);
        options.setOutput(output ? static_cast<T *>(output) : dummy,
                          recvCounts);
        options.setTag(nextTag++);
        gloo::alltoallv(options);
      });
    });
  }

  absl::Status doBroadcast(DType dtype, void *data, int64_t count,
                           int root) override {
    return guard(describe("broadcast", dtype, count) + " from rank " +
                     std::to_string(root),
                 [&] {
                   withElementOfSize(dtypeSize(dtype), [&](auto zero) {
                     using T = decltype(zero);
                     gloo::BroadcastOptions options(context);
                     options.setOutput(static_cast<T *>(data), count);
                     options.setRoot(root);
                     options.setTag(nextTag++);
                     gloo::broadcast(options);
                   });
                 });
  }

  absl::Status doSend(DType dtype, const void *data, int64_t count, int peer,
                      uint32_t tag) override {
    return pointToPoint(describe("send", dtype, count) + " to rank " +
                            std::to_string(peer) + " (tag " +
                            std::to_string(tag) + ")",
                        const_cast<void *>(data), count * dtypeSize(dtype),
                        peer, tag, /*sending=*/true);
  }

  absl::Status doRecv(DType dtype, void *data, int64_t count, int peer,
                      uint32_t tag) override {
    return pointToPoint(describe("recv", dtype, count) + " from rank " +
                            std::to_string(peer) + " (tag " +
                            std::to_string(tag) + ")",
                        data, count * dtypeSize(dtype), peer, tag,
                        /*sending=*/false);
  }

private:
  absl::Status pointToPoint(const std::string &what, void *data, size_t bytes,
                            int peer, uint32_t tag, bool sending) {
    return guard(what, [&] {
      if (bytes == 0)
        return;
      auto buffer = context->createUnboundBuffer(data, bytes);
      uint64_t slot = gloo::Slot::build(kPointToPointSlotPrefix, tag);
      bool done;
      if (sending) {
        buffer->send(peer, slot);
        done = buffer->waitSend(timeoutMs);
      } else {
        buffer->recv(peer, slot);
        done = buffer->waitRecv(timeoutMs);
      }
      if (!done)
        throw gloo::IoException("aborted");
    });
  }

  /// Runs `body`, turning Gloo's exceptions into an error about `what`.
  template <typename Body>
  absl::Status guard(const std::string &what, Body &&body) {
    std::string message;
    try {
      body();
      return absl::OkStatus();
    } catch (const std::exception &error) {
      message = error.what();
    } catch (...) {
      message = "unknown exception";
    }
    return isTimeoutMessage(message)
               ? absl::DeadlineExceededError(
                     who() + ": " + what + " timed out after " +
                     std::to_string(timeoutMs.count()) +
                     " ms waiting for its peers (gloo: " + message + ")")
               : absl::UnavailableError(who() + ": " + what +
                                        " failed: " + peerIn(message) +
                                        " closed its connection or "
                                        "misbehaved (gloo: " +
                                        message + ")");
  }

  /// "rank N" for the member whose address Gloo's `message` names (the
  /// only other member of a pair of ranks: the side that accepted a
  /// connection sees the peer's ephemeral port), else "a peer".
  std::string peerIn(const std::string &message) const {
    if (size() == 2)
      return "rank " + std::to_string(ranks[1 - rank()]);
    for (int member = 0; store && member < size(); ++member) {
      if (member == rank())
        continue;
      absl::StatusOr<std::string> address =
          store->get(addressKey(key, member), std::chrono::milliseconds(1));
      if (!address.ok())
        continue;
      for (absl::string_view line : absl::StrSplit(*address, '\n'))
        if (!line.empty() && absl::StrContains(message, line))
          return "rank " + std::to_string(ranks[member]);
    }
    return "a peer";
  }

  std::shared_ptr<gloo::rendezvous::Context> context;
  std::chrono::milliseconds timeoutMs;
  std::shared_ptr<ofrt::Store> store;
  std::string key;
  std::vector<int64_t> ranks;
  /// Collectives' tags: all ranks call them in the same order.
  uint32_t nextTag = 0;
};

/// The job's store as a Gloo store: Gloo waits for its peers' addresses
/// through it.
class StoreAdapter : public gloo::rendezvous::Store {
public:
  StoreAdapter(std::shared_ptr<ofrt::Store> store, std::string prefix,
               std::chrono::milliseconds timeout)
      : store(std::move(store)), prefix(std::move(prefix) + "/"),
        timeout(timeout) {}

  void set(const std::string &key, const std::vector<char> &data) override {
    raise(store->set(prefix + key, std::string(data.begin(), data.end())));
  }
  std::vector<char> get(const std::string &key) override {
    absl::StatusOr<std::string> value = store->get(prefix + key, timeout);
    if (!value.ok())
      raise(value.status(), {key});
    return std::vector<char>(value->begin(), value->end());
  }
  void wait(const std::vector<std::string> &keys) override {
    wait(keys, timeout);
  }
  void wait(const std::vector<std::string> &keys,
            const std::chrono::milliseconds &limit) override {
    std::vector<std::string> full;
    for (const std::string &key : keys)
      full.push_back(prefix + key);
    absl::Status status = store->wait(full, limit);
    if (!status.ok())
      raise(status, keys);
  }

private:
  /// Throws as Gloo's stores do; a timeout lists the keys still missing
  /// ("Wait timeout for key(s): 1, 2"; the keys are group ranks).
  void raise(const absl::Status &status,
             const std::vector<std::string> &keys = {}) {
    if (status.ok())
      return;
    if (absl::IsDeadlineExceeded(status)) {
      std::string missing;
      for (const std::string &key : keys)
        if (!store->get(prefix + key, std::chrono::milliseconds(1)).ok())
          missing += (missing.empty() ? "" : ", ") + key;
      throw gloo::IoException("Wait timeout for key(s): " + missing);
    }
    throw gloo::IoException(std::string(status.message()));
  }

  std::shared_ptr<ofrt::Store> store;
  std::string prefix;
  std::chrono::milliseconds timeout;
};

/// What a failed join says: the members that did not come, by global rank.
absl::Status joinError(const std::string &who, const std::string &message,
                       const std::vector<int64_t> &ranks,
                       std::chrono::milliseconds timeout) {
  std::string what = who + ": joining the group failed";
  std::string missing;
  if (size_t keys = message.find("key(s): "); keys != std::string::npos) {
    std::string list = message.substr(keys + 8);
    size_t start = 0;
    while (start < list.size()) {
      size_t end = std::min(list.find(", ", start), list.size());
      std::string key = list.substr(start, end - start);
      char *rest = nullptr;
      long index = std::strtol(key.c_str(), &rest, 10);
      if (!key.empty() && *rest == '\0' && index >= 0 &&
          index < static_cast<long>(ranks.size()))
        key = std::to_string(ranks[index]);
      missing += (missing.empty() ? "" : ", ") + key;
      start = end + 2;
    }
    return absl::DeadlineExceededError(
        what + ": not every rank joined within " +
        std::to_string(timeout.count()) + " ms; missing rank(s) " + missing);
  }
  if (isTimeoutMessage(message))
    return absl::DeadlineExceededError(what + ": not every rank joined within " +
                                       std::to_string(timeout.count()) +
                                       " ms (gloo: " + message + ")");
  return absl::UnavailableError(what + " (gloo: " + message + ")");
}

class GlooCollectives : public Collectives {
public:
  GlooCollectives(const CollectivesOptions &options,
                  std::shared_ptr<gloo::transport::Device> device)
      : options(options), device(std::move(device)) {}

  std::string name() const override { return "gloo"; }

  absl::StatusOr<std::unique_ptr<Communicator>>
  join(const std::vector<int64_t> &ranks, int position,
       const std::string &key) override {
    int size = ranks.size();
    std::string who =
        "rank " + std::to_string(position) + " of " + std::to_string(size);
    try {
      StoreAdapter store(options.store, key, options.timeout);
      auto context =
          std::make_shared<gloo::rendezvous::Context>(position, size);
      context->setTimeout(options.timeout);
      context->connectFullMesh(store, device);
      std::string addresses;
      for (int peer = 0; peer < size; ++peer)
        if (peer != position)
          addresses += context->getPair(peer)->address().str() + "\n";
      (void)options.store->set(addressKey(key, position), addresses);
      return std::unique_ptr<Communicator>(new GlooCommunicator(
          std::move(context), options.timeout, options.store, key, ranks));
    } catch (const std::exception &error) {
      return joinError(who, error.what(), ranks, options.timeout);
    }
  }

  absl::StatusOr<std::unique_ptr<ControlChannel>> controlChannel() override {
    return createStoreControlChannel(options.store, options.rank,
                                     options.worldSize, options.timeout);
  }

private:
  CollectivesOptions options;
  std::shared_ptr<gloo::transport::Device> device;
};

} // namespace

void ofrt::registerGlooCollectives(CollectivesRegistry &registry) {
  registry.add(
      "gloo", "TCP between any processes that share a store (Gloo)",
      [](const CollectivesOptions &options)
          -> absl::StatusOr<std::unique_ptr<Collectives>> {
        if (!options.store)
          return absl::InvalidArgumentError("the gloo collectives need a store");
        // This Gloo dereferences a null address for a name that does not
        // resolve, so resolve it first.
        addrinfo hints{}, *found = nullptr;
        hints.ai_socktype = SOCK_STREAM;
        if (int error = getaddrinfo(options.hostname.c_str(), nullptr, &hints,
                                    &found))
          return absl::InvalidArgumentError("cannot listen on '" +
                                            options.hostname +
                                            "': " + gai_strerror(error));
        freeaddrinfo(found);
        try {
          gloo::transport::tcp::attr attr;
          attr.hostname = options.hostname;
          return std::unique_ptr<Collectives>(new GlooCollectives(
              options, gloo::transport::tcp::CreateDevice(attr)));
        } catch (const std::exception &error) {
          return absl::UnavailableError("cannot listen on '" +
                                        options.hostname +
                                        "' (gloo: " + error.what() + ")");
        }
      });
}
