//===- Device.h - Devices, their memory, streams and events -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What the engine needs from a device, in the spirit of IREE's HAL: memory
// for regst buffers (and pinned host memory for staging), streams (ordered
// queues of work, one per plan stream, each driven by one engine thread),
// events that say when the work recorded on a stream has finished, and
// copies between host and device memory ordered on a stream.
//
// A kernel runs on the stream its context names: on the CPU its work is done
// when compute() returns, on a GPU (an asynchronous device) compute()
// enqueues it. After each firing the engine records the actor's event on
// the stream. On the CPU the event has completed at once and the engine
// tells consumers and producers then. On an asynchronous device it does not
// wait for the host to see the work done where stream order keeps the data
// safe (Engine.h): consumers on the same stream may go at once, consumers
// on another stream make theirs wait for an event first (Stream::waitFor);
// only a kernel that touches its buffers on the host (Kernel::runsOnHost)
// waits for the completion, through a CompletionSink.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_DEVICE_H
#define OFRT_DEVICE_H

#include "ofrt/Tensor.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ofrt {

enum class DeviceKind { Cpu, Cuda };

/// What devices are created with.
struct DeviceOptions {
  /// Threads a CPU kernel may use (0: the library's default).
  int threads = 0;
  /// Drive every stream of the rank from one engine thread instead of one
  /// thread per stream: no hand-offs between stream threads (and no
  /// overlap between streams either), for ranks that outnumber the cores.
  bool oneStreamThread = false;
  /// CPU cores the rank's threads may run on (empty: any).
  std::vector<int> cores;
  /// Give each transfer that runs per micro-batch (between pipeline
  /// stages) a thread of its own, so that a stage sends one micro-batch
  /// while it waits for another's gradient. Only for collective libraries
  /// whose point-to-point calls may run concurrently on one communicator;
  /// ignored with oneStreamThread.
  bool transferThreads = false;
  /// GPU matmuls on f32 tensors may round their operands to TF32 (faster
  /// on tensor cores, about 1e-3 relative); off, they compute in f32.
  bool allowTf32 = false;
};

/// Told when the work an event stands for has finished; may be called on
/// another thread than the one that recorded the event.
class CompletionSink {
public:
  virtual ~CompletionSink();
  virtual void complete(uint64_t token, absl::Status status) = 0;
};

/// A point in a stream's work. Recorded on a stream, then reused.
class Event {
public:
  virtual ~Event();
  /// Whether the work recorded before the event has finished.
  virtual bool query() = 0;
  /// Blocks until it has; an error of the work (a failed kernel) comes back.
  virtual absl::Status wait() = 0;
  /// Arranges for `sink.complete(token, status)` once the work has
  /// finished and returns true; or returns false, calling nothing, when it
  /// already has (always on the CPU, so the engine carries on inline).
  virtual bool notify(CompletionSink &sink, uint64_t token) = 0;
};

/// An ordered queue of work on one device.
class Stream {
public:
  virtual ~Stream();
  /// The plan stream's name ("compute", "collective", "io").
  virtual const std::string &name() const = 0;
  /// Records `event` after everything enqueued so far.
  virtual absl::Status record(Event &event) = 0;
  /// Makes work enqueued later wait for the work recorded before `event`
  /// when this is called (on this or another stream); an event never
  /// recorded does not hold the stream back.
  virtual absl::Status waitFor(Event &event) = 0;
  /// Blocks until everything enqueued so far has finished.
  virtual absl::Status synchronize() = 0;
};

/// A thread set up to work with a device, until it goes.
class ThreadBinding {
public:
  virtual ~ThreadBinding();
};

class Device {
public:
  virtual ~Device();
  virtual DeviceKind kind() const = 0;
  virtual int ordinal() const = 0;
  /// "cpu:0", "cuda:1".
  std::string name() const;

  //===--------------------------------------------------------------------===//
  // Memory
  //===--------------------------------------------------------------------===//

  /// `bytes` of device memory aligned to 64 bytes; an error (not a crash)
  /// when there is not enough.
  virtual absl::StatusOr<void *> allocate(size_t bytes) = 0;
  virtual void deallocate(void *pointer) = 0;
  /// Host memory the device copies to and from fastest (pinned on a GPU).
  virtual absl::StatusOr<void *> allocateHost(size_t bytes) = 0;
  virtual void deallocateHost(void *pointer) = 0;
  /// Whether the host may read and write device memory directly (the CPU's
  /// memory is the host's): data sources then write into regst buffers.
  virtual bool hostAccessible() const = 0;

  //===--------------------------------------------------------------------===//
  // Streams and events
  //===--------------------------------------------------------------------===//

  virtual absl::StatusOr<std::unique_ptr<Stream>>
  createStream(const std::string &name) = 0;
  /// Whether kernels' work runs on their streams after compute() returns
  /// (a GPU): the engine then orders work by streams and events and waits
  /// on the host only for kernels that run there. False (the CPU): the
  /// work is done when compute() returns.
  virtual bool asynchronous() const { return false; }
  /// Whether the engine drives all streams from one thread
  /// (DeviceOptions::oneStreamThread).
  virtual bool oneStreamThread() const { return false; }
  /// Whether per-micro-batch transfers get threads of their own
  /// (DeviceOptions::transferThreads).
  virtual bool transferThreads() const { return false; }
  virtual absl::StatusOr<std::unique_ptr<Event>> createEvent() = 0;
  /// Sets the calling thread up to create or run kernels (a GPU device
  /// makes its device current; the CPU device sets the kernels' OpenMP
  /// thread count, which oneDNN also reads when it creates a primitive)
  /// until the binding goes, when the thread's old settings come back. The
  /// engine binds each stream's thread (`stream`) for a run, and the thread
  /// that creates the kernels (null) while it does.
  virtual absl::StatusOr<std::unique_ptr<ThreadBinding>>
  bindThread(Stream *stream) = 0;

  //===--------------------------------------------------------------------===//
  // Copies, ordered on a stream
  //===--------------------------------------------------------------------===//

  virtual absl::Status copyToDevice(Stream &stream, void *deviceDst,
                                    const void *hostSrc, size_t bytes) = 0;
  virtual absl::Status copyToHost(Stream &stream, void *hostDst,
                                  const void *deviceSrc, size_t bytes) = 0;
  virtual absl::Status copyOnDevice(Stream &stream, void *dst, const void *src,
                                    size_t bytes) = 0;
};

/// "cpu", "cuda".
const char *deviceKindName(DeviceKind kind);

/// The CPU cores this process may run on (its affinity), in increasing
/// order; every core the machine has when the affinity cannot be read
/// (empty when neither is known).
std::vector<int> allowedCores();

} // namespace ofrt

#endif // OFRT_DEVICE_H
