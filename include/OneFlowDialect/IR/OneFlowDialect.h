//===- OneFlowDialect.h - OneFlow dialect -----------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWDIALECT_H
#define ONEFLOWDIALECT_IR_ONEFLOWDIALECT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dialect.h"

#include "OneFlowDialect/IR/OneFlowDialect.h.inc"

namespace mlir::oneflow {

/// The dialect's discardable `oneflow.operand_layouts` (declared in ODS,
/// OneFlowBase.td): typed access to the layouts an op's chosen signature
/// needs of its operands.
inline OneFlowDialect::OperandLayoutsAttrHelper
operandLayoutsAttr(MLIRContext *context) {
  return context->getLoadedDialect<OneFlowDialect>()
      ->getOperandLayoutsAttrHelper();
}

/// Its name, for messages and for ops that may carry a malformed value.
inline constexpr llvm::StringLiteral kOperandLayoutsAttrName =
    OneFlowDialect::OperandLayoutsAttrHelper::getNameStr();

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_IR_ONEFLOWDIALECT_H
