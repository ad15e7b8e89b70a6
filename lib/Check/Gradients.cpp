//===- Gradients.cpp - Autodiff against finite differences ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofcheck/Gradients.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <cstdio>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// The output that fetches a variable's initial value.
std::string valueOutputName(StringRef variable) {
  return "of-check.value." + variable.str();
}

absl::Status errorOf(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

/// The f32 scalar output `name` of `outputs`.
absl::StatusOr<double> scalarOutput(const ofcheck::Outputs &outputs,
                                    const std::string &name) {
  auto it = outputs.find(name);
  if (it == outputs.end() || it->second.desc.dtype != ofrt::DType::F32 ||
      it->second.desc.numel() != 1)
    return errorOf("the program has no scalar f32 output '" + name + "'");
  return static_cast<double>(
      reinterpret_cast<const float *>(it->second.bytes.data())[0]);
}

const float *floatsOf(const ofrt::TensorData &tensor) {
  return reinterpret_cast<const float *>(tensor.bytes.data());
}

/// Every variable of `module` named `name`.
SmallVector<VariableOp> variablesNamed(ModuleOp module, StringRef name) {
  SmallVector<VariableOp> found;
  module.walk([&](VariableOp variable) {
    if (variable.getName() == name)
      found.push_back(variable);
  });
  return found;
}

} // namespace

namespace ofcheck {

absl::StatusOr<GradientCheckResult>
checkGradients(ModuleOp module, const GradientCheckOptions &options,
               const RunFn &run) {
  // The program with its gradients and the variables' values as outputs.
  OwningOpRef<ModuleOp> program = module.clone();
  PassManager pm(module.getContext());
  AutodiffPassOptions autodiffOptions;
  autodiffOptions.loss = options.loss;
  pm.addNestedPass<func::FuncOp>(createAutodiffPass(autodiffOptions));
  if (failed(pm.run(*program)))
    return errorOf("oneflow-autodiff failed (the errors above say why)");
  SmallVector<std::string> variables;
  program->walk([&](OutputOp output) {
    auto of = output->getAttrOfType<StringAttr>("grad_of");
    if (!of)
      return;
    variables.push_back(of.str());
    OpBuilder b(output);
    b.setInsertionPointAfter(output);
    for (VariableOp variable : variablesNamed(*program, of.getValue()))
      OutputOp::create(b, output.getLoc(), valueOutputName(of.getValue()),
                       variable.getResult());
  });
  if (variables.empty())
    return errorOf("no trainable variable reaches output '" + options.loss +
                   "'");
  absl::StatusOr<Outputs> base = run(program.release(), "the program");
  if (!base.ok())
    return base.status();

  GradientCheckResult result;
  for (const std::string &name : variables) {
    const ofrt::TensorData &grad = base->at(name + ".grad");
    const ofrt::TensorData &value = base->at(valueOutputName(name));
    std::vector<float> values(floatsOf(value),
                              floatsOf(value) + value.desc.numel());
    int64_t count = static_cast<int64_t>(values.size());
    int64_t samples = std::min<int64_t>(options.samples, count);
    for (int64_t s = 0; s < samples; ++s) {
      // Spread over the tensor, first and last element included.
      int64_t index = samples == 1 ? 0 : s * (count - 1) / (samples - 1);
      double losses[2];
      for (int side = 0; side < 2; ++side) {
        std::vector<float> moved = values;
        moved[index] += static_cast<float>(side ? -options.eps : options.eps);
        OwningOpRef<ModuleOp> variant = module.clone();
        for (VariableOp variable : variablesNamed(*variant, name)) {
          auto type = stripEncoding(variable.getType());
          variable.setValueAttr(
              DenseElementsAttr::get(type, ArrayRef<float>(moved)));
          variable.removeInitAttr();
        }
        absl::StatusOr<Outputs> outputs =
            run(variant.release(), "'" + name + "' moved");
        if (!outputs.ok())
          return outputs.status();
        absl::StatusOr<double> loss = scalarOutput(*outputs, options.loss);
        if (!loss.ok())
          return loss.status();
        losses[side] = *loss;
      }
      // The step actually taken in f32.
      double step = static_cast<double>(values[index] + float(options.eps)) -
                    static_cast<double>(values[index] - float(options.eps));
      double differences = (losses[0] - losses[1]) / step;
      double autodiff = floatsOf(grad)[index];
      bool ok = std::fabs(autodiff - differences) <=
                options.atol + options.rtol * std::max(std::fabs(autodiff),
                                                       std::fabs(differences));
      ok ? ++result.passed : ++result.failed;
      if (!ok || options.verbose)
        std::printf("%s d%s/d%s[%lld]: autodiff %.6g, differences %.6g\n",
                    ok ? "PASS" : "FAIL", options.loss.c_str(), name.c_str(),
                    static_cast<long long>(index), autodiff, differences);
    }
  }
  std::fflush(stdout);
  return result;
}

} // namespace ofcheck
