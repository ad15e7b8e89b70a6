//===- CudaBackend.cpp - NVIDIA GPUs: the device, kernels, collectives ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Device `ordinal` is this process's GPU `ordinal` (CudaDevice.h). Ranks on
// GPUs exchange data through NCCL, which this backend does not have yet:
// it registers no collective library, so a plan of several CUDA ranks is
// refused when its communicators are made.
//
//===----------------------------------------------------------------------===//

#include "Backends/Backends.h"
#include "Backends/Cuda/CudaDevice.h"
#include "Kernels/Cuda/CudaKernels.h"

using namespace ofrt;

Backend ofrt::cudaBackend() {
  Backend backend;
  backend.kind = DeviceKind::Cuda;
  backend.name = "cuda";
  backend.createDevice = cuda::createCudaDevice;
  backend.registerKernels = [](KernelRegistry &registry) {
    registerCudaKernels(registry);
  };
  backend.registerCollectives = [](CollectivesRegistry &) {};
  backend.defaultCollectives = [](bool, bool) { return std::string("nccl"); };
  return backend;
}
