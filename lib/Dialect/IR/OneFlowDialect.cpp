//===- OneFlowDialect.cpp - OneFlow dialect -------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"
#include "OneFlowDialect/Interfaces/RankLoweringInterface.h"

#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::oneflow;

#include "OneFlowDialect/IR/OneFlowDialect.cpp.inc"

namespace {
/// Prints placements through short aliases (`#cpu4`, `#cuda2x2`), so that a
/// program states each device set once.
struct OneFlowOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;

  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    auto placement = dyn_cast<PlacementAttr>(attr);
    if (!placement)
      return AliasResult::NoAlias;
    os << stringifyDeviceKind(placement.getDevice());
    llvm::interleave(placement.getMesh(), os, "x");
    return AliasResult::FinalAlias;
  }
};
} // namespace

void OneFlowDialect::initialize() {
  registerAttributes();
  registerOps();
  // The rules are external models (registerOneFlowExternalModels).
  declarePromisedInterfaces<CostInterface,
#define GET_OP_LIST
#include "OneFlowDialect/IR/OneFlowOps.cpp.inc"
                            >();
  declarePromisedInterfaces<GradientInterface, ONEFLOW_MATH_GRADIENT_OPS,
                            ONEFLOW_NN_GRADIENT_OPS, ONEFLOW_SHAPE_GRADIENT_OPS,
                            ONEFLOW_CONV_GRADIENT_OPS>();
  declarePromisedInterfaces<RankLoweringInterface, ONEFLOW_RANK_LOWERING_OPS>();
  addInterfaces<OneFlowOpAsmInterface>();
}
