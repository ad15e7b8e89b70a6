//===- Device.h - Devices: memory and stream threads ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What the engine needs from a device: memory for regst buffers, and a hook
// on each stream thread before it runs (a CUDA device binds the thread to
// its GPU and creates the stream there). Kernels are looked up per device
// kind in the KernelRegistry.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_RUNTIME_DEVICE_H
#define ONEFLOWDIALECT_RUNTIME_DEVICE_H

#include "OneFlowDialect/Runtime/Kernel.h"

#include <memory>
#include <string>

namespace ofrt {

class Device {
public:
  virtual ~Device();
  virtual DeviceKind kind() const = 0;
  /// "cpu:0", "cuda:1".
  virtual std::string name() const = 0;
  /// `bytes` of device memory aligned to 64 bytes; an error (not a crash)
  /// when there is not enough.
  virtual absl::StatusOr<void *> allocate(size_t bytes) = 0;
  virtual void deallocate(void *pointer) = 0;
  /// Runs on each stream thread before its first actor fires.
  virtual absl::Status bindStreamThread(const std::string &stream);
};

/// Host memory; stream threads need no binding.
std::unique_ptr<Device> createCpuDevice();

/// The device of `kind` with index `ordinal`, or an error saying why there
/// is none (a kind this build has no backend for, for instance).
absl::StatusOr<std::unique_ptr<Device>> createDevice(DeviceKind kind,
                                                     int ordinal);

} // namespace ofrt

#endif // ONEFLOWDIALECT_RUNTIME_DEVICE_H
