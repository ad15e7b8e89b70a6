//===- OneFlowOps.h - OneFlow ops -------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWOPS_H
#define ONEFLOWDIALECT_IR_ONEFLOWOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"

#define GET_OP_CLASSES
#include "OneFlowDialect/IR/OneFlowOps.h.inc"

#endif // ONEFLOWDIALECT_IR_ONEFLOWOPS_H
