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

#endif // ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_H
