//===- FoldMatmulScale.cpp - Scalars into batch_matmul's alpha ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// scalar_mul next to a batch_matmul becomes the product's alpha once the
// layouts are fixed (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

#define DEBUG_TYPE "oneflow-fold-matmul-scale"

namespace mlir::oneflow {
#define GEN_PASS_DEF_FOLDMATMULSCALEPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// Whether `scale` and `product` may fold: the scaled and unscaled values
/// have one type (layout included), the ops the same attributes besides
/// their own, and the new alpha (returned in `alpha`) is finite.
static bool foldable(ScalarMulOp scale, BatchMatmulOp product, double &alpha) {
  if (scale.getX().getType() != scale.getType() ||
      scale->getDiscardableAttrDictionary() !=
          product->getDiscardableAttrDictionary())
    return false;
  alpha = product.getAlpha() ? product.getAlpha()->convertToDouble() : 1.0;
  alpha *= scale.getScalar().convertToDouble();
  return std::isfinite(alpha);
}

/// A copy of `product` reading `a` and `b`, with `alpha`.
static BatchMatmulOp rebuild(PatternRewriter &rewriter, BatchMatmulOp product,
                             Value a, Value b, double alpha) {
  auto rebuilt = BatchMatmulOp::create(
      rewriter, product.getLoc(), product.getType(), a, b,
      product.getTransposeAAttr(), product.getTransposeBAttr(),
      rewriter.getF64FloatAttr(alpha));
  rebuilt->setDiscardableAttrs(product->getDiscardableAttrDictionary());
  return rebuilt;
}

namespace {

/// scalar_mul(batch_matmul(a, b), s) -> batch_matmul(a, b){alpha * s}.
struct ScaleOfProduct : OpRewritePattern<ScalarMulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScalarMulOp scale,
                                PatternRewriter &rewriter) const override {
    auto product = scale.getX().getDefiningOp<BatchMatmulOp>();
    double alpha;
    if (!product || !product->hasOneUse() || !foldable(scale, product, alpha))
      return failure();
    rewriter.setInsertionPoint(scale);
    rewriter.replaceOp(scale, rebuild(rewriter, product, product.getA(),
                                      product.getB(), alpha));
    return success();
  }
};

/// batch_matmul(scalar_mul(x, s), b) -> batch_matmul(x, b){alpha * s}, and
/// likewise for b.
struct ProductOfScale : OpRewritePattern<BatchMatmulOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchMatmulOp product,
                                PatternRewriter &rewriter) const override {
    for (unsigned i : {0u, 1u}) {
      auto scale = product->getOperand(i).getDefiningOp<ScalarMulOp>();
      double alpha;
      if (!scale || !foldable(scale, product, alpha))
        continue;
      Value a = i == 0 ? scale.getX() : product.getA();
      Value b = i == 1 ? scale.getX() : product.getB();
      rewriter.replaceOp(product, rebuild(rewriter, product, a, b, alpha));
      return success();
    }
    return failure();
  }
};

struct FoldMatmulScalePass
    : public mlir::oneflow::impl::FoldMatmulScalePassBase<FoldMatmulScalePass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<ScaleOfProduct, ProductOfScale>(&getContext());
    // Only these folds: the laid-out step is not the place to fold other
    // ops or simplify regions.
    GreedyRewriteConfig config;
    config.enableFolding(false);
    config.setRegionSimplificationLevel(GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
