//===- Softmax.cpp - softmax, log_softmax, sparse_softmax_cross_entropy ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The operand is seen as NCHW [outer, axis, inner, 1] and cuDNN normalizes
// over C (CUDNN_SOFTMAX_MODE_CHANNEL; CUDNN_SOFTMAX_ACCURATE subtracts the
// maximum first, CUDNN_SOFTMAX_LOG gives log_softmax; softmax_grad is
// cudnnSoftmaxBackward of the same view), for f32 and f64
// (f16 and bf16 run staged). The cross-entropy takes the softmax of its logits
// (its first result) and the log-softmax into the stream's workspace, from
// which a kernel picks each row's loss (Indexing.cu); a label outside [0,
// classes) fails the firing as on the CPU, which costs a stream synchronization
// per firing to read the check back. The CPU kernels check the ops.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cuda/CudaKernels.h"
#include "Kernels/Cuda/Launch.h"
#include "ofrt/KernelParams.h"

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
  default: // f16 and bf16 through cuDNN's legacy softmax: unverified.
    return absl::InvalidArgumentError(dtypeName(dtype));
  }
}

/// One cuDNN softmax over [outer, length, inner].
class CudnnSoftmax {
public:
  CudnnSoftmax(DType dtype, cudnnDataType_t type, int outer, int length,
               int inner)
      : dtype(dtype), type(type), dims{outer, length, inner} {}
  ~CudnnSoftmax() {
    if (desc)
      cudnnDestroyTensorDescriptor(desc);
  }
  CudnnSoftmax(const CudnnSoftmax &) = delete;
  CudnnSoftmax &operator=(const CudnnSoftmax &) = delete;

  absl::Status run(CudaStream &stream, const std::string &where, bool log,
                   const void *x, void *y) {
    absl::StatusOr<cudnnHandle_t> handle = prepare(stream, where);
    if (!handle.ok())
      return handle.status();
    cudnnStatus_t status = cudnnSoftmaxForward(
        *handle, log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
        CUDNN_SOFTMAX_MODE_CHANNEL, one(), desc, x, zero(), desc, y);
    if (status != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "cudnnSoftmaxForward", status);
    return absl::OkStatus();
  }

  /// The gradient of the softmax's operand from its result `y` and the
  /// result's gradient `dy`.
  absl::Status backward(CudaStream &stream, const std::string &where,
                        const void *y, const void *dy, void *dx) {
    absl::StatusOr<cudnnHandle_t> handle = prepare(stream, where);
    if (!handle.ok())
      return handle.status();
    cudnnStatus_t status = cudnnSoftmaxBackward(
        *handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_CHANNEL, one(),
        desc, y, desc, dy, zero(), desc, dx);
    if (status != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "cudnnSoftmaxBackward", status);
    return absl::OkStatus();
  }

private:
  /// The stream's cuDNN handle, with the descriptor set on first use.
  absl::StatusOr<cudnnHandle_t> prepare(CudaStream &stream,
                                        const std::string &where) {
    absl::StatusOr<cudnnHandle_t> handle = stream.cudnn();
    if (!handle.ok() || ready)
      return handle;
    cudnnStatus_t status =
        desc ? CUDNN_STATUS_SUCCESS : cudnnCreateTensorDescriptor(&desc);
    if (status == CUDNN_STATUS_SUCCESS)
      status = cudnnSetTensor4dDescriptor(desc, CUDNN_TENSOR_NCHW, type,
                                          dims[0], dims[1], dims[2], 1);
    if (status != CUDNN_STATUS_SUCCESS)
      return cudnnFailure(where, "cudnnSetTensor4dDescriptor", status);
    ready = true;
    return handle;
  }
  // cuDNN's scaling factors are double for f64 tensors, float otherwise.
  const void *one() const {
    return dtype == DType::F64 ? static_cast<const void *>(&oneD) : &oneF;
  }
  const void *zero() const {
    return dtype == DType::F64 ? static_cast<const void *>(&zeroD) : &zeroF;
  }

  static constexpr double oneD = 1, zeroD = 0;
  static constexpr float oneF = 1, zeroF = 0;
  DType dtype;
  cudnnDataType_t type;
  int dims[3];
  cudnnTensorDescriptor_t desc = nullptr;
  bool ready = false;
};

/// [outer, length, inner] as cuDNN's ints, or nullopt when too large.
std::optional<std::array<int, 3>> softmaxDims(int64_t outer, int64_t length,
                                              int64_t inner) {
  constexpr int64_t kMax = std::numeric_limits<int>::max();
  if (outer > kMax || length > kMax || inner > kMax ||
      outer * length * inner > kMax)
    return std::nullopt;
  return std::array<int, 3>{static_cast<int>(outer), static_cast<int>(length),
                            static_cast<int>(inner)};
}

/// `x` as cuDNN's [outer, length, inner] along `axis` (negative: from the
/// end), or nullopt when too large.
std::optional<std::array<int, 3>> softmaxDimsAlong(const TensorDesc &x,
                                                   int64_t axis) {
  if (axis < 0)
    axis += x.rank();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < x.rank(); ++d)
    (d < axis ? outer : inner) *= d == axis ? 1 : x.shape[d];
  return softmaxDims(outer, x.rank() ? x.shape[axis] : 1, inner);
}

class SoftmaxKernel : public CudaKernel {
public:
  SoftmaxKernel(const OpDesc &op, bool log, cudnnDataType_t type,
                std::array<int, 3> dims)
      : CudaKernel(op), log(log),
        softmax(op.inputs[0].dtype, type, dims[0], dims[1], dims[2]) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    if (out[0].desc.numel() == 0)
      return absl::OkStatus();
    return softmax.run(stream, where, log, in[0].data, out[0].data);
  }

private:
  bool log;
  CudnnSoftmax softmax;
};

absl::StatusOr<std::unique_ptr<Kernel>> createSoftmax(const OpDesc &op,
                                                      bool log) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  int64_t axis = 0;
  if (log) {
    OFRT_READ_PARAMS(declared, params::LogSoftmaxOp, op);
    axis = declared.axis;
  } else {
    OFRT_READ_PARAMS(declared, params::SoftmaxOp, op);
    axis = declared.axis;
  }
  absl::StatusOr<cudnnDataType_t> type = cudnnType(x.dtype);
  std::optional<std::array<int, 3>> dims = softmaxDimsAlong(x, axis);
  if (!type.ok() || !dims)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new SoftmaxKernel(op, log, *type, *dims));
}

class SoftmaxGradKernel : public CudaKernel {
public:
  SoftmaxGradKernel(const OpDesc &op, cudnnDataType_t type,
                    std::array<int, 3> dims)
      : CudaKernel(op),
        softmax(op.inputs[0].dtype, type, dims[0], dims[1], dims[2]) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    return softmax.backward(stream, where, in[0].data, in[1].data,
                            out[0].data);
  }

private:
  CudnnSoftmax softmax;
};

absl::StatusOr<std::unique_ptr<Kernel>> createSoftmaxGrad(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &y = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::SoftmaxGradOp, op);
  absl::StatusOr<cudnnDataType_t> type = cudnnType(y.dtype);
  std::optional<std::array<int, 3>> dims = softmaxDimsAlong(y, declared.axis);
  if (y.numel() == 0 || !type.ok() || !dims)
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new SoftmaxGradKernel(op, *type, *dims));
}

class CrossEntropyKernel : public CudaKernel {
public:
  CrossEntropyKernel(const OpDesc &op, cudnnDataType_t type,
                     std::array<int, 3> dims)
      : CudaKernel(op), rows(dims[0]), classes(dims[1]),
        softmax(op.inputs[0].dtype, type, dims[0], dims[1], 1) {}

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    absl::StatusOr<int64_t *> record = check.arm(stream, where);
    if (!record.ok())
      return record.status();
    OFRT_RETURN_IF_ERROR(
        softmax.run(stream, where, false, in[0].data, out[0].data));
    absl::StatusOr<void *> logProb = stream.workspace(in[0].desc.bytes());
    if (!logProb.ok())
      return logProb.status();
    OFRT_RETURN_IF_ERROR(
        softmax.run(stream, where, true, in[0].data, *logProb));
    OFRT_RETURN_IF_ERROR(CudaKernel::check(
        launchPickLoss(in[0].desc.dtype, *logProb, in[1].desc.dtype, in[1].data,
                       out[1].data, rows, classes, *record, stream.handle()),
        "the cross-entropy kernel"));
    absl::StatusOr<std::optional<std::pair<int64_t, int64_t>>> bad =
        check.firstBad(stream, where, in[1].data, in[1].desc.dtype);
    if (!bad.ok())
      return bad.status();
    if (!*bad)
      return absl::OkStatus();
    return absl::OutOfRangeError(
        where + ": label " + std::to_string((*bad)->second) + " at position " +
        std::to_string((*bad)->first) + " is outside [0, " +
        std::to_string(classes) + ")");
  }

private:
  int64_t rows, classes;
  CudnnSoftmax softmax;
  IndexCheck check;
};

absl::StatusOr<std::unique_ptr<Kernel>> createCrossEntropy(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &logits = op.inputs[0];
  int64_t rows = op.inputs[1].numel();
  int64_t classes = logits.rank() ? logits.shape.back() : 1;
  absl::StatusOr<cudnnDataType_t> type = cudnnType(logits.dtype);
  std::optional<std::array<int, 3>> dims = softmaxDims(rows, classes, 1);
  if (rows == 0 || !dims || !type.ok() ||
      (logits.dtype != DType::F32 && logits.dtype != DType::F64))
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new CrossEntropyKernel(op, *type, *dims));
}

} // namespace

void cuda::registerSoftmaxKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::SoftmaxOp::kOpName,
               [](const OpDesc &op) { return createSoftmax(op, false); });
  registry.add(DeviceKind::Cuda, params::LogSoftmaxOp::kOpName,
               [](const OpDesc &op) { return createSoftmax(op, true); });
  registry.add(DeviceKind::Cuda, params::SparseSoftmaxCrossEntropyOp::kOpName,
               createCrossEntropy);
  registry.add(DeviceKind::Cuda, params::SoftmaxGradOp::kOpName,
               createSoftmaxGrad);
}
