//===- FuseConvBnAct.cpp - Fold inference batch_norm into conv2d ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// conv2d -> batch_norm (inference, channels) [-> add] [-> relu] becomes one
// oneflow.conv2d_bn, whose kernel folds the normalization into the
// convolution's weights and bias and runs the add and relu as post-ops.
// Every intermediate result must have the next op as its only user, so that
// nothing else observes the values the fusion no longer materializes.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "oneflow-fuse-conv-bn-act"

namespace mlir::oneflow {
#define GEN_PASS_DEF_FUSECONVBNACTPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The only user of `value`, if it has exactly one use.
static Operation *soleUser(Value value) {
  return value.hasOneUse() ? *value.user_begin() : nullptr;
}

/// Whether two tensor types have the same shape and element type (layout
/// encodings aside).
static bool sameLogicalType(Type a, Type b) {
  auto ta = cast<RankedTensorType>(a), tb = cast<RankedTensorType>(b);
  return ta.getShape() == tb.getShape() &&
         ta.getElementType() == tb.getElementType();
}

namespace {

/// Rewrites, anchored at the batch_norm, the longest chain conv2d ->
/// batch_norm [-> add of a same-shaped tensor] [-> relu].
struct FuseConvBatchNorm : public OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp bn,
                                PatternRewriter &rewriter) const override {
    if (bn.getTraining())
      return rewriter.notifyMatchFailure(bn, "batch_norm in training");
    auto conv = bn.getX().getDefiningOp<Conv2DOp>();
    if (!conv || !conv.getResult().hasOneUse())
      return rewriter.notifyMatchFailure(bn, "not the sole user of a conv2d");
    auto type = cast<RankedTensorType>(bn.getY().getType());
    if (type.getEncoding())
      return rewriter.notifyMatchFailure(bn, "global tensors (run earlier)");
    if (type.getRank() != 4 || normalizeAxis(bn.getAxis(), 4) != 1)
      return rewriter.notifyMatchFailure(bn, "not over the channels");
    if (!bn.getMean().use_empty() || !bn.getInvVariance().use_empty())
      return rewriter.notifyMatchFailure(bn, "statistics are used");
    if (!sameLogicalType(conv.getType(), type))
      return rewriter.notifyMatchFailure(bn, "conv2d and batch_norm types");

    // The chain after the normalization, and the op it ends at.
    SmallVector<Operation *> chain = {conv, bn};
    Value tail = bn.getY(), addend;
    if (auto add = dyn_cast_or_null<AddOp>(soleUser(tail))) {
      Value other = add.getLhs() == tail ? add.getRhs() : add.getLhs();
      if (other != tail && sameLogicalType(other.getType(), type) &&
          sameLogicalType(add.getType(), type)) {
        addend = other;
        chain.push_back(add);
        tail = add.getResult();
      }
    }
    bool relu = false;
    if (auto op = dyn_cast_or_null<ReluOp>(soleUser(tail))) {
      if (sameLogicalType(op.getType(), type)) {
        relu = true;
        chain.push_back(op);
        tail = op.getResult();
      }
    }

    // Every operand of the chain comes before its last op, so the fused op
    // takes that op's place.
    Operation *last = chain.back();
    rewriter.setInsertionPoint(last);
    Value mean = bn.getMovingMean();
    if (Value bias = conv.getBias()) {
      // bn(conv + bias) normalizes by the mean less the bias.
      mean = SubOp::create(rewriter, bn.getLoc(), mean.getType(), mean, bias);
    }
    auto fused = Conv2DBnOp::create(
        rewriter, rewriter.getFusedLoc(llvm::to_vector(llvm::map_range(
                      chain, [](Operation *op) { return op->getLoc(); }))),
        tail.getType(), conv.getX(), conv.getWeight(), bn.getGamma(),
        bn.getBeta(), mean, bn.getMovingVariance(), addend,
        conv.getStridesAttr(), conv.getPadsAttr(), conv.getDilationsAttr(),
        conv.getGroupsAttr(), bn.getEpsilonAttr(),
        relu ? rewriter.getUnitAttr() : UnitAttr());
    rewriter.replaceOp(last, fused.getResult());
    for (Operation *op : llvm::reverse(ArrayRef(chain).drop_back()))
      rewriter.eraseOp(op);
    return success();
  }
};

struct FuseConvBnActPass
    : public mlir::oneflow::impl::FuseConvBnActPassBase<FuseConvBnActPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FuseConvBatchNorm>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
