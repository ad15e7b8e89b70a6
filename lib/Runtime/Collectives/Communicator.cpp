//===- Communicator.cpp - Argument checks and tensor forms ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The checks every backend shares: counts, ranks, element types and, for
// tensors, the S(0) shapes of each collective. Backends see checked calls.
// The first error a backend returns breaks the communicator: the peers'
// state is unknown, so every later call fails at once, saying why.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Communicator.h"
#include "ofsupport/Layout.h"
#include "ofrt/Status.h"

#include "Collectives/CollectiveUtils.h"

#include "absl/status/statusor.h"

#include <numeric>

using namespace ofrt;

Communicator::~Communicator() = default;

bool ofrt::isReducible(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F64 || dtype == DType::I32 ||
         dtype == DType::I64;
}

std::string Communicator::who() const {
  return "rank " + std::to_string(rank()) + " of " + std::to_string(size());
}

namespace {
/// Element counts of the balanced chunks of `count` elements in rows of
/// `rowSize`, one per rank.
std::vector<int64_t> balancedChunks(int64_t count, int64_t rowSize, int parts) {
  std::vector<int64_t> chunks;
  for (const ofsupport::Range &range :
       ofsupport::balancedSplit(count / rowSize, parts))
    chunks.push_back(range.size * rowSize);
  return chunks;
}
} // namespace

namespace {
absl::Status checkCount(const std::string &who, const char *op, DType dtype,
                        int64_t count, bool reduces) {
  if (count < 0)
    return absl::InvalidArgumentError(who + ": " + op + " of " +
                                      std::to_string(count) + " elements");
  if (reduces && !isReducible(dtype))
    return absl::UnimplementedError(who + ": " + op + " cannot reduce " +
                                    dtypeName(dtype) +
                                    " (f32, f64, i32, i64 only)");
  return absl::OkStatus();
}

absl::Status checkRows(const std::string &who, const char *op, int64_t count,
                       int64_t rowSize) {
  if (rowSize < 1 || count % rowSize != 0)
    return absl::InvalidArgumentError(
        who + ": " + op + " of " + std::to_string(count) +
        " elements in rows of " + std::to_string(rowSize));
  return absl::OkStatus();
}

absl::Status checkPeer(const std::string &who, const char *op, int peer,
                       int size, int self) {
  if (peer < 0 || peer >= size || peer == self)
    return absl::InvalidArgumentError(who + ": " + op + " with rank " +
                                      std::to_string(peer));
  return absl::OkStatus();
}
} // namespace

absl::Status Communicator::unlessBroken(const char *op, DType dtype,
                                        int64_t count) const {
  if (brokenBy.empty())
    return absl::OkStatus();
  return absl::FailedPreconditionError(
      who() + ": " + collectives::describe(op, dtype, count) +
      " on a communicator broken by: " + brokenBy);
}

absl::Status Communicator::record(absl::Status status) {
  if (!status.ok() && brokenBy.empty()) {
    brokenBy = std::string(status.message());
    onBroken(status);
  }
  return status;
}

absl::Status Communicator::allReduce(DType dtype, const void *input,
                                     void *output, int64_t count, ReduceOp op) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "all_reduce", dtype, count, true));
  OFRT_RETURN_IF_ERROR(unlessBroken("all_reduce", dtype, count));
  return record(doAllReduce(dtype, input, output, count, op));
}

absl::Status Communicator::reduceScatter(DType dtype, const void *input,
                                         void *output, int64_t count,
                                         int64_t rowSize, ReduceOp op) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "reduce_scatter", dtype, count, true));
  OFRT_RETURN_IF_ERROR(checkRows(who(), "reduce_scatter", count, rowSize));
  OFRT_RETURN_IF_ERROR(unlessBroken("reduce_scatter", dtype, count));
  return record(doReduceScatter(dtype, input, output,
                                balancedChunks(count, rowSize, size()), op));
}

absl::Status Communicator::allGather(DType dtype, const void *input,
                                     void *output, int64_t count,
                                     int64_t rowSize) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "all_gather", dtype, count, false));
  OFRT_RETURN_IF_ERROR(checkRows(who(), "all_gather", count, rowSize));
  OFRT_RETURN_IF_ERROR(unlessBroken("all_gather", dtype, count));
  return record(doAllGather(dtype, input, output,
                            balancedChunks(count, rowSize, size())));
}

absl::Status Communicator::allToAll(DType dtype, const void *input,
                                    void *output, int64_t count) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "all_to_all", dtype, count, false));
  if (count % size() != 0)
    return absl::InvalidArgumentError(
        who() + ": all_to_all of " + std::to_string(count) +
        " elements, not a multiple of " + std::to_string(size()));
  OFRT_RETURN_IF_ERROR(unlessBroken("all_to_all", dtype, count));
  return record(doAllToAll(dtype, input, output, count));
}

absl::Status Communicator::allToAllV(DType dtype, const void *input,
                                     const std::vector<int64_t> &sendCounts,
                                     void *output,
                                     const std::vector<int64_t> &recvCounts) {
  if (sendCounts.size() != static_cast<size_t>(size()) ||
      recvCounts.size() != static_cast<size_t>(size()))
    return absl::InvalidArgumentError(
        who() + ": all_to_all_v needs one count per rank, got " +
        std::to_string(sendCounts.size()) + " and " +
        std::to_string(recvCounts.size()));
  for (size_t i = 0; i < sendCounts.size(); ++i) {
    OFRT_RETURN_IF_ERROR(
        checkCount(who(), "all_to_all_v", dtype, sendCounts[i], false));
    OFRT_RETURN_IF_ERROR(
        checkCount(who(), "all_to_all_v", dtype, recvCounts[i], false));
  }
  int64_t total =
      std::accumulate(sendCounts.begin(), sendCounts.end(), int64_t{0});
  OFRT_RETURN_IF_ERROR(unlessBroken("all_to_all_v", dtype, total));
  return record(doAllToAllV(dtype, input, sendCounts, output, recvCounts));
}

absl::Status Communicator::broadcast(DType dtype, void *data, int64_t count,
                                     int root) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "broadcast", dtype, count, false));
  if (root < 0 || root >= size())
    return absl::InvalidArgumentError(who() + ": broadcast from rank " +
                                      std::to_string(root));
  OFRT_RETURN_IF_ERROR(unlessBroken("broadcast", dtype, count));
  return record(doBroadcast(dtype, data, count, root));
}

absl::Status Communicator::send(DType dtype, const void *data, int64_t count,
                                int peer, uint32_t tag) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "send", dtype, count, false));
  OFRT_RETURN_IF_ERROR(checkPeer(who(), "send", peer, size(), rank()));
  OFRT_RETURN_IF_ERROR(unlessBroken("send", dtype, count));
  return record(doSend(dtype, data, count, peer, tag));
}

absl::Status Communicator::recv(DType dtype, void *data, int64_t count,
                                int peer, uint32_t tag) {
  OFRT_RETURN_IF_ERROR(checkCount(who(), "recv", dtype, count, false));
  OFRT_RETURN_IF_ERROR(checkPeer(who(), "recv", peer, size(), rank()));
  OFRT_RETURN_IF_ERROR(unlessBroken("recv", dtype, count));
  return record(doRecv(dtype, data, count, peer, tag));
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

namespace {
absl::Status mismatch(const std::string &who, const char *op,
                      const TensorDesc &got, const TensorDesc &expected) {
  return absl::InvalidArgumentError(who + ": " + op + " got " + got.str() +
                                    ", expected " + expected.str());
}

/// `desc` with axis 0 cut to rank's balanced piece.
absl::StatusOr<TensorDesc> piece(const std::string &who, const char *op,
                                 const TensorDesc &desc, int size, int rank) {
  if (desc.shape.empty())
    return absl::InvalidArgumentError(who + ": " + op +
                                      " of a scalar (needs axis 0)");
  TensorDesc result = desc;
  result.shape[0] = ofsupport::balancedPart(desc.shape[0], size, rank).size;
  return result;
}

int64_t rowSize(const TensorDesc &desc) {
  return desc.shape.empty() || desc.shape[0] == 0
             ? 1
             : desc.numel() / desc.shape[0];
}
} // namespace

absl::Status Communicator::allReduce(const TensorView &input,
                                     const TensorView &output, ReduceOp op) {
  if (input.desc != output.desc)
    return mismatch(who(), "all_reduce", output.desc, input.desc);
  return allReduce(input.desc.dtype, input.data, output.data,
                   input.desc.numel(), op);
}

absl::Status Communicator::reduceScatter(const TensorView &input,
                                         const TensorView &output,
                                         ReduceOp op) {
  absl::StatusOr<TensorDesc> expected =
      piece(who(), "reduce_scatter", input.desc, size(), rank());
  if (!expected.ok())
    return expected.status();
  if (output.desc != *expected)
    return mismatch(who(), "reduce_scatter", output.desc, *expected);
  return reduceScatter(input.desc.dtype, input.data, output.data,
                       input.desc.numel(), rowSize(input.desc), op);
}

absl::Status Communicator::allGather(const TensorView &input,
                                     const TensorView &output) {
  absl::StatusOr<TensorDesc> expected =
      piece(who(), "all_gather", output.desc, size(), rank());
  if (!expected.ok())
    return expected.status();
  if (input.desc != *expected)
    return mismatch(who(), "all_gather", input.desc, *expected);
  return allGather(output.desc.dtype, input.data, output.data,
                   output.desc.numel(), rowSize(output.desc));
}

absl::Status Communicator::allToAll(const TensorView &input,
                                    const TensorView &output) {
  if (input.desc != output.desc)
    return mismatch(who(), "all_to_all", output.desc, input.desc);
  if (input.desc.shape.empty() || input.desc.shape[0] % size() != 0)
    return absl::InvalidArgumentError(
        who() + ": all_to_all of " + input.desc.str() +
        ": axis 0 is not a multiple of " + std::to_string(size()));
  return allToAll(input.desc.dtype, input.data, output.data,
                  input.desc.numel());
}

absl::Status Communicator::broadcast(const TensorView &data, int root) {
  return broadcast(data.desc.dtype, data.data, data.desc.numel(), root);
}

absl::Status Communicator::send(const TensorView &data, int peer,
                                uint32_t tag) {
  return send(data.desc.dtype, data.data, data.desc.numel(), peer, tag);
}

absl::Status Communicator::recv(const TensorView &data, int peer,
                                uint32_t tag) {
  return recv(data.desc.dtype, data.data, data.desc.numel(), peer, tag);
}
