//===- ScratchCopy.cpp - Run passes on a copy of a function ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ScratchCopy.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"

#include <thread>

using namespace mlir;
using namespace mlir::oneflow;

ScratchCopy::ScratchCopy(func::FuncOp original)
    : module(ModuleOp::create(original.getLoc())) {
  OpBuilder builder(original.getContext());
  builder.setInsertionPointToEnd(module->getBody());
  func = cast<func::FuncOp>(builder.clone(*original));
}

LogicalResult ScratchCopy::run(PassManager &pm) {
  std::thread::id self = std::this_thread::get_id();
  ScopedDiagnosticHandler silence(func.getContext(), [self](Diagnostic &) {
    return success(std::this_thread::get_id() == self);
  });
  return pm.run(*module);
}
