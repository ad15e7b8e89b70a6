//===- CostInterface.h - Compute cost of an op ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_H
#define ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_H

#include "mlir/IR/OpDefinition.h"

#include "OneFlowDialect/Interfaces/CostInterface.h.inc"

#endif // ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_H
