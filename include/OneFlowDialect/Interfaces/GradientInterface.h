//===- GradientInterface.h - Backward ops of an op --------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_H
#define ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "OneFlowDialect/Interfaces/GradientInterface.h.inc"

namespace mlir::oneflow {

/// Attaches the gradient rules of the oneflow ops (external models of
/// GradientInterface); the dialect calls it when it loads.
void attachGradientInterfaceModels(MLIRContext &context);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_H
