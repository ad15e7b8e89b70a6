//===- NcclCollectives.cpp - The nccl library: groups and collectives -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Joining: every member of a group publishes in the store that it came, and
// member 0 publishes NCCL's unique id; once all have come (else the error
// names the missing ranks, as every library's does), each creates a
// non-blocking NCCL communicator on its GPU and polls until NCCL has
// connected the group, aborting it after the timeout.
//
// Collectives: all-reduce, broadcast, and reduce-scatter and all-gather
// when every chunk is the same, are NCCL's. Uneven chunks (OneFlow's
// balanced split) are one group of NCCL calls, one per rank: a reduce to
// rank j of chunk j, a broadcast from rank j of chunk j, which NCCL runs
// together. All-to-all is a group of sends and receives (the rank's own
// chunk included). Data movement goes as bytes, so it takes every element
// type. Chunks of zero elements are left out on every rank alike.
//
//===----------------------------------------------------------------------===//

#include "Backends/Cuda/CudaDevice.h"
#include "Collectives/Nccl/NcclCommunicator.h"
#include "Collectives/CollectiveUtils.h"

#include "ofrt/Status.h"

#include <nccl.h>

#include <algorithm>
#include <cstdio>
#include <numeric>

#if NCCL_VERSION_CODE < NCCL_VERSION(2, 14, 0)
#error "the nccl collectives need NCCL 2.14 or later (non-blocking init)"
#endif

using namespace ofrt;
using namespace ofrt::cuda;
using namespace ofrt::collectives;
using Clock = std::chrono::steady_clock;

static ncclDataType_t reducibleType(DType dtype) {
  switch (dtype) {
  case DType::F64:
    return ncclFloat64;
  case DType::I32:
    return ncclInt32;
  case DType::I64:
    return ncclInt64;
  default:
    return ncclFloat32;
  }
}

static ncclRedOp_t ncclOp(ReduceOp op) {
  switch (op) {
  case ReduceOp::Max:
    return ncclMax;
  case ReduceOp::Min:
    return ncclMin;
  case ReduceOp::Sum:
    break;
  }
  return ncclSum;
}

/// Element offsets of consecutive chunks of `counts` elements.
static std::vector<int64_t> offsetsOf(const std::vector<int64_t> &counts) {
  std::vector<int64_t> offsets(counts.size(), 0);
  for (size_t i = 1; i < counts.size(); ++i)
    offsets[i] = offsets[i - 1] + counts[i - 1];
  return offsets;
}

static int64_t total(const std::vector<int64_t> &counts) {
  return std::accumulate(counts.begin(), counts.end(), int64_t{0});
}

static bool allEqual(const std::vector<int64_t> &counts) {
  return std::all_of(counts.begin(), counts.end(),
                     [&](int64_t c) { return c == counts[0]; });
}

/// Runs `body` between ncclGroupStart and ncclGroupEnd; the first error.
template <typename Body> static ncclResult_t grouped(Body &&body) {
  ncclResult_t result = ncclGroupStart();
  if (result != ncclSuccess)
    return result;
  result = body();
  ncclResult_t end = ncclGroupEnd();
  return result != ncclSuccess ? result : end;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

absl::Status NcclCommunicator::doAllReduce(DType dtype, const void *input,
                                           void *output, int64_t n,
                                           ReduceOp op) {
  size_t bytes = n * dtypeSize(dtype);
  if (n == 0)
    return absl::OkStatus();
  return call(describe("all_reduce", dtype, n), input, bytes, output, bytes,
              [&](const char *in, char *out, cudaStream_t s) {
                return ncclAllReduce(in, out, n, reducibleType(dtype),
                                     ncclOp(op), comm, s);
              });
}

absl::Status
NcclCommunicator::doReduceScatter(DType dtype, const void *input, void *output,
                                  const std::vector<int64_t> &chunks,
                                  ReduceOp op) {
  size_t element = dtypeSize(dtype);
  std::vector<int64_t> at = offsetsOf(chunks);
  ncclDataType_t type = reducibleType(dtype);
  if (total(chunks) == 0)
    return absl::OkStatus();
  return call(describe("reduce_scatter", dtype, chunks[me]), input,
              total(chunks) * element, output, chunks[me] * element,
              [&](const char *in, char *out, cudaStream_t s) {
                if (allEqual(chunks))
                  return ncclReduceScatter(in, out, chunks[me], type,
                                           ncclOp(op), comm, s);
                return grouped([&] {
                  ncclResult_t result = ncclSuccess;
                  for (int j = 0; j < count && result == ncclSuccess; ++j)
                    if (chunks[j])
                      result = ncclReduce(in + at[j] * element,
                                          j == me ? out : nullptr, chunks[j],
                                          type, ncclOp(op), j, comm, s);
                  return result;
                });
              });
}

absl::Status NcclCommunicator::doAllGather(DType dtype, const void *input,
                                           void *output,
                                           const std::vector<int64_t> &chunks) {
  size_t element = dtypeSize(dtype);
  std::vector<int64_t> at = offsetsOf(chunks);
  int64_t n = total(chunks);
  if (n == 0)
    return absl::OkStatus();
  return call(describe("all_gather", dtype, n), input, chunks[me] * element,
              output, n * element,
              [&](const char *in, char *out, cudaStream_t s) {
                if (allEqual(chunks))
                  return ncclAllGather(in, out, chunks[me] * element, ncclUint8,
                                       comm, s);
                return grouped([&] {
                  ncclResult_t result = ncclSuccess;
                  for (int j = 0; j < count && result == ncclSuccess; ++j)
                    if (char *chunk = out + at[j] * element; chunks[j])
                      result = ncclBroadcast(j == me ? in : chunk, chunk,
                                             chunks[j] * element, ncclUint8, j,
                                             comm, s);
                  return result;
                });
              });
}

absl::Status NcclCommunicator::exchange(const char *op, DType dtype,
                                        const void *input,
                                        const std::vector<int64_t> &sends,
                                        void *output,
                                        const std::vector<int64_t> &recvs) {
  size_t element = dtypeSize(dtype);
  std::vector<int64_t> sendAt = offsetsOf(sends), recvAt = offsetsOf(recvs);
  if (total(sends) == 0 && total(recvs) == 0)
    return absl::OkStatus();
  return call(
      describe(op, dtype, total(sends)), input, total(sends) * element, output,
      total(recvs) * element, [&](const char *in, char *out, cudaStream_t s) {
        return grouped([&] {
          ncclResult_t result = ncclSuccess;
          for (int j = 0; j < count && result == ncclSuccess; ++j) {
            if (sends[j])
              result = ncclSend(in + sendAt[j] * element, sends[j] * element,
                                ncclUint8, j, comm, s);
            if (recvs[j] && result == ncclSuccess)
              result = ncclRecv(out + recvAt[j] * element, recvs[j] * element,
                                ncclUint8, j, comm, s);
          }
          return result;
        });
      });
}

absl::Status NcclCommunicator::doAllToAll(DType dtype, const void *input,
                                          void *output, int64_t n) {
  std::vector<int64_t> chunks(count, n / count);
  return exchange("all_to_all", dtype, input, chunks, output, chunks);
}

absl::Status NcclCommunicator::doAllToAllV(
    DType dtype, const void *input, const std::vector<int64_t> &sendCounts,
    void *output, const std::vector<int64_t> &recvCounts) {
  return exchange("all_to_all_v", dtype, input, sendCounts, output, recvCounts);
}

absl::Status NcclCommunicator::doBroadcast(DType dtype, void *data, int64_t n,
                                           int root) {
  size_t bytes = n * dtypeSize(dtype);
  if (n == 0)
    return absl::OkStatus();
  return call(
      describe("broadcast", dtype, n) + " from rank " + std::to_string(root),
      data, bytes, data, bytes, [&](const char *in, char *out, cudaStream_t s) {
        return ncclBroadcast(in, out, bytes, ncclUint8, root, comm, s);
      });
}

absl::Status NcclCommunicator::doSend(DType dtype, const void *data, int64_t n,
                                      int peer, uint32_t tag) {
  size_t bytes = n * dtypeSize(dtype);
  if (n == 0)
    return absl::OkStatus();
  return call(describe("send", dtype, n) + " to rank " + std::to_string(peer) +
                  " (tag " + std::to_string(tag) + ")",
              data, bytes, nullptr, 0,
              [&](const char *in, char *, cudaStream_t s) {
                return ncclSend(in, bytes, ncclUint8, peer, comm, s);
              });
}

absl::Status NcclCommunicator::doRecv(DType dtype, void *data, int64_t n,
                                      int peer, uint32_t tag) {
  size_t bytes = n * dtypeSize(dtype);
  if (n == 0)
    return absl::OkStatus();
  return call(describe("recv", dtype, n) + " from rank " +
                  std::to_string(peer) + " (tag " + std::to_string(tag) + ")",
              nullptr, 0, data, bytes,
              [&](const char *, char *out, cudaStream_t s) {
                return ncclRecv(out, bytes, ncclUint8, peer, comm, s);
              });
}

//===----------------------------------------------------------------------===//
// The library
//===----------------------------------------------------------------------===//

static std::string toHex(const ncclUniqueId &id) {
  static const char digits[] = "0123456789abcdef";
  std::string text;
  for (char byte : id.internal) {
    text += digits[(byte >> 4) & 0xf];
    text += digits[byte & 0xf];
  }
  return text;
}

static bool fromHex(const std::string &text, ncclUniqueId &id) {
  if (text.size() != 2 * sizeof(id.internal))
    return false;
  for (size_t i = 0; i < sizeof(id.internal); ++i) {
    unsigned value = 0;
    if (std::sscanf(text.c_str() + 2 * i, "%2x", &value) != 1)
      return false;
    id.internal[i] = static_cast<char>(value);
  }
  return true;
}

namespace {
class NcclCollectives : public Collectives {
public:
  NcclCollectives(const CollectivesOptions &options, int device)
      : options(options), device(device) {}

  std::string name() const override { return "nccl"; }

  absl::StatusOr<std::unique_ptr<Communicator>>
  join(const std::vector<int64_t> &ranks, int position,
       const std::string &key) override;

  absl::StatusOr<std::unique_ptr<ControlChannel>> controlChannel() override {
    return createStoreControlChannel(options.store, options.rank,
                                     options.worldSize, options.timeout);
  }

private:
  CollectivesOptions options;
  int device;
};
} // namespace

absl::StatusOr<std::unique_ptr<Communicator>>
NcclCollectives::join(const std::vector<int64_t> &ranks, int position,
                      const std::string &key) {
  int size = ranks.size();
  std::string who = "rank " + std::to_string(position) + " of " +
                    std::to_string(size) + ": joining the group failed";
  std::string within = std::to_string(options.timeout.count()) + " ms";
  auto failed = [&](absl::Status status) {
    return absl::Status(status.code(),
                        who + ": " + std::string(status.message()));
  };
  int gpu = device;
  if (gpu < 0 && cudaGetDevice(&gpu) != cudaSuccess)
    return absl::UnavailableError(who + ": no CUDA device is usable here");
  DeviceScope scope(gpu);

  // Everyone says it came; member 0 also publishes the id.
  std::string prefix = key + "/nccl/";
  if (position == 0) {
    ncclUniqueId id;
    if (ncclResult_t result = ncclGetUniqueId(&id); result != ncclSuccess)
      return absl::UnavailableError(
          who + ": ncclGetUniqueId failed: " + ncclGetErrorString(result) +
          " (nccl: " + ncclGetLastError(nullptr) + ")");
    if (absl::Status status = options.store->set(prefix + "id", toHex(id));
        !status.ok())
      return failed(status);
  }
  std::vector<std::string> came;
  for (int q = 0; q < size; ++q)
    came.push_back(prefix + "came/" + std::to_string(q));
  if (absl::Status status = options.store->set(came[position], "1");
      !status.ok())
    return failed(status);
  if (absl::Status status = options.store->wait(came, options.timeout);
      !status.ok()) {
    if (!absl::IsDeadlineExceeded(status))
      return failed(status);
    std::string missing;
    for (int q = 0; q < size; ++q)
      if (!options.store->get(came[q], std::chrono::milliseconds(1)).ok())
        missing += (missing.empty() ? "" : ", ") + std::to_string(ranks[q]);
    return absl::DeadlineExceededError(who + ": not every rank joined within " +
                                       within + "; missing rank(s) " + missing);
  }
  absl::StatusOr<std::string> text =
      options.store->get(prefix + "id", options.timeout);
  if (!text.ok())
    return failed(text.status());
  ncclUniqueId id;
  if (!fromHex(*text, id))
    return absl::InternalError(who +
                               ": the store holds no NCCL id for the "
                               "group under '" +
                               prefix + "id'");

  // Everyone has come: NCCL connects them, within a timeout of its own.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  ncclComm_t comm = nullptr;
  ncclResult_t state =
      ncclCommInitRankConfig(&comm, size, id, position, &config);
  Clock::time_point deadline = Clock::now() + options.timeout;
  for (int polls = 0; comm && state == ncclInProgress; pauseBeforePoll(++polls))
    if (ncclCommGetAsyncError(comm, &state) != ncclSuccess ||
        Clock::now() >= deadline)
      break;
  if (state != ncclSuccess) {
    std::string detail = ncclGetLastError(comm);
    if (comm)
      ncclCommAbort(comm);
    if (state == ncclInProgress)
      return absl::DeadlineExceededError(
          who + ": NCCL did not connect the group within " + within);
    return absl::UnavailableError(
        who + ": ncclCommInitRankConfig on cuda:" + std::to_string(gpu) +
        " failed: " + ncclGetErrorString(state) +
        (detail.empty() ? "" : " (nccl: " + detail + ")") +
        (state == ncclInvalidUsage ? "; each rank needs a GPU of its own"
                                   : ""));
  }
  absl::StatusOr<std::unique_ptr<NcclCommunicator>> made =
      NcclCommunicator::create(comm, gpu, position, size, options.timeout);
  if (!made.ok())
    return failed(made.status());
  return std::unique_ptr<Communicator>(std::move(*made));
}

absl::StatusOr<std::unique_ptr<Collectives>>
cuda::createNcclCollectives(const CollectivesOptions &options, int device) {
  if (!options.store)
    return absl::InvalidArgumentError("the nccl collectives need a store");
  absl::StatusOr<int> gpus = deviceCount();
  if (!gpus.ok())
    return gpus.status();
  if (*gpus == 0 || device >= *gpus)
    return absl::UnavailableError(
        "no cuda:" + std::to_string(std::max(device, 0)) + " here (" +
        std::to_string(*gpus) + " CUDA devices)");
  return std::unique_ptr<Collectives>(new NcclCollectives(options, device));
}

void cuda::registerNcclCollectives(CollectivesRegistry &registry) {
  registry.add("nccl",
               "NCCL between GPUs, one per rank, of processes or threads "
               "that share a store",
               [](const CollectivesOptions &options) {
                 return createNcclCollectives(options);
               });
}
