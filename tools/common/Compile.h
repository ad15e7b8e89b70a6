//===- Compile.h - Programs to plans, for the tools -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The compile step of of-run and of-check: a `oneflow` program through
// oneflow-default-pipeline to a binary plan, diagnostics on stderr.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_COMMON_COMPILE_H
#define ONEFLOW_TOOLS_COMMON_COMPILE_H

#include "Train.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include "absl/status/statusor.h"

#include <string>

namespace oftools {

/// The dialects a program and its plan use, with the ops' gradient and
/// cost rules (registerOneFlowExternalModels).
void registerToolDialects(mlir::DialectRegistry &registry);

/// Compiles `module` in place through oneflow-default-pipeline and returns
/// the binary plan; `what` names the program in errors (the diagnostics
/// themselves go to the context's handler). With `train`, the training
/// passes (oneflow::buildOneFlowTrainingPasses) come first; when the layout
/// search ran among them, `predictedStepSeconds` (if given) gets the step
/// time it predicts (else it is left alone).
absl::StatusOr<std::string>
compileToPlan(mlir::ModuleOp module, const std::string &what,
              const TrainOptions *train = nullptr,
              const std::string &device = "cpu",
              double *predictedStepSeconds = nullptr);

} // namespace oftools

#endif // ONEFLOW_TOOLS_COMMON_COMPILE_H
