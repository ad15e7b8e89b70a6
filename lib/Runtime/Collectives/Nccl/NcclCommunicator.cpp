//===- NcclCommunicator.cpp - One NCCL call: staging, ordering, waiting ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What every call of the nccl communicator shares: it takes the
// communicator's turn, stages host buffers NCCL cannot reach, waits on the
// caller's stream, enqueues its NCCL calls on the communicator's stream, and
// polls until they have finished, NCCL has reported an error, or the
// timeout has passed, aborting the NCCL communicator on a timeout or an
// error. The collectives themselves, and joining a group, are
// NcclCollectives.cpp's.
//
//===----------------------------------------------------------------------===//

#include "Collectives/Nccl/NcclCommunicator.h"
#include "Backends/Cuda/CudaDevice.h"

#include "ofrt/Status.h"

#include <nccl.h>

#include <algorithm>
#include <thread>

using namespace ofrt;
using namespace ofrt::cuda;
using Clock = std::chrono::steady_clock;

void cuda::pauseBeforePoll(int polls) {
  if (polls < 2000)
    std::this_thread::yield();
  else
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

//===----------------------------------------------------------------------===//
// Lifetime, errors and polling
//===----------------------------------------------------------------------===//

NcclCommunicator::NcclCommunicator(ncclComm *comm, int device, int rank,
                                   int size, std::chrono::milliseconds timeout)
    : comm(comm), gpu(device), me(rank), count(size), timeoutMs(timeout) {}

absl::StatusOr<std::unique_ptr<NcclCommunicator>>
NcclCommunicator::create(ncclComm *comm, int device, int rank, int size,
                         std::chrono::milliseconds timeout) {
  std::unique_ptr<NcclCommunicator> result(
      new NcclCommunicator(comm, device, rank, size, timeout));
  DeviceScope scope(device);
  cudaError_t error =
      cudaStreamCreateWithFlags(&result->stream, cudaStreamNonBlocking);
  if (error == cudaSuccess)
    error = cudaEventCreateWithFlags(&result->ready, cudaEventDisableTiming);
  if (error == cudaSuccess)
    error = cudaEventCreateWithFlags(&result->done, cudaEventDisableTiming);
  if (error != cudaSuccess)
    return cudaFailure(result->who(), "creating its stream", error);
  return result;
}

NcclCommunicator::~NcclCommunicator() {
  DeviceScope scope(gpu);
  if (!aborted) {
    // Every call has finished: finalize flushes NCCL's own work (bounded by
    // the timeout), then destroy frees what is local; else abort.
    ncclResult_t state = ncclCommFinalize(comm);
    Clock::time_point deadline = Clock::now() + timeoutMs;
    for (int polls = 0; state == ncclInProgress && Clock::now() < deadline;
         pauseBeforePoll(++polls))
      if (ncclCommGetAsyncError(comm, &state) != ncclSuccess)
        break;
    if (state == ncclSuccess)
      ncclCommDestroy(comm);
    else
      ncclCommAbort(comm);
  }
  // Stream-ordered or deferred: none of these waits for work an abort
  // left behind.
  if (scratch)
    cudaFreeAsync(scratch, stream);
  for (cudaEvent_t event : {ready, done})
    if (event)
      cudaEventDestroy(event);
  if (stream)
    cudaStreamDestroy(stream);
}

void NcclCommunicator::setCallerStream(cudaStream_t callerStream) {
  std::lock_guard<std::mutex> lock(mutex);
  caller = callerStream;
}

void NcclCommunicator::abortLocked() {
  if (aborted)
    return;
  aborted = true;
  DeviceScope scope(gpu);
  ncclCommAbort(comm);
}

void NcclCommunicator::onBroken(const absl::Status &) {
  // Peers waiting on this rank see NCCL's remote error or their timeout.
  std::lock_guard<std::mutex> lock(mutex);
  abortLocked();
}

absl::Status NcclCommunicator::ncclError(const std::string &what, int result) {
  auto code = static_cast<ncclResult_t>(result);
  std::string detail = aborted ? "" : ncclGetLastError(comm);
  std::string message = who() + ": " + what +
                        " failed: " + ncclGetErrorString(code) +
                        (detail.empty() ? "" : " (nccl: " + detail + ")");
  // A remote or system error is a peer or a link that went away.
  if (code == ncclRemoteError || code == ncclSystemError)
    return absl::UnavailableError(message);
  return absl::InternalError(message);
}

absl::Status NcclCommunicator::timedOut(const std::string &what) {
  abortLocked();
  return absl::DeadlineExceededError(
      who() + ": " + what + " timed out after " +
      std::to_string(timeoutMs.count()) +
      " ms waiting for its peers (its NCCL communicator is aborted)");
}

absl::Status NcclCommunicator::settle(const std::string &what,
                                      Clock::time_point deadline) {
  ncclResult_t state = ncclInProgress;
  for (int polls = 0;; pauseBeforePoll(++polls)) {
    if (ncclResult_t result = ncclCommGetAsyncError(comm, &state);
        result != ncclSuccess)
      return ncclError(what, result);
    if (state != ncclInProgress)
      return state == ncclSuccess ? absl::OkStatus() : ncclError(what, state);
    if (Clock::now() >= deadline)
      return timedOut(what);
  }
}

absl::Status NcclCommunicator::finish(const std::string &what,
                                      Clock::time_point deadline) {
  cudaError_t error = cudaEventRecord(done, stream);
  for (int polls = 0; error == cudaSuccess; pauseBeforePoll(++polls)) {
    error = cudaEventQuery(done);
    if (error == cudaSuccess)
      return absl::OkStatus();
    if (error != cudaErrorNotReady)
      break;
    error = cudaSuccess;
    ncclResult_t state = ncclSuccess;
    ncclResult_t result = ncclCommGetAsyncError(comm, &state);
    if (result == ncclSuccess && state != ncclInProgress)
      result = state;
    if (result != ncclSuccess)
      return ncclError(what, result);
    if (Clock::now() >= deadline)
      return timedOut(what);
  }
  return cudaFailure(who(), what, error);
}

//===----------------------------------------------------------------------===//
// One call: staging, ordering, enqueueing, waiting
//===----------------------------------------------------------------------===//

absl::StatusOr<const void *>
NcclCommunicator::reachable(const std::string &what, const void *pointer,
                            size_t bytes) {
  if (bytes == 0)
    return pointer;
  cudaPointerAttributes attributes{};
  cudaError_t error = cudaPointerGetAttributes(&attributes, pointer);
  if (error != cudaSuccess) {
    cudaGetLastError(); // Not a sticky error: clear it.
    return cudaFailure(who(), what + ": cudaPointerGetAttributes", error);
  }
  switch (attributes.type) {
  case cudaMemoryTypeDevice:
    if (attributes.device != gpu)
      return absl::InvalidArgumentError(
          who() + ": " + what +
          " on a buffer of cuda:" + std::to_string(attributes.device) +
          "; its communicator is on cuda:" + std::to_string(gpu));
    return pointer;
  case cudaMemoryTypeManaged:
    return pointer;
  case cudaMemoryTypeHost: // Pinned: reachable where it is mapped.
    return static_cast<const void *>(attributes.devicePointer);
  default: // Pageable host memory.
    return nullptr;
  }
}

absl::StatusOr<char *> NcclCommunicator::scratchOf(const std::string &what,
                                                   size_t bytes) {
  if (bytes <= scratchBytes)
    return scratch;
  if (scratch)
    cudaFreeAsync(scratch, stream);
  scratch = nullptr;
  scratchBytes = 0;
  cudaError_t error =
      cudaMallocAsync(reinterpret_cast<void **>(&scratch), bytes, stream);
  if (error != cudaSuccess)
    return cudaFailure(who(),
                       what + ": staging " + std::to_string(bytes) +
                           " bytes of host memory",
                       error);
  scratchBytes = bytes;
  return scratch;
}

absl::Status NcclCommunicator::call(const std::string &what, const void *input,
                                    size_t inputBytes, void *output,
                                    size_t outputBytes,
                                    const Enqueue &enqueue) {
  std::lock_guard<std::mutex> lock(mutex);
  if (aborted)
    return absl::FailedPreconditionError(who() + ": " + what +
                                         " on an aborted NCCL communicator");
  Clock::time_point deadline = Clock::now() + timeoutMs;
  DeviceScope scope(gpu);
  absl::StatusOr<const void *> in = reachable(what, input, inputBytes);
  if (!in.ok())
    return in.status();
  absl::StatusOr<const void *> out = reachable(what, output, outputBytes);
  if (!out.ok())
    return out.status();
  if (caller) {
    cudaError_t error = cudaEventRecord(ready, caller);
    if (error == cudaSuccess)
      error = cudaStreamWaitEvent(stream, ready, 0);
    if (error != cudaSuccess)
      return cudaFailure(who(), what + ": ordering after its caller", error);
  }
  bool stageIn = inputBytes && !*in, stageOut = outputBytes && !*out;
  if (stageIn || stageOut) {
    // Scratch for the input, then the output; one region in place.
    bool inPlace = stageIn && input == output;
    size_t inRegion = !stageIn  ? 0
                      : inPlace ? std::max(inputBytes, outputBytes)
                                : (inputBytes + 255) / 256 * 256;
    absl::StatusOr<char *> base =
        scratchOf(what, inRegion + (stageOut && !inPlace ? outputBytes : 0));
    if (!base.ok())
      return base.status();
    if (stageIn)
      in = static_cast<const void *>(*base);
    if (stageOut)
      out = static_cast<const void *>(inPlace ? *base : *base + inRegion);
    if (cudaError_t error =
            stageIn ? cudaMemcpyAsync(*base, input, inputBytes,
                                      cudaMemcpyHostToDevice, stream)
                    : cudaSuccess;
        error != cudaSuccess)
      return cudaFailure(who(), what + ": staging its input", error);
  }
  auto result = static_cast<ncclResult_t>(
      enqueue(static_cast<const char *>(*in),
              static_cast<char *>(const_cast<void *>(*out)), stream));
  if (result == ncclInProgress)
    OFRT_RETURN_IF_ERROR(settle(what, deadline));
  else if (result != ncclSuccess)
    return ncclError(what, result);
  OFRT_RETURN_IF_ERROR(finish(what, deadline));
  if (stageOut) {
    // The transfer has finished: this copy cannot wait on a peer.
    cudaError_t error = cudaMemcpyAsync(output, *out, outputBytes,
                                        cudaMemcpyDeviceToHost, stream);
    if (error == cudaSuccess)
      error = cudaStreamSynchronize(stream);
    if (error != cudaSuccess)
      return cudaFailure(who(), what + ": copying its result to the host",
                         error);
  }
  return absl::OkStatus();
}
