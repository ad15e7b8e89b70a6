//===- CudaBackend.cpp - NVIDIA GPUs: the device, kernels, collectives ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Device `ordinal` is this process's GPU `ordinal` (CudaDevice.h). Ranks on
// GPUs exchange data through NCCL, which this backend does not have yet:
// it registers no collective library, so a plan of CUDA ranks in several
// processes is refused when its communicators are made (of-run refuses
// several GPU ranks in one process); one rank needs none.
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
  backend.listDevices = cuda::listCudaDevices;
  backend.stagedOpTypes = cudaStagedOpTypes;
  backend.checkPrecision = cuda::checkCudaPrecision;
  backend.registerKernels = [](KernelRegistry &registry) {
    registerCudaKernels(registry);
  };
  backend.registerCollectives = [](CollectivesRegistry &) {};
  // One rank in this process moves no data; ranks in several processes
  // need NCCL.
  backend.defaultCollectives = [](bool inOneProcess, bool) {
    return std::string(inOneProcess ? "inproc" : "nccl");
  };
  return backend;
}
