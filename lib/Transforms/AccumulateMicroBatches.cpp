//===- AccumulateMicroBatches.cpp - Sums over the micro-batch axis --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Mesh axis 0 of a micro-batched program is time: an all-reduce over it is
// a sum over the step's micro-batches, which one rank computes by adding
// each micro-batch's value as it comes (oneflow.accumulate). Every other
// movement of data across that axis is refused here, before the actor
// lowering relies on it; transfers between placements (pipeline stages)
// must keep the micro-batch axis as it is.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "oneflow-accumulate-micro-batches"

namespace mlir::oneflow {
#define GEN_PASS_DEF_ACCUMULATEMICROBATCHESPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The SBP of `type` on the micro-batch axis, or null for a local type.
static SbpAttr microSbp(Type type) {
  GlobalAttr global = getGlobalEncoding(type);
  return global ? global.getNdSbp()[0] : SbpAttr();
}

/// Checks one op of a micro-batched program; rewrites nothing.
static LogicalResult checkOp(Operation *op) {
  auto stepAxis = op->getAttrOfType<IntegerAttr>("mesh_axis");
  if (stepAxis && stepAxis.getInt() == 0 && isa<AllReduceOp>(op) &&
      !microSbp(op->getOperand(0).getType()).isPartialSum())
    return op->emitOpError()
           << "takes the "
           << toSupportSbp(microSbp(op->getOperand(0).getType())).str()
           << " of a value over the micro-batches of a step (mesh axis 0); "
              "only sums accumulate over micro-batches";
  if (stepAxis && stepAxis.getInt() == 0 &&
      isa<ReduceScatterOp, AllGatherOp, AllToAllOp, ToPartialOp>(op))
    return op->emitOpError()
           << "moves a value between the micro-batches of a step (mesh axis "
              "0); only sums over them (all-reduce, oneflow.accumulate) and "
              "slices of a value whole per step (local_slice) can run as "
              "micro-batches";
  // Between placements (pipeline stages), each micro-batch's value moves
  // on its own, or a value whole per step moves once.
  if (isa<TransferOp>(op)) {
    SbpAttr from = microSbp(op->getOperand(0).getType());
    SbpAttr to = microSbp(op->getResult(0).getType());
    if (from != to || from.isPartial())
      return op->emitOpError()
             << "moves a value between placements and between micro-batches "
                "("
             << toSupportSbp(from).str() << " -> " << toSupportSbp(to).str()
             << " on mesh axis 0); a transfer keeps each micro-batch's piece "
                "where it is in time";
  }
  if (auto output = dyn_cast<OutputOp>(op)) {
    SbpAttr sbp = microSbp(op->getOperand(0).getType());
    if (sbp && !sbp.isBroadcast())
      return op->emitOpError()
             << "output '" << output.getName() << "' is "
             << toSupportSbp(sbp).str()
             << " over the micro-batches; outputs of a micro-batched step "
                "must be whole per step (a loss, summed)";
  }
  if (op->getNumOperands() == 0)
    for (Type type : op->getResultTypes())
      if (SbpAttr sbp = microSbp(type); sbp && sbp.isPartial())
        return op->emitOpError()
               << "is a source that is partial over the micro-batches";
  return success();
}

namespace {
struct AccumulateMicroBatchesPass
    : public mlir::oneflow::impl::AccumulateMicroBatchesPassBase<
          AccumulateMicroBatchesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (getMicroBatches(func) < 2)
      return;
    SmallVector<AllReduceOp> sums;
    bool ok = true;
    func.walk([&](Operation *op) {
      if (auto allReduce = dyn_cast<AllReduceOp>(op);
          allReduce && allReduce.getMeshAxis() == 0)
        sums.push_back(allReduce);
      ok &= succeeded(checkOp(op));
    });
    if (!ok)
      return signalPassFailure();
    OpBuilder builder(&getContext());
    for (AllReduceOp sum : sums) {
      builder.setInsertionPoint(sum);
      auto accumulate = AccumulateOp::create(builder, sum.getLoc(),
                                             sum.getType(), sum.getX(), 0);
      sum.replaceAllUsesWith(accumulate.getResult());
      sum.erase();
    }
  }
};
} // namespace
