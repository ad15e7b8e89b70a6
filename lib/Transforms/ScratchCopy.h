//===- ScratchCopy.h - Run passes on a copy of a function -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A pass that wants to know what other passes would make of a function
// (oneflow-assign-stages: the gradient ops autodiff adds; the layout search:
// what propagation makes of a hand strategy) runs them on a copy in a module
// of its own, its diagnostics silenced.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_TRANSFORMS_SCRATCHCOPY_H
#define ONEFLOW_LIB_TRANSFORMS_SCRATCHCOPY_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::oneflow {

/// A copy of a function, alone in a module; its ops are the function's in
/// the same order until passes run.
struct ScratchCopy {
  OwningOpRef<ModuleOp> module;
  func::FuncOp func;

  explicit ScratchCopy(func::FuncOp original);

  /// Runs `pm` (anchored on builtin.module) on the copy. The diagnostics of
  /// this thread are dropped (the caller reports what it refuses); other
  /// threads' (other functions' passes, other searches) pass through.
  LogicalResult run(PassManager &pm);
};

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_TRANSFORMS_SCRATCHCOPY_H
