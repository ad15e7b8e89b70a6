//===- Sources.cpp - constant, fill, variable -----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A source's value is what its CPU kernel writes (the same initializers,
// the same pieces of a variable on each rank): the CPU kernel runs once,
// into host memory, when the CUDA kernel is created; the first firing
// copies it to the GPU. A variable writes each of its buffers once (they
// then hold the trained state); constant and fill write theirs every
// firing, from a device copy.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/CudaKernels.h"
#include "ofrt/KernelParams.h"

#include <algorithm>

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

class SourceKernel : public CudaKernel {
public:
  SourceKernel(const OpDesc &op, std::vector<uint8_t> value, bool writeOnce)
      : CudaKernel(op), value(std::move(value)), writeOnce(writeOnce) {}
  ~SourceKernel() override {
    if (master)
      cudaFree(master);
  }

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &,
                   const std::vector<TensorView> &out) override {
    if (value.empty())
      return absl::OkStatus();
    cudaStream_t handle = stream.handle();
    if (writeOnce) {
      if (std::find(written.begin(), written.end(), out[0].data) !=
          written.end())
        return absl::OkStatus();
      written.push_back(out[0].data);
      // The host copy lives as long as the kernel: the copy may still be
      // running when compute() returns.
      return check(cudaMemcpyAsync(out[0].data, value.data(), value.size(),
                                   cudaMemcpyHostToDevice, handle),
                   "cudaMemcpyAsync");
    }
    if (!master) {
      OFRT_RETURN_IF_ERROR(
          check(cudaMalloc(&master, value.size()), "cudaMalloc"));
      OFRT_RETURN_IF_ERROR(
          check(cudaMemcpyAsync(master, value.data(), value.size(),
                                cudaMemcpyHostToDevice, handle),
                "cudaMemcpyAsync"));
    }
    return check(cudaMemcpyAsync(out[0].data, master, value.size(),
                                 cudaMemcpyDeviceToDevice, handle),
                 "cudaMemcpyAsync");
  }

private:
  std::vector<uint8_t> value;
  bool writeOnce;
  void *master = nullptr;
  std::vector<void *> written;
};

absl::StatusOr<std::unique_ptr<Kernel>> createSource(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  std::vector<uint8_t> value(op.outputs[0].bytes());
  KernelContext host;
  OFRT_RETURN_IF_ERROR(
      (*cpuKernel)
          ->compute(host, {}, {TensorView{value.data(), op.outputs[0]}}));
  return std::unique_ptr<Kernel>(
      new SourceKernel(op, std::move(value), op.role == OpRole::Variable));
}

} // namespace

void cuda::registerSourceKernels(KernelRegistry &registry) {
  for (const char *type : {params::ConstantOp::kOpName,
                           params::FillOp::kOpName,
                           params::VariableOp::kOpName})
    registry.add(DeviceKind::Cuda, type, createSource);
}
