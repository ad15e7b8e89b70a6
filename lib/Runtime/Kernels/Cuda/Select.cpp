//===- Select.cpp - where and masked_fill ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Both select words (Layout.cu): where between its broadcast branches,
// masked_fill between the fill value (one element on the device, its bytes
// made by the CPU's conversion) and the operand. The CPU kernels check the
// ops; more than kMaxAxes axes run staged.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/KernelUtils.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "Kernels/Cuda/Launch.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

class SelectKernel : public CudaKernel {
public:
  /// `fill`: masked_fill's value (operands: x, mask); empty for where
  /// (operands: condition, x, y).
  SelectKernel(const OpDesc &op, SelectShape shape, std::vector<uint8_t> fill)
      : CudaKernel(op), shape(shape), fill(std::move(fill)),
        size(dtypeSize(op.outputs[0].dtype)) {}
  ~SelectKernel() override {
    if (value)
      cudaFree(value);
  }

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    int64_t n = out[0].desc.numel();
    if (fill.empty())
      return check(launchSelect(size, in[0].data, in[1].data, in[2].data,
                                out[0].data, shape, n, stream.handle()),
                   "the select kernel");
    if (!value) {
      OFRT_RETURN_IF_ERROR(
          check(cudaMalloc(&value, fill.size()), "cudaMalloc"));
      OFRT_RETURN_IF_ERROR(
          check(cudaMemcpyAsync(value, fill.data(), fill.size(),
                                cudaMemcpyHostToDevice, stream.handle()),
                "cudaMemcpyAsync"));
    }
    return check(launchSelect(size, in[1].data, value, in[0].data, out[0].data,
                              shape, n, stream.handle()),
                 "the select kernel");
  }

private:
  SelectShape shape;
  std::vector<uint8_t> fill;
  void *value = nullptr;
  size_t size;
};

/// The operands' strides along `out` (0 where they broadcast); false when
/// `out` has more than kMaxAxes axes.
bool selectShape(const cpu::Shape &out, const cpu::Shape &c,
                 const cpu::Shape &x, const cpu::Shape &y, SelectShape &shape) {
  if (out.size() > static_cast<size_t>(kMaxAxes))
    return false;
  shape.rank = static_cast<int>(out.size());
  cpu::Shape cs = cpu::broadcastStrides(c, out),
             xs = cpu::broadcastStrides(x, out),
             ys = cpu::broadcastStrides(y, out);
  for (size_t d = 0; d < out.size(); ++d) {
    shape.shape[d] = out[d];
    shape.cStrides[d] = cs[d];
    shape.xStrides[d] = xs[d];
    shape.yStrides[d] = ys[d];
  }
  return true;
}

absl::StatusOr<std::unique_ptr<Kernel>> createWhere(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  SelectShape shape;
  if (!selectShape(op.outputs[0].shape, op.inputs[0].shape, op.inputs[1].shape,
                   op.inputs[2].shape, shape))
    return stageOnHost(std::move(*cpuKernel));
  return std::unique_ptr<Kernel>(new SelectKernel(op, shape, {}));
}

absl::StatusOr<std::unique_ptr<Kernel>> createMaskedFill(const OpDesc &op) {
  absl::StatusOr<std::unique_ptr<Kernel>> cpuKernel =
      KernelRegistry::global().create(DeviceKind::Cpu, op);
  if (!cpuKernel.ok())
    return cpuKernel.status();
  const TensorDesc &x = op.inputs[0];
  SelectShape shape;
  // Operands of the select: the mask, the value (one element), x.
  if (!selectShape(x.shape, op.inputs[1].shape, {}, x.shape, shape))
    return stageOnHost(std::move(*cpuKernel));
  OFRT_READ_PARAMS(declared, params::MaskedFillOp, op);
  double value = declared.value;
  std::vector<uint8_t> fill(dtypeSize(x.dtype));
  OFRT_RETURN_IF_ERROR(cpu::storeValues({value}, x.dtype, fill.data()));
  return std::unique_ptr<Kernel>(new SelectKernel(op, shape, std::move(fill)));
}

} // namespace

void cuda::registerSelectKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::WhereOp::kOpName, createWhere);
  registry.add(DeviceKind::Cuda, params::MaskedFillOp::kOpName, createMaskedFill);
}
