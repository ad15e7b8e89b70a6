//===- ExampleKernels.cpp - The plugin's runtime kernels ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The runtime half of the example plugin: CPU kernels for ofexample.swish
// and ofexample.add_row_index, so that programs that use them train under
// of-run:
//
//   of-run model.mlir --train --devices cpu:4 \
//       --plugin OneFlowExamplePlugin.so,OneFlowExampleKernels.so
//
// Built against the runtime's headers only (no MLIR): the runner exports
// the runtime, so this library links none of it, and of-run-plan loads it
// the same way on a node without the compiler.
//
//===----------------------------------------------------------------------===//

#include "ofrt/KernelChecks.h"
#include "ofrt/KernelPlugin.h"

#include <cmath>
#include <optional>
#include <string>
#include <variant>
#include <vector>

// ofexample::params: the ops' attributes as typed structs, from ExampleOps.td
// (of-tblgen -gen-kernel-params).
#include "ExampleKernelParams.h.inc"

namespace {

/// y = x * sigmoid(x), f32.
class SwishKernel : public ofrt::Kernel {
public:
  absl::Status compute(const ofrt::KernelContext &,
                       const std::vector<ofrt::TensorView> &inputs,
                       const std::vector<ofrt::TensorView> &outputs) override {
    const float *x = inputs[0].as<float>();
    float *y = outputs[0].as<float>();
    int64_t n = inputs[0].desc.numel();
    for (int64_t i = 0; i < n; ++i)
      y[i] = x[i] / (1.0f + std::exp(-x[i]));
    return absl::OkStatus();
  }
};

absl::StatusOr<std::unique_ptr<ofrt::Kernel>>
createSwish(const ofrt::OpDesc &op) {
  if (op.inputs.size() != 1 || op.outputs.size() != 1)
    return ofrt::opError(op, "needs 1 operand and 1 result");
  if (op.inputs[0].dtype != ofrt::DType::F32 || op.outputs[0] != op.inputs[0])
    return ofrt::opError(op, "computes f32 only, with the operand's type, "
                             "not " +
                                 op.inputs[0].str() + " -> " +
                                 op.outputs[0].str());
  return std::make_unique<SwishKernel>();
}

/// y[i, ...] = x[i, ...] + scale * (begin + i), f32: row i of the piece is
/// row begin + i of the logical tensor.
class AddRowIndexKernel : public ofrt::Kernel {
public:
  AddRowIndexKernel(int64_t begin, float scale) : begin(begin), scale(scale) {}

  absl::Status compute(const ofrt::KernelContext &,
                       const std::vector<ofrt::TensorView> &inputs,
                       const std::vector<ofrt::TensorView> &outputs) override {
    const float *x = inputs[0].as<float>();
    float *y = outputs[0].as<float>();
    int64_t rows = inputs[0].desc.shape[0];
    int64_t width = rows == 0 ? 0 : inputs[0].desc.numel() / rows;
    for (int64_t r = 0; r < rows; ++r) {
      float add = scale * static_cast<float>(begin + r);
      for (int64_t k = 0; k < width; ++k)
        y[r * width + k] = x[r * width + k] + add;
    }
    return absl::OkStatus();
  }

private:
  int64_t begin;
  float scale;
};

/// The rows come from the actor's typed layout (an index range the op's
/// RankLoweringInterface model returned); on one device there is none and
/// the piece is the whole tensor.
absl::StatusOr<std::unique_ptr<ofrt::Kernel>>
createAddRowIndex(const ofrt::OpDesc &op) {
  if (op.inputs.size() != 1 || op.outputs.size() != 1)
    return ofrt::opError(op, "needs 1 operand and 1 result");
  const ofrt::TensorDesc &x = op.inputs[0];
  if (x.dtype != ofrt::DType::F32 || x.shape.empty() || op.outputs[0] != x)
    return ofrt::opError(op, "computes f32 of rank 1 or more only, with the "
                             "operand's type, not " +
                                 x.str() + " -> " + op.outputs[0].str());
  OFRT_READ_PARAMS(declared, ofexample::params::AddRowIndexOp, op);
  int64_t begin = 0;
  if (const auto *rows = op.layoutAs<ofrt::IndexRange>()) {
    if (rows->begin < 0 || rows->begin + x.shape[0] > rows->limit)
      return ofrt::opError(op, "holds rows [" + std::to_string(rows->begin) +
                                   ", " +
                                   std::to_string(rows->begin + x.shape[0]) +
                                   ") of " + std::to_string(rows->limit));
    begin = rows->begin;
  } else if (!std::holds_alternative<std::monostate>(op.layout)) {
    return ofrt::opError(op, "needs an index range layout");
  }
  return std::make_unique<AddRowIndexKernel>(
      begin, static_cast<float>(declared.scale));
}

} // namespace

extern "C" __attribute__((visibility("default"))) void
ofrtRegisterKernels(ofrt::KernelRegistry &registry) {
  registry.add(ofrt::DeviceKind::Cpu, ofexample::params::SwishOp::kOpName,
               createSwish);
  registry.add(ofrt::DeviceKind::Cpu,
               ofexample::params::AddRowIndexOp::kOpName, createAddRowIndex);
}
