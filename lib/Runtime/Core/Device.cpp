//===- Device.cpp - Devices: memory and stream threads --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/Device.h"

#include <cstdlib>

using namespace ofrt;

Device::~Device() = default;

absl::Status Device::bindStreamThread(const std::string &) {
  return absl::OkStatus();
}

namespace {
class CpuDevice : public Device {
public:
  DeviceKind kind() const override { return DeviceKind::Cpu; }
  std::string name() const override { return "cpu:0"; }

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
};
} // namespace

std::unique_ptr<Device> ofrt::createCpuDevice() {
  return std::make_unique<CpuDevice>();
}

absl::StatusOr<std::unique_ptr<Device>> ofrt::createDevice(DeviceKind kind,
                                                           int ordinal) {
  if (kind == DeviceKind::Cpu) {
    if (ordinal != 0)
      return absl::InvalidArgumentError("there is one CPU device per rank, "
                                        "not cpu:" + std::to_string(ordinal));
    return createCpuDevice();
  }
  return absl::UnimplementedError(
      "this runtime has no CUDA backend yet; plans for cuda devices cannot "
      "run");
}
