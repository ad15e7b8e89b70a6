//===- LocalBatchStatistics.cpp - Batch norm per part of the batch --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Sets statistics_groups on training-mode oneflow.batch_norm ops, so that
// each group of consecutive samples (a data-parallel rank's part of the
// batch) is normalized with its own statistics, and re-infers the shapes of
// the batch statistics (G x C).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "oneflow-local-batch-statistics"

namespace mlir::oneflow {
#define GEN_PASS_DEF_LOCALBATCHSTATISTICSPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

namespace {
struct LocalBatchStatisticsPass
    : public mlir::oneflow::impl::LocalBatchStatisticsPassBase<
          LocalBatchStatisticsPass> {
  using LocalBatchStatisticsPassBase::LocalBatchStatisticsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (groups < 1) {
      func.emitError() << "oneflow-local-batch-statistics: groups "
                       << static_cast<int64_t>(groups) << " is not at least 1";
      return signalPassFailure();
    }
    if (groups == 1)
      return;
    WalkResult result = func.walk([&](BatchNormOp op) {
      if (!op.getTraining())
        return WalkResult::advance();
      return failed(group(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

private:
  LogicalResult group(BatchNormOp op) {
    for (Value stat : {op.getMean(), op.getInvVariance()})
      if (!stat.use_empty())
        return op.emitOpError()
               << "has its batch statistics read (by "
               << (*stat.user_begin())->getName()
               << "); with statistics groups they would be one per group";
    Builder builder(op.getContext());
    op.setStatisticsGroupsAttr(
        builder.getI64IntegerAttr(static_cast<int64_t>(groups)));
    SmallVector<Type> types;
    if (failed(BatchNormOp::inferReturnTypes(op.getContext(), op.getLoc(),
                                             BatchNormOp::Adaptor(op), types)))
      return failure();
    op.getMean().setType(cast<RankedTensorType>(types[1]));
    op.getInvVariance().setType(cast<RankedTensorType>(types[2]));
    return success();
  }
};
} // namespace
