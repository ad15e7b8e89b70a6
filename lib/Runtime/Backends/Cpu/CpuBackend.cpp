//===- CpuBackend.cpp - The CPU: host memory, kernels that finish at once -===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One CPU device per rank. Its streams are the engine's stream threads
// themselves: a kernel's work is done when compute() returns, so events are
// complete as soon as they are recorded and the engine never waits on one.
// How many threads a kernel uses is this backend's business: each stream
// thread gets DeviceOptions::threads as its OpenMP thread count.
//
// Collectives on host memory: "inproc" for ranks that are threads of one
// process, "mpi" under mpirun (when built with MPI), "gloo" otherwise.
//
//===----------------------------------------------------------------------===//

#include "Backends/Backends.h"
#include "Collectives/Libraries.h"
#include "Kernels/Cpu/CpuKernels.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <cstdlib>
#include <cstring>

using namespace ofrt;

namespace {

class CpuEvent : public Event {
public:
  bool query() override { return true; }
  absl::Status wait() override { return absl::OkStatus(); }
  bool notify(CompletionSink &, uint64_t) override { return false; }
};

class CpuStream : public Stream {
public:
  explicit CpuStream(std::string name) : streamName(std::move(name)) {}
  const std::string &name() const override { return streamName; }
  absl::Status record(Event &) override { return absl::OkStatus(); }
  absl::Status waitFor(Event &) override { return absl::OkStatus(); }
  absl::Status synchronize() override { return absl::OkStatus(); }

private:
  std::string streamName;
};

/// Kernels' OpenMP thread count (and the cores) of one thread, restored
/// when it goes.
class CpuThreadBinding : public ThreadBinding {
public:
  CpuThreadBinding(int threads, const std::vector<int> &cores)
      : saved(omp_get_max_threads()) {
    if (threads > 0)
      omp_set_num_threads(threads);
    if (!cores.empty() &&
        pthread_getaffinity_np(pthread_self(), sizeof(savedCores),
                               &savedCores) == 0) {
      cpu_set_t set;
      CPU_ZERO(&set);
      for (int core : cores)
        CPU_SET(core, &set);
      pinned = pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
    }
  }
  ~CpuThreadBinding() override {
    omp_set_num_threads(saved);
    if (pinned)
      pthread_setaffinity_np(pthread_self(), sizeof(savedCores), &savedCores);
  }

private:
  int saved;
  bool pinned = false;
  cpu_set_t savedCores;
};

class CpuDevice : public Device {
public:
  explicit CpuDevice(const DeviceOptions &options) : options(options) {}

  DeviceKind kind() const override { return DeviceKind::Cpu; }
  int ordinal() const override { return 0; }

  absl::StatusOr<void *> allocate(size_t bytes) override {
    // aligned_alloc needs a multiple of the alignment, and at least one.
    size_t size = std::max<size_t>(64, (bytes + 63) / 64 * 64);
    void *pointer = std::aligned_alloc(64, size);
    if (!pointer)
      return absl::ResourceExhaustedError("cannot allocate " +
                                          std::to_string(bytes) +
                                          " bytes of host memory");
    return pointer;
  }
  void deallocate(void *pointer) override { std::free(pointer); }
  absl::StatusOr<void *> allocateHost(size_t bytes) override {
    return allocate(bytes);
  }
  void deallocateHost(void *pointer) override { deallocate(pointer); }
  bool hostAccessible() const override { return true; }
  bool oneStreamThread() const override { return options.oneStreamThread; }
  bool transferThreads() const override { return options.transferThreads; }

  absl::StatusOr<std::unique_ptr<Stream>>
  createStream(const std::string &name) override {
    return std::unique_ptr<Stream>(new CpuStream(name));
  }
  absl::StatusOr<std::unique_ptr<Event>> createEvent() override {
    return std::unique_ptr<Event>(new CpuEvent());
  }
  absl::StatusOr<std::unique_ptr<ThreadBinding>>
  bindThread(Stream *) override {
    // OpenMP's thread count belongs to the thread that sets it.
    return std::unique_ptr<ThreadBinding>(
        new CpuThreadBinding(options.threads, options.cores));
  }

  absl::Status copyToDevice(Stream &, void *dst, const void *src,
                            size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status copyToHost(Stream &, void *dst, const void *src,
                          size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return absl::OkStatus();
  }
  absl::Status copyOnDevice(Stream &, void *dst, const void *src,
                            size_t bytes) override {
    std::memmove(dst, src, bytes);
    return absl::OkStatus();
  }

private:
  DeviceOptions options;
};

} // namespace

Backend ofrt::cpuBackend() {
  Backend backend;
  backend.kind = DeviceKind::Cpu;
  backend.name = "cpu";
  backend.createDevice = [](int ordinal, const DeviceOptions &options)
      -> absl::StatusOr<std::unique_ptr<Device>> {
    if (ordinal != 0)
      return absl::InvalidArgumentError(
          "there is one CPU device per rank, not cpu:" +
          std::to_string(ordinal));
    return std::unique_ptr<Device>(new CpuDevice(options));
  };
  backend.listDevices = []() -> absl::StatusOr<std::vector<std::string>> {
    return std::vector<std::string>{"cpu:0 " +
                                    std::to_string(omp_get_num_procs()) +
                                    " cores (one CPU device per rank): " +
                                    describeCpuLibraries()};
  };
  backend.checkPrecision = checkCpuPrecision;
  backend.registerKernels = [](KernelRegistry &registry) {
    registerCpuKernels(registry);
  };
  backend.registerCollectives = [](CollectivesRegistry &registry) {
    registerInProcessCollectives(registry);
    registerGlooCollectives(registry);
#if OFRT_HAVE_MPI
    registerMpiCollectives(registry);
#endif
  };
  backend.defaultCollectives = [](bool inOneProcess, bool underMpi) {
#if OFRT_HAVE_MPI
    if (underMpi && !inOneProcess)
      return std::string("mpi");
#else
    (void)underMpi;
#endif
    return std::string(inOneProcess ? "inproc" : "gloo");
  };
  return backend;
}
