//===- ActorDialect.h - oneflow_actor dialect and types ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ACTOR_ACTORDIALECT_H
#define ONEFLOWDIALECT_ACTOR_ACTORDIALECT_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"

#include "OneFlowDialect/Actor/ActorDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "OneFlowDialect/Actor/ActorTypes.h.inc"

#define GET_ATTRDEF_CLASSES
#include "OneFlowDialect/Actor/ActorAttrs.h.inc"

#endif // ONEFLOWDIALECT_ACTOR_ACTORDIALECT_H
