//===- Gradients.h - Autodiff against finite differences --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// `of-check --mode gradients`: runs `oneflow-autodiff` on a program whose
// loss output is a scalar, runs it on one rank, and compares a sample of the
// elements of each `<variable>.grad` output with central differences of the
// loss (the variable given as a `value` with one element moved by +-eps).
//
//===----------------------------------------------------------------------===//

#ifndef OFCHECK_GRADIENTS_H
#define OFCHECK_GRADIENTS_H

#include "ofrt/Tensor.h"

#include "mlir/IR/BuiltinOps.h"

#include "absl/status/statusor.h"

#include <functional>
#include <map>
#include <string>

namespace ofcheck {

using Outputs = std::map<std::string, ofrt::TensorData>;

/// Compiles and runs a module (consumed) on its ranks; `what` names it in
/// errors.
using RunFn =
    std::function<absl::StatusOr<Outputs>(mlir::ModuleOp, const std::string &)>;

struct GradientCheckOptions {
  std::string loss = "loss";
  /// Perturbation of one element.
  double eps = 1e-2;
  /// |autodiff - differences| <= atol + rtol * max(|autodiff|, |differences|).
  double rtol = 2e-2, atol = 1e-3;
  /// Elements checked per variable, spread over it.
  int64_t samples = 8;
  bool verbose = false;
};

struct GradientCheckResult {
  int passed = 0, failed = 0;
};

/// Checks the gradients of `module` (one rank, no layouts, shapes inferred;
/// not modified). Prints one line per failing element (every element with
/// `verbose`). An error when autodiff or a run fails.
absl::StatusOr<GradientCheckResult>
checkGradients(mlir::ModuleOp module, const GradientCheckOptions &options,
               const RunFn &run);

} // namespace ofcheck

#endif // OFCHECK_GRADIENTS_H
