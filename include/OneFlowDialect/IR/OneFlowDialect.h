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

#endif // ONEFLOWDIALECT_IR_ONEFLOWDIALECT_H
