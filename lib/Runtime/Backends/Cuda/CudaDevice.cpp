//===- CudaDevice.cpp - Memory, streams and events of one GPU -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Regst buffers come from the device's default memory pool through
// cudaMallocAsync on a stream of the device's own, synchronized once so that
// every stream may use them; the pool keeps freed memory (release threshold
// at its maximum), so a later program on the device allocates without
// going to the driver. Completion: after the engine records an actor's
// event it calls notify(), which hands the event to the device's
// CompletionPoller; its thread tells the engine once the event completes,
// with the error if the work failed. The streams never wait for the host.
//
//===----------------------------------------------------------------------===//

#include "Backends/Cuda/CudaDevice.h"

#include <cstdint>
#include <limits>

using namespace ofrt;
using namespace ofrt::cuda;

absl::Status cuda::cudaFailure(const std::string &where,
                               const std::string &what, cudaError_t error) {
  return absl::InternalError(where + ": " + what +
                             " failed: " + cudaGetErrorName(error) + " (" +
                             cudaGetErrorString(error) + ")");
}

absl::Status cuda::cublasFailure(const std::string &where,
                                 const std::string &what,
                                 cublasStatus_t status) {
  return absl::InternalError(where + ": " + what +
                             " failed: " + cublasLtGetStatusName(status) +
                             " (" + cublasLtGetStatusString(status) + ")");
}

absl::Status cuda::cudnnFailure(const std::string &where,
                                const std::string &what, cudnnStatus_t status) {
  char message[512] = {0};
  cudnnGetLastErrorString(message, sizeof(message));
  std::string detail = message[0] ? std::string(": ") + message : "";
  return absl::InternalError(
      where + ": " + what + " failed: " + cudnnGetErrorString(status) + detail);
}

#define CUDA_RETURN_IF_ERROR(where, call)                                      \
  do {                                                                         \
    cudaError_t error_ = (call);                                               \
    if (error_ != cudaSuccess)                                                 \
      return cuda::cudaFailure(where, #call, error_);                          \
  } while (false)

absl::StatusOr<int> cuda::deviceCount() {
  int count = 0;
  cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess)
    return absl::UnavailableError(
        std::string("no CUDA device is usable here: ") +
        cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
  return count;
}

//===----------------------------------------------------------------------===//
// Streams
//===----------------------------------------------------------------------===//

CudaStream::CudaStream(std::string name, int ordinal, cudaStream_t stream,
                       bool allowTf32)
    : streamName(std::move(name)), device(ordinal), stream(stream),
      tf32(allowTf32) {}

CudaStream::~CudaStream() {
  DeviceScope scope(device);
  cudaStreamSynchronize(stream);
  if (lt)
    cublasLtDestroy(lt);
  if (dnn)
    cudnnDestroy(dnn);
  if (scratch)
    cudaFree(scratch);
  cudaStreamDestroy(stream);
}

static std::string streamWhere(int device, const std::string &name) {
  return "cuda:" + std::to_string(device) + " stream '" + name + "'";
}

absl::Status CudaStream::record(Event &event) {
  auto &cudaEvent = static_cast<CudaEvent &>(event);
  CUDA_RETURN_IF_ERROR(streamWhere(device, streamName),
                       cudaEventRecord(cudaEvent.handle(), stream));
  return absl::OkStatus();
}

absl::Status CudaStream::waitFor(Event &event) {
  CUDA_RETURN_IF_ERROR(
      streamWhere(device, streamName),
      cudaStreamWaitEvent(stream, static_cast<CudaEvent &>(event).handle(), 0));
  return absl::OkStatus();
}

absl::Status CudaStream::synchronize() {
  CUDA_RETURN_IF_ERROR(streamWhere(device, streamName),
                       cudaStreamSynchronize(stream));
  return absl::OkStatus();
}

absl::StatusOr<cublasLtHandle_t> CudaStream::cublasLt() {
  if (!lt) {
    cublasStatus_t status = cublasLtCreate(&lt);
    if (status != CUBLAS_STATUS_SUCCESS) {
      lt = nullptr;
      return cublasFailure(streamWhere(device, streamName), "cublasLtCreate",
                           status);
    }
  }
  return lt;
}

absl::StatusOr<cudnnHandle_t> CudaStream::cudnn() {
  if (!dnn) {
    cudnnStatus_t status = cudnnCreate(&dnn);
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnSetStream(dnn, stream);
    if (status != CUDNN_STATUS_SUCCESS) {
      if (dnn)
        cudnnDestroy(dnn);
      dnn = nullptr;
      return cudnnFailure(streamWhere(device, streamName), "cudnnCreate",
                          status);
    }
  }
  return dnn;
}

absl::StatusOr<void *> CudaStream::workspace(size_t bytes) {
  if (bytes <= scratchBytes)
    return scratch;
  // Kernels earlier on the stream may still use the old workspace.
  CUDA_RETURN_IF_ERROR(streamWhere(device, streamName),
                       cudaStreamSynchronize(stream));
  if (scratch)
    cudaFree(scratch);
  scratch = nullptr;
  scratchBytes = 0;
  CUDA_RETURN_IF_ERROR(streamWhere(device, streamName),
                       cudaMalloc(&scratch, bytes));
  scratchBytes = bytes;
  return scratch;
}

absl::StatusOr<CudaStream *> cuda::streamOf(const KernelContext &context,
                                            const std::string &where) {
  if (!context.stream || !context.device ||
      context.device->kind() != DeviceKind::Cuda)
    return absl::FailedPreconditionError(
        where + ": a CUDA kernel runs on a CUDA device's stream");
  return static_cast<CudaStream *>(context.stream);
}

//===----------------------------------------------------------------------===//
// Events
//===----------------------------------------------------------------------===//

CudaEvent::~CudaEvent() {
  DeviceScope scope(device);
  cudaEventSynchronize(event);
  cudaEventDestroy(event);
}

bool CudaEvent::query() { return cudaEventQuery(event) != cudaErrorNotReady; }

absl::Status CudaEvent::wait() {
  CUDA_RETURN_IF_ERROR("cuda:" + std::to_string(device),
                       cudaEventSynchronize(event));
  return absl::OkStatus();
}

bool CudaEvent::notify(CompletionSink &sink, uint64_t token) {
  cudaError_t state = cudaEventQuery(event);
  if (state == cudaSuccess)
    return false;
  if (state != cudaErrorNotReady) {
    // The work failed (a sticky error): say so now.
    sink.complete(token, cudaFailure("cuda:" + std::to_string(device),
                                     "the work before an event", state));
    return true;
  }
  poller->watch(event, sink, token);
  return true;
}

CompletionPoller::CompletionPoller(int ordinal)
    : device(ordinal), thread([this] { loop(); }) {}

CompletionPoller::~CompletionPoller() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
  }
  added.notify_all();
  thread.join();
}

void CompletionPoller::watch(cudaEvent_t event, CompletionSink &sink,
                             uint64_t token) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    incoming.push_back({event, &sink, token});
  }
  added.notify_one();
}

void CompletionPoller::loop() {
  DeviceScope scope(device);
  std::vector<Watched> watched;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex);
      if (watched.empty())
        added.wait(lock, [&] { return stopping || !incoming.empty(); });
      watched.insert(watched.end(), incoming.begin(), incoming.end());
      incoming.clear();
      // Every engine waits for its completions before it goes, so at the
      // end nothing is watched.
      if (stopping && watched.empty())
        return;
    }
    bool completed = false;
    for (size_t i = 0; i < watched.size();) {
      cudaError_t state = cudaEventQuery(watched[i].event);
      if (state == cudaErrorNotReady) {
        ++i;
        continue;
      }
      Watched done = watched[i];
      watched.erase(watched.begin() + i);
      completed = true;
      done.sink->complete(
          done.token,
          state == cudaSuccess
              ? absl::OkStatus()
              : cudaFailure("cuda:" + std::to_string(device),
                            "the work before an event", state));
    }
    if (!completed)
      std::this_thread::yield();
  }
}

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

namespace {

/// The calling thread's device, until the binding goes.
class CudaThreadBinding : public ThreadBinding {
public:
  explicit CudaThreadBinding(int ordinal) : scope(ordinal) {}

private:
  DeviceScope scope;
};

class CudaDevice : public Device {
public:
  CudaDevice(int ordinal, cudaStream_t memoryStream, bool allowTf32)
      : device(ordinal), memoryStream(memoryStream), allowTf32(allowTf32),
        where("cuda:" + std::to_string(ordinal)),
        poller(std::make_shared<CompletionPoller>(ordinal)) {}
  ~CudaDevice() override {
    DeviceScope scope(device);
    cudaStreamSynchronize(memoryStream);
    cudaStreamDestroy(memoryStream);
  }

  DeviceKind kind() const override { return DeviceKind::Cuda; }
  int ordinal() const override { return device; }

  absl::StatusOr<void *> allocate(size_t bytes) override {
    DeviceScope scope(device);
    void *pointer = nullptr;
    cudaError_t error =
        cudaMallocAsync(&pointer, std::max<size_t>(bytes, 1), memoryStream);
    if (error == cudaSuccess)
      error = cudaStreamSynchronize(memoryStream);
    if (error == cudaErrorMemoryAllocation)
      return absl::ResourceExhaustedError(
          where + ": cannot allocate " + std::to_string(bytes) +
          " bytes of device memory (out of memory)");
    if (error != cudaSuccess)
      return cudaFailure(where, "cudaMallocAsync", error);
    return pointer;
  }
  void deallocate(void *pointer) override {
    if (!pointer)
      return;
    DeviceScope scope(device);
    // Buffers go when the program does, after its streams have finished.
    cudaFreeAsync(pointer, memoryStream);
  }
  absl::StatusOr<void *> allocateHost(size_t bytes) override {
    DeviceScope scope(device);
    void *pointer = nullptr;
    cudaError_t error = cudaMallocHost(&pointer, std::max<size_t>(bytes, 1));
    if (error != cudaSuccess)
      return absl::ResourceExhaustedError(
          where + ": cannot allocate " + std::to_string(bytes) +
          " bytes of pinned host memory: " + cudaGetErrorString(error));
    return pointer;
  }
  void deallocateHost(void *pointer) override {
    if (pointer)
      cudaFreeHost(pointer);
  }
  bool hostAccessible() const override { return false; }
  /// Kernels enqueue their work: the engine orders it by streams and
  /// events (StreamOrder.cpp).
  bool asynchronous() const override { return true; }

  absl::StatusOr<std::unique_ptr<Stream>>
  createStream(const std::string &name) override {
    DeviceScope scope(device);
    cudaStream_t stream = nullptr;
    CUDA_RETURN_IF_ERROR(
        where, cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    return std::unique_ptr<Stream>(
        new CudaStream(name, device, stream, allowTf32));
  }
  absl::StatusOr<std::unique_ptr<Event>> createEvent() override {
    DeviceScope scope(device);
    cudaEvent_t event = nullptr;
    CUDA_RETURN_IF_ERROR(
        where, cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
    return std::unique_ptr<Event>(new CudaEvent(device, event, poller));
  }
  absl::StatusOr<std::unique_ptr<ThreadBinding>> bindThread(Stream *) override {
    return std::unique_ptr<ThreadBinding>(new CudaThreadBinding(device));
  }

  absl::Status copyToDevice(Stream &stream, void *dst, const void *src,
                            size_t bytes) override {
    return copy(stream, dst, src, bytes, cudaMemcpyHostToDevice);
  }
  absl::Status copyToHost(Stream &stream, void *dst, const void *src,
                          size_t bytes) override {
    return copy(stream, dst, src, bytes, cudaMemcpyDeviceToHost);
  }
  absl::Status copyOnDevice(Stream &stream, void *dst, const void *src,
                            size_t bytes) override {
    return copy(stream, dst, src, bytes, cudaMemcpyDeviceToDevice);
  }

private:
  absl::Status copy(Stream &stream, void *dst, const void *src, size_t bytes,
                    cudaMemcpyKind kind) {
    if (bytes == 0)
      return absl::OkStatus();
    DeviceScope scope(device);
    CUDA_RETURN_IF_ERROR(
        where, cudaMemcpyAsync(dst, src, bytes, kind,
                               static_cast<CudaStream &>(stream).handle()));
    return absl::OkStatus();
  }

  int device;
  cudaStream_t memoryStream;
  bool allowTf32;
  std::string where;
  std::shared_ptr<CompletionPoller> poller;
};

} // namespace

namespace {
/// The properties of every GPU this process sees.
absl::StatusOr<std::vector<cudaDeviceProp>> allDeviceProperties() {
  absl::StatusOr<int> count = deviceCount();
  if (!count.ok())
    return count.status();
  std::vector<cudaDeviceProp> all(*count);
  for (int i = 0; i < *count; ++i)
    if (cudaError_t error = cudaGetDeviceProperties(&all[i], i);
        error != cudaSuccess)
      return cudaFailure("cuda:" + std::to_string(i), "cudaGetDeviceProperties",
                         error);
  return all;
}

std::string smName(const cudaDeviceProp &properties) {
  return "sm_" + std::to_string(properties.major) +
         std::to_string(properties.minor);
}
} // namespace

absl::StatusOr<std::vector<std::string>> cuda::listCudaDevices() {
  absl::StatusOr<std::vector<cudaDeviceProp>> all = allDeviceProperties();
  if (!all.ok())
    return all.status();
  std::vector<std::string> lines;
  for (size_t i = 0; i < all->size(); ++i)
    lines.push_back("cuda:" + std::to_string(i) + " " + (*all)[i].name + ", " +
                    std::to_string((*all)[i].totalGlobalMem >> 30) + " GiB, " +
                    smName((*all)[i]));
  if (lines.empty())
    return absl::UnavailableError("no CUDA device is present");
  return lines;
}

absl::Status cuda::checkCudaPrecision(DType dtype) {
  if (dtype != DType::BF16 && dtype != DType::F16)
    return absl::InvalidArgumentError(std::string(dtypeName(dtype)) +
                                      " is not a mixed precision (bf16, f16)");
  absl::StatusOr<std::vector<cudaDeviceProp>> all = allDeviceProperties();
  if (!all.ok())
    return all.status();
  for (size_t i = 0; i < all->size(); ++i)
    if ((*all)[i].major < 8)
      return absl::UnimplementedError(
          "cuda:" + std::to_string(i) + " (" + (*all)[i].name + ", " +
          smName((*all)[i]) + ") has no " + dtypeName(dtype) +
          " tensor cores this build uses; they need sm_80 or newer");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Device>>
cuda::createCudaDevice(int ordinal, const DeviceOptions &options) {
  absl::StatusOr<int> count = deviceCount();
  if (!count.ok())
    return absl::UnavailableError("cuda:" + std::to_string(ordinal) + ": " +
                                  std::string(count.status().message()));
  if (ordinal < 0 || ordinal >= *count)
    return absl::InvalidArgumentError(
        "cuda:" + std::to_string(ordinal) + " does not exist: this machine " +
        "has " + std::to_string(*count) + " CUDA device" +
        (*count == 1 ? "" : "s"));
  std::string where = "cuda:" + std::to_string(ordinal);
  DeviceScope scope(ordinal);
  cudaMemPool_t pool = nullptr;
  CUDA_RETURN_IF_ERROR(where, cudaDeviceGetDefaultMemPool(&pool, ordinal));
  uint64_t keep = std::numeric_limits<uint64_t>::max();
  CUDA_RETURN_IF_ERROR(
      where,
      cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  cudaStream_t memoryStream = nullptr;
  CUDA_RETURN_IF_ERROR(
      where, cudaStreamCreateWithFlags(&memoryStream, cudaStreamNonBlocking));
  return std::unique_ptr<Device>(
      new CudaDevice(ordinal, memoryStream, options.allowTf32));
}
