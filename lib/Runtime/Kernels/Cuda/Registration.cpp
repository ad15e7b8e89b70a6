//===- Registration.cpp - The CUDA kernels, and staged CPU kernels --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/CpuKernels.h"
#include "Kernels/Cuda/CudaKernels.h"

using namespace ofrt;

/// The op types of the CPU kernels, from a registry of their own.
static std::vector<std::string> cpuOpTypes() {
  KernelRegistry cpu;
  registerCpuKernels(cpu);
  return cpu.opTypes(DeviceKind::Cpu);
}

absl::StatusOr<std::unique_ptr<Kernel>>
cuda::stagedCpuKernel(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!kernel.ok())
    return kernel;
  return stageOnHost(std::move(*kernel));
}

/// The kernels that run on the GPU itself.
static void registerNativeKernels(KernelRegistry &registry) {
  cuda::registerMatmulKernels(registry);
  cuda::registerElementwiseKernels(registry);
  cuda::registerOptimizerKernels(registry);
  cuda::registerSourceKernels(registry);
  cuda::registerLayoutKernels(registry);
  cuda::registerSelectKernels(registry);
  cuda::registerSoftmaxKernels(registry);
  cuda::registerIndexingKernels(registry);
  cuda::registerConvKernels(registry);
  cuda::registerPoolingKernels(registry);
  cuda::registerBatchNormKernels(registry);
}

void ofrt::registerCudaKernels(KernelRegistry &registry) {
  registerNativeKernels(registry);
  for (const std::string &type : cudaStagedOpTypes())
    registry.add(DeviceKind::Cuda, type, cuda::stagedCpuKernel);
}

std::set<std::string> ofrt::cudaStagedOpTypes() {
  static const std::set<std::string> staged = [] {
    KernelRegistry native;
    registerNativeKernels(native);
    std::set<std::string> types;
    for (const std::string &type : cpuOpTypes())
      if (!native.contains(DeviceKind::Cuda, type))
        types.insert(type);
    return types;
  }();
  return staged;
}
