//===- CudaDevice.h - An NVIDIA GPU behind the device interface -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to the runtime's CUDA backend and its kernels. A CUDA device is
// one GPU: memory from the device's stream-ordered pool (cudaMallocAsync,
// kept cached between steps), pinned host memory for staging, one
// non-blocking CUDA stream per plan stream, and events whose completion
// reaches the engine from a thread of the device's own that polls them, so
// neither the engine nor the streams wait on the host per kernel. Each stream also owns
// the library handles its kernels use (cuBLASLt, cuDNN) and a workspace:
// a stream is driven by one engine thread, so they are never shared.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_BACKENDS_CUDA_CUDADEVICE_H
#define OFRT_LIB_RUNTIME_BACKENDS_CUDA_CUDADEVICE_H

#include "ofrt/Device.h"
#include "ofrt/Kernel.h"

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace ofrt {
namespace cuda {

/// Makes `ordinal` the calling thread's device until the scope ends.
class DeviceScope {
public:
  explicit DeviceScope(int ordinal) {
    if (cudaGetDevice(&saved) != cudaSuccess)
      saved = -1;
    if (saved != ordinal)
      cudaSetDevice(ordinal);
  }
  ~DeviceScope() {
    if (saved >= 0)
      cudaSetDevice(saved);
  }
  DeviceScope(const DeviceScope &) = delete;
  DeviceScope &operator=(const DeviceScope &) = delete;

private:
  int saved = -1;
};

/// The status for a failed CUDA, cuBLAS or cuDNN call: "WHERE: WHAT failed:
/// the library's error string". `where` names the actor, op and location
/// (OpDesc::where()) or the device ("cuda:0").
absl::Status cudaFailure(const std::string &where, const std::string &what,
                         cudaError_t error);
absl::Status cublasFailure(const std::string &where, const std::string &what,
                           cublasStatus_t status);
absl::Status cudnnFailure(const std::string &where, const std::string &what,
                          cudnnStatus_t status);

/// The number of CUDA devices this process sees, or why there are none
/// usable (no driver, no GPU).
absl::StatusOr<int> deviceCount();

class CudaStream : public Stream {
public:
  CudaStream(std::string name, int ordinal, cudaStream_t stream,
             bool allowTf32);
  ~CudaStream() override;

  const std::string &name() const override { return streamName; }
  absl::Status record(Event &event) override;
  absl::Status waitFor(Event &event) override;
  absl::Status synchronize() override;

  cudaStream_t handle() const { return stream; }
  int ordinal() const { return device; }
  /// DeviceOptions::allowTf32 of the stream's device.
  bool allowTf32() const { return tf32; }
  /// The stream's cuBLASLt and cuDNN handles, created on first use.
  absl::StatusOr<cublasLtHandle_t> cublasLt();
  absl::StatusOr<cudnnHandle_t> cudnn();
  /// At least `bytes` of device memory for one kernel's scratch space,
  /// valid until the next call (kernels on a stream run in order).
  absl::StatusOr<void *> workspace(size_t bytes);

private:
  std::string streamName;
  int device;
  cudaStream_t stream;
  bool tf32;
  cublasLtHandle_t lt = nullptr;
  cudnnHandle_t dnn = nullptr;
  void *scratch = nullptr;
  size_t scratchBytes = 0;
};

/// Tells sinks when the events they wait for have completed, from a thread
/// of its own that polls them (cudaEventQuery), in whatever order they
/// complete. A stream callback (cudaStreamAddCallback, cudaLaunchHostFunc)
/// would hold its stream until the host had run it, leaving the GPU idle
/// between an actor's kernel and the next one enqueued behind it.
class CompletionPoller {
public:
  explicit CompletionPoller(int ordinal);
  ~CompletionPoller();
  CompletionPoller(const CompletionPoller &) = delete;
  CompletionPoller &operator=(const CompletionPoller &) = delete;

  /// Calls sink.complete(token, status) once `event` has completed (with
  /// the error if the work before it failed).
  void watch(cudaEvent_t event, CompletionSink &sink, uint64_t token);

private:
  struct Watched {
    cudaEvent_t event;
    CompletionSink *sink;
    uint64_t token;
  };
  void loop();

  int device;
  std::mutex mutex;
  std::condition_variable added;
  std::vector<Watched> incoming;
  bool stopping = false;
  std::thread thread;
};

class CudaEvent : public Event {
public:
  CudaEvent(int ordinal, cudaEvent_t event,
            std::shared_ptr<CompletionPoller> poller)
      : device(ordinal), event(event), poller(std::move(poller)) {}
  ~CudaEvent() override;

  bool query() override;
  absl::Status wait() override;
  bool notify(CompletionSink &sink, uint64_t token) override;

  cudaEvent_t handle() const { return event; }

private:
  int device;
  cudaEvent_t event;
  std::shared_ptr<CompletionPoller> poller;
};

/// "cuda:N NAME, MEMORY GiB, sm_XY" for each GPU, or why there is none.
absl::StatusOr<std::vector<std::string>> listCudaDevices();
/// OK when the GPUs compute in `dtype` (bf16, f16) with f32 accumulation:
/// every device this build runs on (sm_80 and up) does; an error when there
/// is no GPU or one is older.
absl::Status checkCudaPrecision(DType dtype);

/// Device `ordinal` of this process's GPUs.
absl::StatusOr<std::unique_ptr<Device>>
createCudaDevice(int ordinal, const DeviceOptions &options);

/// The CUDA stream a kernel runs on: its context's stream, or an error
/// naming `where` when the context's device is not a CUDA device.
absl::StatusOr<CudaStream *> streamOf(const KernelContext &context,
                                      const std::string &where);

} // namespace cuda
} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_BACKENDS_CUDA_CUDADEVICE_H
