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
    bool microBatched = getMicroBatches(getOperation()) > 1;
    bool failedAny = false;
    for (BoxingOp boxing : boxings) {
      auto type = cast<RankedTensorType>(boxing.getX().getType());
      GlobalAttr from = getGlobalEncoding(type);
      GlobalAttr to = getGlobalEncoding(boxing.getType());
      SmallVector<BoxingStep> steps;
      // A value partial over the micro-batches is summed on its own
      // placement before it moves to another (a transfer would sum it
      // over ranks, not over time).
      if (microBatched && from && to &&
          from.getPlacement() != to.getPlacement() &&
          from.getNdSbp()[0].isPartialSum()) {
        SmallVector<SbpAttr> summed(from.getNdSbp().getSbps());
        summed[0] = SbpAttr::getBroadcast(&getContext());
        GlobalAttr next =
            GlobalAttr::get(&getContext(), from.getPlacement(),
                            NdSbpAttr::get(&getContext(), summed));
        steps.push_back({BoxingKind::allReduce, 0, from, next});
        from = next;
      }
      // A value whole per step that another placement reads per
      // micro-batch moves once and is sliced there.
      GlobalAttr sliceFrom;
      if (microBatched && from && to &&
          from.getPlacement() != to.getPlacement() &&
          from.getNdSbp()[0].isBroadcast() && to.getNdSbp()[0].isSplit()) {
        SmallVector<SbpAttr> whole(to.getNdSbp().getSbps());
        whole[0] = SbpAttr::getBroadcast(&getContext());
        sliceFrom = GlobalAttr::get(&getContext(), to.getPlacement(),
                                    NdSbpAttr::get(&getContext(), whole));
      }
      std::string why;
      FailureOr<SmallVector<BoxingStep>> rest =
          planBoxing(type, from, sliceFrom ? sliceFrom : to, why);
      if (failed(rest)) {
        boxing.emitOpError() << why;
        failedAny = true;
        continue;
      }
      llvm::append_range(steps, *rest);
      if (sliceFrom)
        steps.push_back({BoxingKind::localSlice, 0, sliceFrom, to});
      OpBuilder builder(boxing);
      Value current = boxing.getX();
      for (const BoxingStep &step : steps)
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
