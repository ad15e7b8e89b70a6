//===- CudaBackend.cpp - NVIDIA GPUs: the device, kernels, collectives ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Device `ordinal` is this process's GPU `ordinal` (CudaDevice.h). Ranks on
// GPUs exchange data through NCCL (NcclCommunicator.h) when the toolkit has
// it; without, a plan of CUDA ranks in several processes is refused when
// its communicators are made. of-run still refuses several GPU ranks: the
// collective kernels pack their pieces on the host.
//
//===----------------------------------------------------------------------===//

#include "Backends/Backends.h"
#include "Backends/Cuda/CudaDevice.h"
#if OFRT_HAVE_NCCL
#include "Collectives/Nccl/NcclCommunicator.h"
#endif
#include "Kernels/Cuda/CudaKernels.h"

using namespace ofrt;

Backend ofrt::cudaBackend() {
  Backend backend;
  backend.kind = DeviceKind::Cuda;
  backend.name = "cuda";
  backend.createDevice = cuda::createCudaDevice;
  backend.listDevices = cuda::listCudaDevices;
  backend.checkPrecision = cuda::checkCudaPrecision;
  backend.registerKernels = [](KernelRegistry &registry) {
    registerCudaKernels(registry);
  };
  backend.registerCollectives = [](CollectivesRegistry &registry) {
#if OFRT_HAVE_NCCL
    cuda::registerNcclCollectives(registry);
#else
    (void)registry;
#endif
  };
  // One rank in this process moves no data (of-run refuses several GPU
  // ranks in one process); ranks in several processes use NCCL.
  backend.defaultCollectives = [](bool inOneProcess, bool) {
    return std::string(inOneProcess ? "inproc" : "nccl");
  };
  return backend;
}
