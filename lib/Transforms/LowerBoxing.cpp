//===- LowerBoxing.cpp - Boxing to collectives and transfers --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/BoxingRoute.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "oneflow-lower-boxing"

namespace mlir::oneflow {
#define GEN_PASS_DEF_LOWERBOXINGPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// Creates the op of `step` turning `input` into a value of `type`.
static Value createStep(OpBuilder &builder, Location loc,
                        const BoxingStep &step, RankedTensorType type,
                        Value input) {
  uint64_t axis = step.meshAxis;
  switch (step.kind) {
  case BoxingKind::allReduce:
    return AllReduceOp::create(builder, loc, type, input, axis).getResult();
  case BoxingKind::reduceScatter:
    return ReduceScatterOp::create(builder, loc, type, input, axis).getResult();
  case BoxingKind::allGather:
    return AllGatherOp::create(builder, loc, type, input, axis).getResult();
  case BoxingKind::allToAll:
    return AllToAllOp::create(builder, loc, type, input, axis).getResult();
  case BoxingKind::localSlice:
    return LocalSliceOp::create(builder, loc, type, input, axis).getResult();
  case BoxingKind::toPartial:
    return ToPartialOp::create(builder, loc, type, input, axis).getResult();
  case BoxingKind::transfer:
    return TransferOp::create(builder, loc, type, input).getResult();
  }
  llvm_unreachable("unknown boxing kind");
}

namespace {
struct LowerBoxingPass
    : public mlir::oneflow::impl::LowerBoxingPassBase<LowerBoxingPass> {
  void runOnOperation() override {
    SmallVector<BoxingOp> boxings;
    getOperation().walk([&](BoxingOp boxing) { boxings.push_back(boxing); });
    bool failedAny = false;
    for (BoxingOp boxing : boxings) {
      auto type = cast<RankedTensorType>(boxing.getX().getType());
      std::string why;
      FailureOr<SmallVector<BoxingStep>> steps =
          planBoxing(type, getGlobalEncoding(type),
                     getGlobalEncoding(boxing.getType()), why);
      if (failed(steps)) {
        boxing.emitOpError() << why;
        failedAny = true;
        continue;
      }
      OpBuilder builder(boxing);
      Value current = boxing.getX();
      for (const BoxingStep &step : *steps)
        current = createStep(builder, boxing.getLoc(), step,
                             RankedTensorType::get(type.getShape(),
                                                   type.getElementType(),
                                                   step.to),
                             current);
      boxing.replaceAllUsesWith(current);
      boxing.erase();
    }
    if (failedAny)
      signalPassFailure();
  }
};
} // namespace
