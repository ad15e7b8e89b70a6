//===- Pooling.cpp - max/avg pools, their gradients, global avg pool ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// cuDNN's pooling on f32 NCHW: max (NaN propagates; the deterministic
// mode, whose gradient goes to one element of a window), average excluding or
// including the padding. A gradient (x, dy) -> dx recomputes the pool's
// result into the stream's workspace, as cuDNN's backward pass reads it.
// Without ceil_mode and dilation, and with symmetric pads, cuDNN's windows
// and divisors are the CPU kernel's (PyTorch's); other pools run staged.
// The CPU kernels check the ops.
//
// This is cuDNN's legacy pooling API, which cuDNN 9 keeps but marks
// deprecated (as for Conv.cpp).
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/KernelUtils.h"
#include "Kernels/Cpu/OpParams.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

struct Window {
  int kernel[2], stride[2], pad[2];
};

class PoolKernel : public CudaKernel {
public:
  PoolKernel(const OpDesc &op, cudnnPoolingMode_t mode, Window window,
             bool grad)
      : CudaKernel(op), mode(mode), window(window), grad(grad),
        x(op.inputs[0].shape),
        y(grad ? op.inputs[1].shape : op.outputs[0].shape) {}
  ~PoolKernel() override {
    if (pool)
      cudnnDestroyPoolingDescriptor(pool);
    for (cudnnTensorDescriptor_t t : {xDesc, yDesc})
      if (t)
        cudnnDestroyTensorDescriptor(t);
  }

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    absl::StatusOr<cudnnHandle_t> handle = stream.cudnn();
    if (!handle.ok())
      return handle.status();
    if (!ready) {
      cudnnStatus_t s = setUp();
      if (s != CUDNN_STATUS_SUCCESS)
        return cudnnFailure(where, "setting up the pool", s);
    }
    float one = 1, zero = 0;
    if (!grad) {
      cudnnStatus_t s = cudnnPoolingForward(
          *handle, pool, &one, xDesc, in[0].data, &zero, yDesc, out[0].data);
      if (s != CUDNN_STATUS_SUCCESS)
        return cudnnFailure(where, "cudnnPoolingForward", s);
      return absl::OkStatus();
    }
    absl::StatusOr<void *> pooled = stream.workspace(in[1].desc.bytes());
    if (!pooled.ok())
      return pooled.status();
    cudnnStatus_t s = cudnnPoolingForward(*handle, pool, &one, xDesc,
                                          in[0].data, &zero, yDesc, *pooled);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnPoolingBackward(*handle, pool, &one, yDesc, *pooled, yDesc,
                               in[1].data, xDesc, in[0].data, &zero, xDesc,
                               out[0].data);
    if (s != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "cudnnPoolingBackward", s);
    return absl::OkStatus();
  }

private:
  cudnnStatus_t setUp() {
    auto dim = [](int64_t v) { return static_cast<int>(v); };
    cudnnStatus_t s =
        pool ? CUDNN_STATUS_SUCCESS : cudnnCreatePoolingDescriptor(&pool);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetPooling2dDescriptor(
          pool, mode, CUDNN_PROPAGATE_NAN, window.kernel[0], window.kernel[1],
          window.pad[0], window.pad[1], window.stride[0], window.stride[1]);
    if (s == CUDNN_STATUS_SUCCESS && !xDesc)
      s = cudnnCreateTensorDescriptor(&xDesc);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetTensor4dDescriptor(xDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                     dim(x[0]), dim(x[1]), dim(x[2]),
                                     dim(x[3]));
    if (s == CUDNN_STATUS_SUCCESS && !yDesc)
      s = cudnnCreateTensorDescriptor(&yDesc);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetTensor4dDescriptor(yDesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                     dim(y[0]), dim(y[1]), dim(y[2]),
                                     dim(y[3]));
    return s;
  }

  cudnnPoolingMode_t mode;
  Window window;
  bool grad;
  std::vector<int64_t> x, y;
  cudnnPoolingDescriptor_t pool = nullptr;
  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr;
  bool ready = false;
};

/// Whether every size fits cuDNN's ints (and is not zero).
bool fitsInt(const std::vector<int64_t> &shape) {
  for (int64_t d : shape)
    if (d <= 0 || d > (int64_t(1) << 30))
      return false;
  return true;
}

absl::StatusOr<std::unique_ptr<Kernel>> createPool(const OpDesc &op, bool isMax,
                                                   bool grad) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  absl::StatusOr<cpu::PoolWindow> declared = cpu::readPoolWindow(op);
  if (!declared.ok())
    return declared.status();
  const std::vector<int64_t> &kernel = declared->kernel,
                             &strides = declared->strides,
                             &pads = declared->pads,
                             &dilations = declared->dilations;
  bool ceilMode = declared->ceilMode, includePad = declared->includePad;
  const std::vector<int64_t> &result =
      grad ? op.inputs[1].shape : op.outputs[0].shape;
  if (ceilMode || dilations != std::vector<int64_t>{1, 1} ||
      pads[0] != pads[2] || pads[1] != pads[3] ||
      !fitsInt(op.inputs[0].shape) || !fitsInt(result) || !fitsInt(kernel))
    return stageOnHost(std::move(*cpuKernel));
  Window window;
  for (int i = 0; i < 2; ++i) {
    window.kernel[i] = static_cast<int>(kernel[i]);
    window.stride[i] = static_cast<int>(strides[i]);
    window.pad[i] = static_cast<int>(pads[i]);
  }
  cudnnPoolingMode_t mode = isMax ? CUDNN_POOLING_MAX
                            : includePad
                                ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  return std::unique_ptr<Kernel>(new PoolKernel(op, mode, window, grad));
}

absl::StatusOr<std::unique_ptr<Kernel>> createGlobalAvgPool(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const std::vector<int64_t> &x = op.inputs[0].shape;
  if (!fitsInt(x))
    return stageOnHost(std::move(*cpuKernel));
  Window window = {
      {static_cast<int>(x[2]), static_cast<int>(x[3])}, {1, 1}, {0, 0}};
  return std::unique_ptr<Kernel>(new PoolKernel(
      op, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING, window, false));
}

} // namespace

void cuda::registerPoolingKernels(KernelRegistry &registry) {
  for (auto [type, isMax, grad] :
       {std::tuple{params::MaxPool2DOp::kOpName, true, false},
        {params::MaxPool2DGradOp::kOpName, true, true},
        {params::AvgPool2DOp::kOpName, false, false},
        {params::AvgPool2DGradOp::kOpName, false, true}})
    registry.add(DeviceKind::Cuda, type,
                 [isMax = isMax, grad = grad](const OpDesc &op) {
                   return createPool(op, isMax, grad);
                 });
  registry.add(DeviceKind::Cuda, params::GlobalAvgPool2DOp::kOpName,
               createGlobalAvgPool);
}
