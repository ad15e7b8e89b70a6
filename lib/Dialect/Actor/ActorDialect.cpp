//===- ActorDialect.cpp - oneflow_actor dialect and types -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/Actor/ActorOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::actor;

#include "OneFlowDialect/Actor/ActorDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "OneFlowDialect/Actor/ActorTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "OneFlowDialect/Actor/ActorAttrs.cpp.inc"

void OneFlowActorDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "OneFlowDialect/Actor/ActorTypes.cpp.inc"
      >();
}

LogicalResult
PieceLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        DenseI64ArrayAttr logicalShape, DenseI64ArrayAttr begin,
                        DenseI64ArrayAttr microStride, bool) {
  if (begin.size() != logicalShape.size())
    return emitError() << "piece begins at " << begin.size()
                       << " coordinates in a tensor of rank "
                       << logicalShape.size();
  if (microStride && microStride.size() != logicalShape.size())
    return emitError() << "piece moves by a micro stride of rank "
                       << microStride.size() << " in a tensor of rank "
                       << logicalShape.size();
  return success();
}

void OneFlowActorDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "OneFlowDialect/Actor/ActorAttrs.cpp.inc"
      >();
}

void OneFlowActorDialect::initialize() {
  registerTypes();
  registerAttributes();
  registerOps();
}
