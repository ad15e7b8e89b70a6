//===- Communicator.h - Collectives between the ranks of a job --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every collective of the runtime goes through one interface, whichever
// library (Collectives.h) made the communicator: inproc, gloo or mpi on
// host memory, a GPU library later. All ranks of a communicator call the
// same collectives in the same order with the same counts. Chunks follow
// OneFlow's balanced split: 10 rows over 4 ranks are 3, 3, 2, 2
// (ofsupport::balancedSplit).
//
// Nothing hangs or crashes: a peer that disappears or does not answer within
// the timeout given at creation is an absl error naming this rank and the
// collective. After any error from a library's call the communicator is
// broken: every later call fails at once (the peers' state is unknown), and
// the job should stop. This class keeps that state for every library.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_COMMUNICATOR_H
#define OFRT_COMMUNICATOR_H

#include "ofrt/ReduceOp.h"
#include "ofrt/Tensor.h"

#include "absl/status/status.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace ofrt {

/// A group of `size()` ranks. Public calls check their arguments (counts,
/// ranks, shapes, element types) and then call the backend. Reductions sum,
/// or take the maximum or minimum, of f32, f64, i32 and i64; data movement
/// takes any element type.
class Communicator {
public:
  virtual ~Communicator();

  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// How long one call waits for its peers before it fails.
  virtual std::chrono::milliseconds timeout() const = 0;

  //===--------------------------------------------------------------------===//
  // Raw buffers: `count` elements of `dtype`.
  //===--------------------------------------------------------------------===//

  /// output = sum (max, min) over ranks of input (input may equal output).
  absl::Status allReduce(DType dtype, const void *input, void *output,
                         int64_t count, ReduceOp op = ReduceOp::Sum);
  /// input holds `count` elements on every rank, seen as count / rowSize rows
  /// split balanced over the ranks; output receives this rank's chunk of the
  /// sum (max, min). `rowSize` must divide `count`.
  absl::Status reduceScatter(DType dtype, const void *input, void *output,
                             int64_t count, int64_t rowSize = 1,
                             ReduceOp op = ReduceOp::Sum);
  /// input holds this rank's balanced chunk of `count` elements (rows of
  /// `rowSize`); output receives all `count`, chunks in rank order.
  absl::Status allGather(DType dtype, const void *input, void *output,
                         int64_t count, int64_t rowSize = 1);
  /// input and output hold `count` elements, a multiple of size(): chunk j
  /// of input goes to rank j, chunk i of output comes from rank i.
  absl::Status allToAll(DType dtype, const void *input, void *output,
                        int64_t count);
  /// Uneven all-to-all: input holds size() consecutive chunks, chunk j of
  /// `sendCounts[j]` elements going to rank j; output receives size()
  /// consecutive chunks, chunk i of `recvCounts[i]` elements from rank i.
  /// Rank i's sendCounts[j] must equal rank j's recvCounts[i].
  absl::Status allToAllV(DType dtype, const void *input,
                         const std::vector<int64_t> &sendCounts, void *output,
                         const std::vector<int64_t> &recvCounts);
  /// Every rank's `data` receives root's.
  absl::Status broadcast(DType dtype, void *data, int64_t count, int root);
  /// Point to point; a send matches the recv with the same peer and tag.
  /// Both return once the transfer is done: a send waits for its recv to be
  /// posted, so a ring alternates (even ranks send first, odd ranks recv).
  absl::Status send(DType dtype, const void *data, int64_t count, int peer,
                    uint32_t tag);
  absl::Status recv(DType dtype, void *data, int64_t count, int peer,
                    uint32_t tag);

  //===--------------------------------------------------------------------===//
  // Tensors: chunks are balanced along axis 0 (S(0)).
  //===--------------------------------------------------------------------===//

  /// input and output have the same description.
  absl::Status allReduce(const TensorView &input, const TensorView &output,
                         ReduceOp op = ReduceOp::Sum);
  /// output is this rank's S(0) piece of input's shape.
  absl::Status reduceScatter(const TensorView &input, const TensorView &output,
                             ReduceOp op = ReduceOp::Sum);
  /// input is this rank's S(0) piece of output's shape.
  absl::Status allGather(const TensorView &input, const TensorView &output);
  /// Same description; axis 0 is a multiple of size().
  absl::Status allToAll(const TensorView &input, const TensorView &output);
  absl::Status broadcast(const TensorView &data, int root);
  absl::Status send(const TensorView &data, int peer, uint32_t tag);
  absl::Status recv(const TensorView &data, int peer, uint32_t tag);

protected:
  /// "rank 2 of 4".
  std::string who() const;
  /// Whether a backend call has failed; every call fails from then on.
  bool isBroken() const { return !brokenBy.empty(); }
  /// Called once, with the first error a backend call returned (a backend
  /// whose peers must learn of it at once tells them here).
  virtual void onBroken(const absl::Status &status) {}

  // Backends implement these on checked arguments. `chunks` are element
  // counts per rank, summing to the whole buffer.
  virtual absl::Status doAllReduce(DType dtype, const void *input, void *output,
                                   int64_t count, ReduceOp op) = 0;
  virtual absl::Status doReduceScatter(DType dtype, const void *input,
                                       void *output,
                                       const std::vector<int64_t> &chunks,
                                       ReduceOp op) = 0;
  virtual absl::Status doAllGather(DType dtype, const void *input, void *output,
                                   const std::vector<int64_t> &chunks) = 0;
  virtual absl::Status doAllToAll(DType dtype, const void *input, void *output,
                                  int64_t count) = 0;
  virtual absl::Status doAllToAllV(DType dtype, const void *input,
                                   const std::vector<int64_t> &sendCounts,
                                   void *output,
                                   const std::vector<int64_t> &recvCounts) = 0;
  virtual absl::Status doBroadcast(DType dtype, void *data, int64_t count,
                                   int root) = 0;
  virtual absl::Status doSend(DType dtype, const void *data, int64_t count,
                              int peer, uint32_t tag) = 0;
  virtual absl::Status doRecv(DType dtype, void *data, int64_t count, int peer,
                              uint32_t tag) = 0;

private:
  /// An error naming the call when the communicator is broken.
  absl::Status unlessBroken(const char *op, DType dtype, int64_t count) const;
  /// Returns `status`, breaking the communicator on the first error.
  absl::Status record(absl::Status status);

  /// The first error's message; non-empty once broken.
  std::string brokenBy;
};

/// Whether reductions (allReduce, reduceScatter) support `dtype`.
bool isReducible(DType dtype);

} // namespace ofrt

#endif // OFRT_COMMUNICATOR_H
