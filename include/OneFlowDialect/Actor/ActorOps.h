//===- ActorOps.h - Rank plans, regsts, actors, streams ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ACTOR_ACTOROPS_H
#define ONEFLOWDIALECT_ACTOR_ACTOROPS_H

#include "OneFlowDialect/Actor/ActorDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"

#define GET_OP_CLASSES
#include "OneFlowDialect/Actor/ActorOps.h.inc"

#endif // ONEFLOWDIALECT_ACTOR_ACTOROPS_H
