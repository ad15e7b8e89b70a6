//===- Conv.cpp - conv2d and its backward ops through cuDNN ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// f32 NCHW tensors and OIHW filters (groups through the convolution's group
// count), symmetric pads, with cuDNN's convolution API: the algorithm is the
// fastest deterministic one cuDNN's heuristic proposes that fits the
// workspace limit, chosen on the first firing. Math is plain f32
// (CUDNN_FMA_MATH) unless the device allows TF32. The CPU kernels check the
// ops; asymmetric pads and convolutions that read nothing run staged.
//
// This is cuDNN's legacy convolution API, which cuDNN 9 keeps but marks
// deprecated; its graph API is the way forward (not done yet).
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/ConvUtils.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "ofrt/KernelParams.h"

#include <limits>

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

constexpr size_t kWorkspaceLimit = size_t(256) << 20;

enum class Pass { Forward, BackwardData, BackwardFilter };

/// The descriptors of one convolution.
struct ConvDescriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;

  ~ConvDescriptors() {
    for (cudnnTensorDescriptor_t t : {x, y, bias})
      if (t)
        cudnnDestroyTensorDescriptor(t);
    if (w)
      cudnnDestroyFilterDescriptor(w);
    if (conv)
      cudnnDestroyConvolutionDescriptor(conv);
  }

  cudnnStatus_t create(const cpu::ConvGeometry &g, bool hasBias, bool tf32) {
    auto dim = [](int64_t v) { return static_cast<int>(v); };
    cudnnStatus_t s = cudnnCreateTensorDescriptor(&x);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                     dim(g.x[0]), dim(g.x[1]), dim(g.x[2]),
                                     dim(g.x[3]));
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnCreateTensorDescriptor(&y);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetTensor4dDescriptor(y, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                     dim(g.y[0]), dim(g.y[1]), dim(g.y[2]),
                                     dim(g.y[3]));
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnCreateFilterDescriptor(&w);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetFilter4dDescriptor(w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                     dim(g.w[0]), dim(g.w[1]), dim(g.w[2]),
                                     dim(g.w[3]));
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnCreateConvolutionDescriptor(&conv);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetConvolution2dDescriptor(
          conv, dim(g.pads[0]), dim(g.pads[1]), dim(g.strides[0]),
          dim(g.strides[1]), dim(g.dilations[0]), dim(g.dilations[1]),
          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetConvolutionGroupCount(conv, dim(g.groups));
    if (s == CUDNN_STATUS_SUCCESS)
      s = cudnnSetConvolutionMathType(conv, tf32 ? CUDNN_DEFAULT_MATH
                                                 : CUDNN_FMA_MATH);
    if (s == CUDNN_STATUS_SUCCESS && hasBias) {
      s = cudnnCreateTensorDescriptor(&bias);
      if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnSetTensor4dDescriptor(bias, CUDNN_TENSOR_NCHW,
                                       CUDNN_DATA_FLOAT, 1, dim(g.y[1]), 1, 1);
    }
    return s;
  }
};

/// The first deterministic algorithm of cuDNN's ranking whose workspace
/// fits, or else the first that fits; without `tf32`, only algorithms of
/// plain FMA math. Its math type goes on the descriptor, as cuDNN asks.
template <typename Perf>
bool pick(const Perf *perf, int count, bool tf32, int &algo, size_t &workspace,
          cudnnMathType_t &math) {
  for (bool deterministic : {true, false})
    for (int i = 0; i < count; ++i)
      if (perf[i].status == CUDNN_STATUS_SUCCESS &&
          perf[i].memory <= kWorkspaceLimit &&
          (tf32 || perf[i].mathType == CUDNN_FMA_MATH) &&
          (!deterministic || perf[i].determinism == CUDNN_DETERMINISTIC)) {
        algo = static_cast<int>(perf[i].algo);
        workspace = perf[i].memory;
        math = perf[i].mathType;
        return true;
      }
  return false;
}

/// pick(), and without TF32 also algorithms that report the default math
/// type when none reports FMA (the descriptor stays FMA).
template <typename Perf>
bool pickFor(const Perf *perf, int count, bool tf32, int &algo,
             size_t &workspace, cudnnMathType_t &math) {
  if (pick(perf, count, tf32, algo, workspace, math))
    return true;
  if (tf32 || !pick(perf, count, true, algo, workspace, math) ||
      math != CUDNN_DEFAULT_MATH)
    return false;
  math = CUDNN_FMA_MATH;
  return true;
}

class ConvKernel : public CudaKernel {
public:
  ConvKernel(const OpDesc &op, Pass pass, cpu::ConvGeometry g, bool hasBias)
      : CudaKernel(op), pass(pass), g(std::move(g)), hasBias(hasBias) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    absl::StatusOr<cudnnHandle_t> handle = stream.cudnn();
    if (!handle.ok())
      return handle.status();
    if (!ready) {
      cudnnStatus_t s = d.create(g, hasBias, stream.allowTf32());
      if (s != CUDNN_STATUS_SUCCESS)
        return cudnnFailure(where, "setting up the convolution", s);
      OFRT_RETURN_IF_ERROR(chooseAlgorithm(*handle, stream.allowTf32()));
      ready = true;
    }
    absl::StatusOr<void *> workspace = stream.workspace(workspaceBytes);
    if (!workspace.ok())
      return workspace.status();
    float one = 1, zero = 0;
    cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
    switch (pass) {
    case Pass::Forward:
      s = cudnnConvolutionForward(
          *handle, &one, d.x, in[0].data, d.w, in[1].data, d.conv,
          static_cast<cudnnConvolutionFwdAlgo_t>(algo), *workspace,
          workspaceBytes, &zero, d.y, out[0].data);
      if (s == CUDNN_STATUS_SUCCESS && hasBias)
        s = cudnnAddTensor(*handle, &one, d.bias, in[2].data, &one, d.y,
                           out[0].data);
      break;
    case Pass::BackwardData: // dy, w -> dx
      s = cudnnConvolutionBackwardData(
          *handle, &one, d.w, in[1].data, d.y, in[0].data, d.conv,
          static_cast<cudnnConvolutionBwdDataAlgo_t>(algo), *workspace,
          workspaceBytes, &zero, d.x, out[0].data);
      break;
    case Pass::BackwardFilter: // x, dy -> dw
      s = cudnnConvolutionBackwardFilter(
          *handle, &one, d.x, in[0].data, d.y, in[1].data, d.conv,
          static_cast<cudnnConvolutionBwdFilterAlgo_t>(algo), *workspace,
          workspaceBytes, &zero, d.w, out[0].data);
      break;
    }
    if (s != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "the cuDNN convolution", s);
    return absl::OkStatus();
  }

private:
  absl::Status chooseAlgorithm(cudnnHandle_t handle, bool tf32) {
    cudnnMathType_t math = CUDNN_FMA_MATH;
    constexpr int kMax = 16;
    int count = 0;
    bool found = false;
    cudnnStatus_t s = CUDNN_STATUS_SUCCESS;
    if (pass == Pass::Forward) {
      cudnnConvolutionFwdAlgoPerf_t perf[kMax];
      s = cudnnGetConvolutionForwardAlgorithm_v7(handle, d.x, d.w, d.conv, d.y,
                                                 kMax, &count, perf);
      found = s == CUDNN_STATUS_SUCCESS &&
              pickFor(perf, count, tf32, algo, workspaceBytes, math);
    } else if (pass == Pass::BackwardData) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[kMax];
      s = cudnnGetConvolutionBackwardDataAlgorithm_v7(handle, d.w, d.y, d.conv,
                                                      d.x, kMax, &count, perf);
      found = s == CUDNN_STATUS_SUCCESS &&
              pickFor(perf, count, tf32, algo, workspaceBytes, math);
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[kMax];
      s = cudnnGetConvolutionBackwardFilterAlgorithm_v7(
          handle, d.x, d.y, d.conv, d.w, kMax, &count, perf);
      found = s == CUDNN_STATUS_SUCCESS &&
              pickFor(perf, count, tf32, algo, workspaceBytes, math);
    }
    if (s != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "choosing a convolution algorithm", s);
    if (found)
      s = cudnnSetConvolutionMathType(d.conv, math);
    if (s != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "cudnnSetConvolutionMathType", s);
    if (!found)
      return absl::UnimplementedError(
          where + ": cuDNN proposes no convolution algorithm within " +
          std::to_string(kWorkspaceLimit >> 20) + " MiB of workspace");
    return absl::OkStatus();
  }

  Pass pass;
  cpu::ConvGeometry g;
  bool hasBias;
  ConvDescriptors d;
  bool ready = false;
  int algo = 0;
  size_t workspaceBytes = 0;
};

absl::StatusOr<std::unique_ptr<Kernel>> createConv(const OpDesc &op,
                                                   Pass pass) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  // x and w: operands of conv2d, dx (result) and w of the backward data
  // pass, x and dw (result) of the backward filter pass.
  const TensorDesc &x =
      pass == Pass::BackwardData ? op.outputs[0] : op.inputs[0];
  const TensorDesc &w = pass == Pass::Forward        ? op.inputs[1]
                        : pass == Pass::BackwardData ? op.inputs[1]
                                                     : op.outputs[0];
  cpu::ConvGeometry g;
  OFRT_RETURN_IF_ERROR(cpu::readConvGeometry(op, x, w, g));
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  bool fits = x.dtype == DType::F32 && g.pads[0] == g.pads[2] &&
              g.pads[1] == g.pads[3] && !g.readsNothing();
  for (const cpu::Shape *shape : {&g.x, &g.w, &g.y})
    for (int64_t d : *shape)
      fits &= d > 0 && d <= kMax;
  if (!fits)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new ConvKernel(
      op, pass, std::move(g), pass == Pass::Forward && op.inputs.size() == 3));
}

} // namespace

void cuda::registerConvKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::Conv2DOp::kOpName,
               [](const OpDesc &op) { return createConv(op, Pass::Forward); });
  registry.add(
      DeviceKind::Cuda, params::Conv2DBackwardDataOp::kOpName,
      [](const OpDesc &op) { return createConv(op, Pass::BackwardData); });
  registry.add(
      DeviceKind::Cuda, params::Conv2DBackwardFilterOp::kOpName,
      [](const OpDesc &op) { return createConv(op, Pass::BackwardFilter); });
}
