//===- BatchNorm.cpp - batch_norm (training) and batch_norm_grad ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// cuDNN's spatial batch normalization on the [outer / G, C, inner, 1] view
// of each of the G statistics groups (one group without
// statistics_groups): the forward pass returns the batch mean and cuDNN's
// saved inverse standard deviation 1 / sqrt(var + eps) with the biased
// variance, which are the op's results; it updates no running statistics
// (moving_average_update does). The backward pass sums dgamma and dbeta over
// the groups through cuDNN's beta for the parameter gradients. Inference,
// epsilons under cuDNN's minimum and non-f32 tensors run staged. The CPU
// kernels check the ops.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/CudaKernels.h"

#include "ofrt/KernelChecks.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

class BatchNormKernel : public CudaKernel {
public:
  BatchNormKernel(const OpDesc &op, bool grad, int64_t outer, int64_t channels,
                  int64_t inner, int64_t groups, double eps)
      : CudaKernel(op), grad(grad), channels(channels), inner(inner),
        rows(outer / groups), groups(groups), eps(eps) {}
  ~BatchNormKernel() override {
    for (cudnnTensorDescriptor_t t : {data, stat})
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
      cudnnStatus_t s =
          data ? CUDNN_STATUS_SUCCESS : cudnnCreateTensorDescriptor(&data);
      if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnSetTensor4dDescriptor(
            data, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, static_cast<int>(rows),
            static_cast<int>(channels), static_cast<int>(inner), 1);
      if (s == CUDNN_STATUS_SUCCESS && !stat)
        s = cudnnCreateTensorDescriptor(&stat);
      if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnSetTensor4dDescriptor(stat, CUDNN_TENSOR_NCHW,
                                       CUDNN_DATA_FLOAT, 1,
                                       static_cast<int>(channels), 1, 1);
      if (s != CUDNN_STATUS_SUCCESS)
        return cudnnFailure(where, "setting up the batch norm", s);
      ready = true;
    }
    int64_t elements = rows * channels * inner;
    float one = 1, zero = 0;
    for (int64_t g = 0; g < groups; ++g) {
      const float *x = in[0].as<float>() + g * elements;
      cudnnStatus_t s;
      if (!grad) {
        // (x, gamma, beta, moving_mean, moving_variance) -> (y, mean, inv)
        s = cudnnBatchNormalizationForwardTraining(
            *handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, data, x, data,
            out[0].as<float>() + g * elements, stat, in[1].data, in[2].data,
            0.0, nullptr, nullptr, eps, out[1].as<float>() + g * channels,
            out[2].as<float>() + g * channels);
      } else {
        // (x, dy, mean, inv_variance, gamma) -> (dx, dgamma, dbeta)
        float accumulate = g == 0 ? 0.0f : 1.0f;
        s = cudnnBatchNormalizationBackward(
            *handle, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one, &accumulate,
            data, x, data, in[1].as<float>() + g * elements, data,
            out[0].as<float>() + g * elements, stat, in[4].data, out[1].data,
            out[2].data, eps, in[2].as<float>() + g * channels,
            in[3].as<float>() + g * channels);
      }
      if (s != CUDNN_STATUS_SUCCESS)
        return cudnnFailure(where, "the cuDNN batch normalization", s);
    }
    return absl::OkStatus();
  }

private:
  bool grad;
  int64_t channels, inner, rows, groups;
  double eps;
  cudnnTensorDescriptor_t data = nullptr, stat = nullptr;
  bool ready = false;
};

absl::StatusOr<std::unique_ptr<Kernel>> createBatchNorm(const OpDesc &op,
                                                        bool grad) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  int64_t axis = 0;
  double eps = 0;
  bool training = grad;
  if (grad) {
    OFRT_READ_PARAMS(declared, params::BatchNormGradOp, op);
    axis = declared.axis;
    eps = declared.epsilon;
  } else {
    OFRT_READ_PARAMS(declared, params::BatchNormOp, op);
    axis = declared.axis;
    eps = declared.epsilon;
    training = declared.training;
  }
  if (axis < 0)
    axis += x.rank();
  int64_t channels = x.shape[axis], outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    if (d != axis)
      (d < axis ? outer : inner) *= x.shape[d];
  // The statistics: a result of the forward op, an operand of the gradient.
  const TensorDesc &stats = grad ? op.inputs[2] : op.outputs[1];
  int64_t groups = stats.rank() == 2 ? stats.shape[0] : 1;
  constexpr int64_t kMax = int64_t(1) << 30;
  if (!training || eps < CUDNN_BN_MIN_EPSILON || x.numel() == 0 ||
      channels == 0 || groups < 1 || outer / groups > kMax || channels > kMax ||
      inner > kMax)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(
      new BatchNormKernel(op, grad, outer, channels, inner, groups, eps));
}

} // namespace

void cuda::registerBatchNormKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::BatchNormOp::kOpName,
               [](const OpDesc &op) { return createBatchNorm(op, false); });
  registry.add(DeviceKind::Cuda, params::BatchNormGradOp::kOpName,
               [](const OpDesc &op) { return createBatchNorm(op, true); });
}
