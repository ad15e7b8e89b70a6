//===- GlooCommunicator.cpp - CPU collectives over Gloo (TCP) -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One gloo::rendezvous::Context per rank, fully connected over TCP on the
// loopback interface. Gloo reports failures by throwing (IoException for a
// closed connection or a timeout, EnforceNotMet for broken invariants); every
// call catches them here and returns an absl error naming this rank and the
// collective. A timeout poisons Gloo's context, so the first error breaks
// the communicator and later calls fail at once.
//
// This Gloo (Debian's 2022 snapshot) has no options-style reduce_scatter:
// reduceScatter is an alltoallv of the chunks followed by a local sum, which
// moves as many bytes as a ring reduce-scatter.
//
//===----------------------------------------------------------------------===//

#include "GlooInternal.h"

#include <gloo/allgatherv.h>
#include <gloo/allreduce.h>
#include <gloo/alltoall.h>
#include <gloo/alltoallv.h>
#include <gloo/broadcast.h>
#include <gloo/common/error.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <cstring>
#include <future>

using namespace ofrt;
using namespace ofrt::gloo_internal;

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

/// Calls fn(T()) with the C++ type of a reducible `dtype`.
template <typename Fn> void withReducible(DType dtype, Fn &&fn) {
  switch (dtype) {
  case DType::F64:
    return fn(double());
  case DType::I32:
    return fn(int32_t());
  case DType::I64:
    return fn(int64_t());
  default:
    return fn(float());
  }
}

/// All-reduces up to this size use Gloo's bcube algorithm, larger ones its
/// ring.
constexpr int64_t kBcubeMaxBytes = 256 * 1024;

template <typename T>
void sum(void *output, const void *lhs, const void *rhs, size_t count) {
  T *out = static_cast<T *>(output);
  const T *a = static_cast<const T *>(lhs);
  const T *b = static_cast<const T *>(rhs);
  for (size_t i = 0; i < count; ++i)
    out[i] = a[i] + b[i];
}

bool isTimeout(const std::string &message) {
  return message.find("imed out") != std::string::npos ||
         message.find("imeout") != std::string::npos;
}

std::string describe(const char *op, DType dtype, int64_t count) {
  return std::string(op) + " of " + std::to_string(count) + " x " +
         dtypeName(dtype);
}

class GlooCommunicator : public Communicator {
public:
  GlooCommunicator(std::shared_ptr<gloo::rendezvous::Context> context,
                   std::chrono::milliseconds timeout)
      : context(std::move(context)), timeoutMs(timeout) {}

  int rank() const override { return context->rank; }
  int size() const override { return context->size; }
  std::chrono::milliseconds timeout() const override { return timeoutMs; }

protected:
  absl::Status doAllReduce(DType dtype, const void *input, void *output,
                           int64_t count) override {
    return guard(describe("all_reduce", dtype, count), [&] {
      withReducible(dtype, [&](auto zero) {
        using T = decltype(zero);
        gloo::AllreduceOptions options(context);
        if (input != output)
          options.setInput(static_cast<T *>(const_cast<void *>(input)), count);
        options.setOutput(static_cast<T *>(output), count);
        options.setReduceFunction(&sum<T>);
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
                               const std::vector<int64_t> &chunks) override {
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
        for (int64_t k = 0; k < mine; ++k) {
          T total = pieces[k];
          for (int i = 1; i < size(); ++i)
            total += pieces[i * mine + k];
          out[k] = total;
        }
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
    int64_t total = 0;
    for (int64_t count : sendCounts)
      total += count;
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
    if (!brokenBy.empty())
      return absl::FailedPreconditionError(
          who() + ": " + what + " on a communicator broken by: " + brokenBy);
    std::string message;
    try {
      body();
      return absl::OkStatus();
    } catch (const std::exception &error) {
      message = error.what();
    } catch (...) {
      message = "unknown exception";
    }
    absl::Status status =
        isTimeout(message)
            ? absl::DeadlineExceededError(
                  who() + ": " + what + " timed out after " +
                  std::to_string(timeoutMs.count()) +
                  " ms waiting for its peers (gloo: " + message + ")")
            : absl::UnavailableError(who() + ": " + what +
                                     " failed: a peer closed its connection "
                                     "or misbehaved (gloo: " +
                                     message + ")");
    brokenBy = std::string(status.message());
    return status;
  }

  std::shared_ptr<gloo::rendezvous::Context> context;
  std::chrono::milliseconds timeoutMs;
  /// Collectives' tags: all ranks call them in the same order.
  uint32_t nextTag = 0;
  /// The first error's message; non-empty once broken.
  std::string brokenBy;
};
} // namespace

absl::StatusOr<std::unique_ptr<Communicator>>
ofrt::createGlooCommunicator(int rank, int size,
                             std::shared_ptr<Rendezvous> rendezvous,
                             std::chrono::milliseconds timeout,
                             std::shared_ptr<Transport> transport,
                             const std::vector<int64_t> *names) {
  std::string who =
      "rank " + std::to_string(rank) + " of " + std::to_string(size);
  auto *meeting = dynamic_cast<GlooRendezvous *>(rendezvous.get());
  if (size < 1 || rank < 0 || rank >= size)
    return absl::InvalidArgumentError(who + ": no such rank");
  if (!meeting)
    return absl::InvalidArgumentError(who + ": not a Gloo rendezvous");
  if (timeout.count() <= 0)
    return absl::InvalidArgumentError(who + ": timeout must be positive");
  if (!transport) {
    absl::StatusOr<std::shared_ptr<Transport>> loopback = createTcpTransport();
    if (!loopback.ok())
      return absl::Status(loopback.status().code(),
                          who + ": " + std::string(loopback.status().message()));
    transport = *loopback;
  }
  auto *tcp = dynamic_cast<TcpTransport *>(transport.get());
  if (!tcp)
    return absl::InvalidArgumentError(who + ": not a Gloo transport");
  try {
    std::shared_ptr<gloo::transport::Device> device = tcp->device;
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, size);
    context->setTimeout(timeout);
    context->connectFullMesh(*meeting->store, device);
    return std::unique_ptr<Communicator>(
        new GlooCommunicator(std::move(context), timeout));
  } catch (const std::exception &error) {
    std::string message = error.what();
    std::string what = who + ": joining the group failed";
    // The store's keys are ranks, under the rendezvous's prefix if any:
    // "Wait timeout for key(s): group_0_2/1, group_0_2/2".
    std::string missing;
    if (size_t keys = message.find("key(s): "); keys != std::string::npos) {
      std::string list = message.substr(keys + 8), ranks;
      size_t start = 0;
      while (start < list.size()) {
        size_t end = std::min(list.find(", ", start), list.size());
        std::string key = list.substr(start, end - start);
        key = key.substr(key.rfind('/') == std::string::npos
                             ? 0
                             : key.rfind('/') + 1);
        char *rest = nullptr;
        long index = std::strtol(key.c_str(), &rest, 10);
        if (!key.empty() && *rest == '\0' && index >= 0 && index < size &&
            names && static_cast<size_t>(size) == names->size())
          key = std::to_string((*names)[index]);
        ranks += (ranks.empty() ? "" : ", ") + key;
        start = end + 2;
      }
      missing = "; missing rank(s) " + ranks;
    }
    if (isTimeout(message))
      return absl::DeadlineExceededError(
          what + ": not every rank joined within " +
          std::to_string(timeout.count()) + " ms" + missing +
          " (gloo: " + message + ")");
    return absl::UnavailableError(what + " (gloo: " + message + ")");
  }
}

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
ofrt::createInProcessGroup(int size, std::chrono::milliseconds timeout) {
  if (size < 1)
    return absl::InvalidArgumentError("a group of " + std::to_string(size) +
                                      " ranks");
  std::shared_ptr<Rendezvous> rendezvous = createInProcessRendezvous();
  std::vector<std::future<absl::StatusOr<std::unique_ptr<Communicator>>>> joins;
  for (int rank = 0; rank < size; ++rank)
    joins.push_back(std::async(std::launch::async, [=] {
      return createGlooCommunicator(rank, size, rendezvous, timeout);
    }));
  std::vector<std::unique_ptr<Communicator>> group;
  absl::Status firstError;
  for (auto &join : joins) {
    absl::StatusOr<std::unique_ptr<Communicator>> member = join.get();
    if (member.ok())
      group.push_back(std::move(*member));
    else if (firstError.ok())
      firstError = member.status();
  }
  if (!firstError.ok())
    return firstError;
  return group;
}
