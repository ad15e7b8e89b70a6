//===- Softmax.cpp - softmax and log_softmax through cuDNN ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The operand is seen as NCHW [outer, axis, inner, 1] and cuDNN normalizes
// over C (CUDNN_SOFTMAX_MODE_CHANNEL; CUDNN_SOFTMAX_ACCURATE subtracts the
// maximum first, CUDNN_SOFTMAX_LOG gives log_softmax). f32, f64, f16 and
// bf16; the CPU kernel checks the op.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/CudaKernels.h"

#include <limits>

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

absl::StatusOr<cudnnDataType_t> cudnnType(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return CUDNN_DATA_FLOAT;
  case DType::F64:
    return CUDNN_DATA_DOUBLE;
  case DType::F16:
    return CUDNN_DATA_HALF;
  case DType::BF16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return absl::InvalidArgumentError(dtypeName(dtype));
  }
}

class SoftmaxKernel : public CudaKernel {
public:
  SoftmaxKernel(const OpDesc &op, bool log, int dims[3], cudnnDataType_t type)
      : CudaKernel(op), log(log), type(type), dims{dims[0], dims[1], dims[2]},
        dtype(op.inputs[0].dtype) {}
  ~SoftmaxKernel() override {
    if (desc)
      cudnnDestroyTensorDescriptor(desc);
  }

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    if (out[0].desc.numel() == 0)
      return absl::OkStatus();
    absl::StatusOr<cudnnHandle_t> handle = stream.cudnn();
    if (!handle.ok())
      return handle.status();
    if (!desc) {
      cudnnStatus_t status = cudnnCreateTensorDescriptor(&desc);
      if (status == CUDNN_STATUS_SUCCESS)
        status = cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, type,
                                            dims[0], dims[1], dims[2], 1);
      if (status != CUDNN_STATUS_SUCCESS)
        return cudnnFailure(where, "cudnnSetTensor4dDescriptor", status);
    }
    // cuDNN's scaling factors are double for f64 tensors, float otherwise.
    double oneD = 1, zeroD = 0;
    float oneF = 1, zeroF = 0;
    bool wide = dtype == DType::F64;
    cudnnStatus_t status = cudnnSoftmaxForward(
        *handle, log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
        CUDNN_SOFTMAX_MODE_CHANNEL,
        wide ? static_cast<const void *>(&oneD) : &oneF, desc, in[0].data,
        wide ? static_cast<const void *>(&zeroD) : &zeroF, desc, out[0].data);
    if (status != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "cudnnSoftmaxForward", status);
    return absl::OkStatus();
  }

private:
  bool log;
  cudnnDataType_t type;
  int dims[3];
  DType dtype;
  cudnnTensorDescriptor_t desc = nullptr;
};

absl::StatusOr<std::unique_ptr<Kernel>> createSoftmax(const OpDesc &op,
                                                      bool log) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  int64_t axis = op.get<int64_t>("axis", -1);
  if (axis < 0)
    axis += x.rank();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    (d < axis ? outer : inner) *= d == axis ? 1 : x.shape[d];
  int64_t length = x.rank() ? x.shape[axis] : 1;
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  absl::StatusOr<cudnnDataType_t> type = cudnnType(x.dtype);
  if (!type.ok() || outer > kMax || length > kMax || inner > kMax ||
      outer * length * inner > kMax)
    return stageOnHost(std::move(*cpuKernel));
  int dims[3] = {static_cast<int>(outer), static_cast<int>(length),
                 static_cast<int>(inner)};
  return std::unique_ptr<Kernel>(new SoftmaxKernel(op, log, dims, *type));
}

} // namespace

void cuda::registerSoftmaxKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, "oneflow.softmax",
               [](const OpDesc &op) { return createSoftmax(op, false); });
  registry.add(DeviceKind::Cuda, "oneflow.log_softmax",
               [](const OpDesc &op) { return createSoftmax(op, true); });
}
