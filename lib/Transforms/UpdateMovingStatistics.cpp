//===- UpdateMovingStatistics.cpp - Batch norm's running statistics -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Appends, for each training-mode oneflow.batch_norm whose moving statistics
// are variables, the in-place moving-average updates PyTorch's BatchNorm
// makes in training: the batch mean, and the unbiased batch variance
// recovered from the inverse standard deviation the op returns; with
// statistics groups, their means over the groups.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "oneflow-update-moving-statistics"

namespace mlir::oneflow {
#define GEN_PASS_DEF_UPDATEMOVINGSTATISTICSPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The elements per channel the batch statistics of `op` cover, or
/// failure when a dimension is unknown.
static FailureOr<int64_t> elementsPerChannel(BatchNormOp op) {
  auto type = cast<RankedTensorType>(op.getX().getType());
  int64_t axis = normalizeAxis(op.getAxis(), type.getRank());
  int64_t count = 1;
  for (auto [i, dim] : llvm::enumerate(type.getShape())) {
    if (ShapedType::isDynamic(dim))
      return failure();
    if (static_cast<int64_t>(i) != axis)
      count *= dim;
  }
  return count;
}

namespace {
struct UpdateMovingStatisticsPass
    : public mlir::oneflow::impl::UpdateMovingStatisticsPassBase<
          UpdateMovingStatisticsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<BatchNormOp> norms;
    func.walk([&](BatchNormOp op) {
      if (op.getTraining() && op.getMovingMean().getDefiningOp<VariableOp>() &&
          op.getMovingVariance().getDefiningOp<VariableOp>())
        norms.push_back(op);
    });
    OpBuilder builder(func.getContext());
    builder.setInsertionPoint(func.getBody().back().getTerminator());
    for (BatchNormOp op : norms)
      if (failed(appendUpdates(builder, op)))
        return signalPassFailure();
  }

private:
  LogicalResult appendUpdates(OpBuilder &builder, BatchNormOp op) const {
    FailureOr<int64_t> count = elementsPerChannel(op);
    if (failed(count))
      return op.emitOpError()
             << "has an input of unknown dimensions; run oneflow-infer-shapes "
                "before updating its running statistics";
    int64_t groups = op.getStatisticsGroups();
    int64_t perGroup = *count / groups;
    if (perGroup < 2)
      return op.emitOpError()
             << "normalizes " << perGroup << " element per channel"
             << (groups > 1 ? " and statistics group" : "")
             << " in training; its running variance (unbiased) is undefined";
    Location loc = op.getLoc();
    auto f64 = [&](double value) { return builder.getF64FloatAttr(value); };
    double epsilon = op.getEpsilon().convertToDouble();
    double bessel =
        static_cast<double>(perGroup) / static_cast<double>(perGroup - 1);
    Value shifted =
        ScalarPowOp::create(builder, loc, op.getInvVariance(), f64(-2.0));
    Value biased = ScalarAddOp::create(builder, loc, shifted, f64(-epsilon));
    Value unbiased = ScalarMulOp::create(builder, loc, biased, f64(bessel));
    Value mean = op.getMean();
    // Statistics groups: the running values take the means over the groups.
    if (groups > 1) {
      auto overGroups = [&](Value v) -> Value {
        return ReduceMeanOp::create(builder, loc, v,
                                    builder.getDenseI64ArrayAttr({0}),
                                    /*keepdims=*/nullptr);
      };
      mean = overGroups(mean);
      unbiased = overGroups(unbiased);
    }
    FloatAttr momentum = op.getMomentumAttr();
    MovingAverageUpdateOp::create(builder, loc, op.getMovingMean(), mean,
                                  momentum);
    MovingAverageUpdateOp::create(builder, loc, op.getMovingVariance(),
                                  unbiased, momentum);
    return success();
  }
};
} // namespace
