//===- ExampleKernels.cpp - The plugin's runtime kernels ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The runtime half of the example plugin: a CPU kernel for ofexample.swish,
// so that programs that use the op train under of-run:
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

} // namespace

extern "C" __attribute__((visibility("default"))) void
ofrtRegisterKernels(ofrt::KernelRegistry &registry) {
  registry.add(ofrt::DeviceKind::Cpu, "ofexample.swish", createSwish);
}
