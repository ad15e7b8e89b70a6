//===- Passes.h - OneFlow passes --------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_PASSES_H
#define ONEFLOWDIALECT_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::oneflow {

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

#define GEN_PASS_DECL
#include "OneFlowDialect/Transforms/Passes.h.inc" // IWYU pragma: keep

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GEN_PASS_REGISTRATION
#include "OneFlowDialect/Transforms/Passes.h.inc" // IWYU pragma: keep

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_TRANSFORMS_PASSES_H
