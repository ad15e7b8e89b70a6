//===- Backend.h - The device backends of the runtime -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A backend is what a kind of device brings to the runtime (after IREE's HAL
// drivers): how to create its devices, its kernels, and the collective
// libraries that work on its memory. The engine, the session and the
// multi-rank driver only see the interfaces (Device.h, Kernel.h,
// Collectives.h); lib/Runtime/Backends/Backends.cpp lists the backends
// this build has.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_BACKEND_H
#define OFRT_BACKEND_H

#include "ofrt/Collectives.h"
#include "ofrt/Device.h"
#include "ofrt/Kernel.h"

#include <functional>
#include <string>
#include <vector>

namespace ofrt {

struct Backend {
  DeviceKind kind = DeviceKind::Cpu;
  /// "cpu", "cuda": the device's name in plans and flags.
  std::string name;
  /// Creates device `ordinal` of this kind.
  std::function<absl::StatusOr<std::unique_ptr<Device>>(
      int ordinal, const DeviceOptions &options)>
      createDevice;
  /// One line per device of this kind that this process can use ("cuda:0
  /// NVIDIA H200, 139 GiB, sm_90"), or why there is none.
  std::function<absl::StatusOr<std::vector<std::string>>()> listDevices;
  /// OK when the backend's kernels compute in `dtype` (bf16, f16: what
  /// `--precision` asks for) on this machine; else why not.
  std::function<absl::Status(DType dtype)> checkPrecision;
  /// Adds the backend's kernels.
  std::function<void(KernelRegistry &)> registerKernels;
  /// Adds the collective libraries that work on the backend's memory.
  std::function<void(CollectivesRegistry &)> registerCollectives;
  /// The library ranks use by default: `inOneProcess` when every rank is a
  /// thread of this process, `underMpi` when mpirun started the ranks.
  std::function<std::string(bool inOneProcess, bool underMpi)>
      defaultCollectives;
};

/// The backends this build has.
const std::vector<Backend> &builtinBackends();

/// The backend of `kind`, or an error saying this build has none.
absl::StatusOr<const Backend *> findBackend(DeviceKind kind);

/// Device `ordinal` of `kind`, from its backend.
absl::StatusOr<std::unique_ptr<Device>>
createDevice(DeviceKind kind, int ordinal, const DeviceOptions &options = {});

} // namespace ofrt

#endif // OFRT_BACKEND_H
