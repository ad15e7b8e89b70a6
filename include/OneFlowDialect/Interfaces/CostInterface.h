//===- CostInterface.h - Compute cost of an op ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_H
#define ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_H

#include "mlir/IR/OpDefinition.h"

#include "OneFlowDialect/Interfaces/CostInterface.h.inc"

namespace mlir::oneflow {

/// Attaches CostInterface to every op of the oneflow dialect (the dialect
/// calls this when it is loaded): matrix products and convolutions count
/// their multiply-adds, other ops one operation per result element.
void attachCostInterfaceModels(MLIRContext &context);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_H
