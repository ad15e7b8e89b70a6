//===- NcclCommunicator.h - Collectives between GPUs, NCCL ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to the runtime's CUDA backend. The "nccl" collective library: one
// NCCL communicator per group, each rank on the GPU that is current on the
// thread that joins it (the engine binds that thread to the rank's device
// while it creates kernels, and kernels join their groups then). Member 0
// of a group makes NCCL's unique id and publishes it in the job's store;
// every member also publishes that it came, so a join that times out names
// the missing ranks before NCCL is asked to connect.
//
// Calls keep the communicator contract (Communicator.h): each returns once
// its transfer is done. The work goes on a CUDA stream of the
// communicator's own, after the caller's stream when one is set
// (setCallerStream), and the calling thread then polls the stream's event
// and ncclCommGetAsyncError until it finishes, NCCL reports an error, or the
// timeout passes. NCCL communicators are non-blocking, so connecting and
// enqueueing are polled the same way. A timeout or error aborts the NCCL
// communicator (ncclCommAbort: its kernels quit), so a vanished or silent
// peer ends the call with an error naming this rank and the collective
// instead of a hang; the communicator is broken from then on.
//
// Buffers are device memory of the communicator's GPU, or host memory: host
// buffers NCCL cannot reach (pageable memory) go through device scratch,
// correct and slow, like staged kernels. NCCL has no tags: a send matches
// the next recv its peer posts, so ranks must issue point-to-point calls to
// each peer in one order (they do: calls take turns on a communicator).
//
// NcclCommunicator.cpp runs one call; NcclCollectives.cpp maps each
// collective to NCCL calls and joins groups.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_BACKENDS_CUDA_NCCLCOMMUNICATOR_H
#define OFRT_LIB_RUNTIME_BACKENDS_CUDA_NCCLCOMMUNICATOR_H

#include "Backends/Cuda/CudaDevice.h"

#include "ofrt/Collectives.h"
#include "ofrt/Communicator.h"

#include <cuda_runtime.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

struct ncclComm;

namespace ofrt {
namespace cuda {

/// Waits a little before poll `polls` + 1 of NCCL or CUDA: yields first (a
/// collective of a few bytes takes microseconds), then sleeps.
void pauseBeforePoll(int polls);

/// One rank's NCCL communicator in one group.
class NcclCommunicator : public Communicator {
public:
  /// Takes `comm` (initialized, on GPU `device`), making its own stream.
  static absl::StatusOr<std::unique_ptr<NcclCommunicator>>
  create(ncclComm *comm, int device, int rank, int size,
         std::chrono::milliseconds timeout);
  ~NcclCommunicator() override;

  int rank() const override { return me; }
  int size() const override { return count; }
  std::chrono::milliseconds timeout() const override { return timeoutMs; }

  /// The GPU the communicator's buffers and stream are on.
  int device() const { return gpu; }
  /// Orders each later call after the work enqueued so far on
  /// `callerStream`, a stream of the same GPU (null: after earlier calls
  /// only). A collective kernel sets its context's stream before it calls.
  void setCallerStream(cudaStream_t callerStream);

protected:
  void onBroken(const absl::Status &status) override;

  absl::Status doAllReduce(DType dtype, const void *input, void *output,
                           int64_t count, ReduceOp op) override;
  absl::Status doReduceScatter(DType dtype, const void *input, void *output,
                               const std::vector<int64_t> &chunks,
                               ReduceOp op) override;
  absl::Status doAllGather(DType dtype, const void *input, void *output,
                           const std::vector<int64_t> &chunks) override;
  absl::Status doAllToAll(DType dtype, const void *input, void *output,
                          int64_t count) override;
  absl::Status doAllToAllV(DType dtype, const void *input,
                           const std::vector<int64_t> &sendCounts, void *output,
                           const std::vector<int64_t> &recvCounts) override;
  absl::Status doBroadcast(DType dtype, void *data, int64_t count,
                           int root) override;
  absl::Status doSend(DType dtype, const void *data, int64_t count, int peer,
                      uint32_t tag) override;
  absl::Status doRecv(DType dtype, void *data, int64_t count, int peer,
                      uint32_t tag) override;

private:
  NcclCommunicator(ncclComm *comm, int device, int rank, int size,
                   std::chrono::milliseconds timeout);

  /// all_to_all (`op`) and all_to_all_v: grouped sends and receives.
  absl::Status exchange(const char *op, DType dtype, const void *input,
                        const std::vector<int64_t> &sendCounts, void *output,
                        const std::vector<int64_t> &recvCounts);

  /// Enqueues NCCL work on `stream`, given device addresses of the call's
  /// input and output; returns NCCL's result.
  using Enqueue =
      std::function<int(const char *input, char *output, cudaStream_t stream)>;
  /// Runs one call described by `what` ("all_reduce of 8 x f32"): stages
  /// host buffers, orders after the caller's stream, enqueues, and waits
  /// for the work, NCCL's error or the deadline.
  absl::Status call(const std::string &what, const void *input,
                    size_t inputBytes, void *output, size_t outputBytes,
                    const Enqueue &enqueue);
  /// The address NCCL may use for `bytes` at `pointer`, or null when it is
  /// host memory to stage; an error for another GPU's memory.
  absl::StatusOr<const void *> reachable(const std::string &what,
                                         const void *pointer, size_t bytes);
  /// At least `bytes` of device scratch, ordered on the stream.
  absl::StatusOr<char *> scratchOf(const std::string &what, size_t bytes);
  /// Polls until the communicator's state is no longer in progress or the
  /// deadline passes; the error naming `what` either way.
  absl::Status settle(const std::string &what,
                      std::chrono::steady_clock::time_point deadline);
  /// Polls the stream's work after `done` is recorded, likewise.
  absl::Status finish(const std::string &what,
                      std::chrono::steady_clock::time_point deadline);
  /// The error for NCCL's `result` of `what`, and the timeout error.
  absl::Status ncclError(const std::string &what, int result);
  absl::Status timedOut(const std::string &what);
  /// Aborts the NCCL communicator once (its kernels quit); callers hold
  /// `mutex`.
  void abortLocked();

  ncclComm *comm;
  int gpu, me, count;
  std::chrono::milliseconds timeoutMs;
  /// NCCL forbids concurrent calls on one communicator: calls take turns.
  std::mutex mutex;
  bool aborted = false;
  cudaStream_t stream = nullptr;
  cudaStream_t caller = nullptr;
  cudaEvent_t ready = nullptr, done = nullptr;
  char *scratch = nullptr;
  size_t scratchBytes = 0;
};

/// The "nccl" library for one rank: `options.store` is where groups meet.
/// `device` is the GPU of every group this rank joins; -1: the GPU current
/// on the joining thread.
absl::StatusOr<std::unique_ptr<Collectives>>
createNcclCollectives(const CollectivesOptions &options, int device = -1);

/// Registers "nccl" (createNcclCollectives with the joining thread's GPU).
void registerNcclCollectives(CollectivesRegistry &registry);

} // namespace cuda
} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_BACKENDS_CUDA_NCCLCOMMUNICATOR_H
