//===- ExpandSplitSoftmax.cpp - Softmax over a split class axis -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A softmax, log_softmax or sparse_softmax_cross_entropy whose chosen
// signature splits the normalized axis (the class axis: logits from a
// column-parallel LM head) becomes what Megatron's vocabulary-parallel
// cross-entropy computes, in ops whose layouts say where the collectives
// go. With x laid out L (S(c) on the mesh axes K), L_K(s) that layout with
// s on K, for the reduced shape where c has size 1:
//
//   m    = reduce_max(x, c, keepdims)      L -> L_K(P(max))
//   z    = x - m                           L, L_K(B) -> L   (all-reduce max)
//   e    = exp(z)                          L -> L
//   s    = reduce_sum(e, c, keepdims)      L -> L_K(P)
//   prob = e / s                           L, L_K(B) -> L   (all-reduce sum)
//   log_softmax = z - log(s)               L, L_K(B) -> L
//
// and the cross-entropy's loss, log(s) - z[label], with the label's logit
// picked by gather_elements from the piece that holds it (zeros elsewhere,
// a partial sum) and log(s) made partial to match:
//
//   picked = gather_elements(z, labels[..., None], c)  L, B on K -> L_K(P)
//   loss   = log(s) - picked                           L_K(P) -> L_K(P)
//
// The gradients (built earlier from the op's results) are element-wise in
// the probabilities and the labels, so they stay split. The operands'
// layouts go into `oneflow.operand_layouts`, for oneflow-insert-boxing.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "oneflow-expand-split-softmax"

namespace mlir::oneflow {
#define GEN_PASS_DEF_EXPANDSPLITSOFTMAXPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

std::optional<int64_t> mlir::oneflow::getSplitSoftmaxAxis(Operation *op) {
  std::optional<int64_t> axis = getNormalizedAxis(op);
  GlobalAttr global =
      axis ? getGlobalEncoding(op->getResult(0).getType()) : GlobalAttr();
  if (!global || llvm::none_of(global.getNdSbp(), [&](SbpAttr sbp) {
        return sbp.isSplit() && sbp.getAxis() == *axis;
      }))
    return std::nullopt;
  return axis;
}

namespace {
/// Builds the expansion of one op.
class Expander {
public:
  Expander(Operation *op, int64_t axis)
      : op(op), axis(axis), b(op), loc(op->getLoc()) {
    full = cast<RankedTensorType>(op->getResult(0).getType());
    layout = getGlobalEncoding(full);
    SmallVector<int64_t> shape(full.getShape());
    shape[axis] = 1;
    reducedShape = shape;
  }

  LogicalResult run() {
    MLIRContext *ctx = op->getContext();
    GlobalAttr maxes =
        withSplits(SbpAttr::getPartial(ctx, PartialReduction::max));
    GlobalAttr sums = withSplits(SbpAttr::getPartial(ctx));
    GlobalAttr whole = withSplits(SbpAttr::getBroadcast(ctx));
    Value x = op->getOperand(0);
    DenseI64ArrayAttr axes = b.getDenseI64ArrayAttr({axis});
    Value m = pin(ReduceMaxOp::create(b, loc, reducedType(maxes), x, axes,
                                      b.getUnitAttr()),
                  {layout});
    Value z = pin(SubOp::create(b, loc, full, x, m), {layout, whole});
    Value e = pin(ExpOp::create(b, loc, full, z), {layout});
    Value s = pin(ReduceSumOp::create(b, loc, reducedType(sums), e, axes,
                                      b.getUnitAttr()),
                  {layout});
    if (isa<LogSoftmaxOp>(op)) {
      Value logS = pin(LogOp::create(b, loc, reducedType(whole), s), {whole});
      replace(0, pin(SubOp::create(b, loc, full, z, logS), {layout, whole}));
    } else {
      replace(0, pin(DivOp::create(b, loc, full, e, s), {layout, whole}));
    }
    if (auto ce = dyn_cast<SparseSoftmaxCrossEntropyOp>(op))
      if (failed(buildLoss(ce, z, s, whole, sums)))
        return failure();
    op->erase();
    return success();
  }

private:
  /// loss = log(s) - z[label], partial (`sums`) on the split mesh axes.
  LogicalResult buildLoss(SparseSoftmaxCrossEntropyOp ce, Value z, Value s,
                          GlobalAttr whole, GlobalAttr sums) {
    Value labels = ce.getLabels();
    auto labelType = cast<RankedTensorType>(labels.getType());
    auto lossType = cast<RankedTensorType>(ce.getLoss().getType());
    auto asked = operandLayoutsAttr(op->getContext()).getAttr(op);
    GlobalAttr labelLayout =
        asked && asked.size() == 2 ? dyn_cast<GlobalAttr>(asked[1]) : nullptr;
    if (!labelLayout)
      return op->emitOpError()
             << "has no layout for its labels in '" << kOperandLayoutsAttrName
             << "'; run oneflow-sbp-propagation first";
    GlobalAttr lossLayout = getGlobalEncoding(lossType);
    if (!lossLayout || lossLayout.getNdSbp() != sums.getNdSbp()) {
      InFlightDiagnostic diag = op->emitOpError() << "has its loss laid out ";
      if (lossLayout)
        diag << lossLayout.getNdSbp();
      else
        diag << "without a layout";
      return diag << ", but its class axis split on some mesh axes makes the "
                     "loss partial there ("
                  << sums.getNdSbp() << ")";
    }
    // labels (...) -> (..., 1), with the same nd-SBP (splits of the sample
    // axes, B where the classes are split).
    SmallVector<int64_t> column(labelType.getShape());
    column.push_back(1);
    auto columnType =
        RankedTensorType::get(column, labelType.getElementType(), labelLayout);
    Value labelColumn =
        pin(ReshapeOp::create(b, loc, columnType, labels), {labelLayout});
    Value picked =
        pin(GatherElementsOp::create(b, loc, reducedType(sums), z, labelColumn,
                                     b.getI64IntegerAttr(axis)),
            {layout, labelLayout});
    Value logS = pin(LogOp::create(b, loc, reducedType(whole), s), {whole});
    Value lossColumn = pin(
        SubOp::create(b, loc, reducedType(sums), logS, picked), {sums, sums});
    replace(1, pin(ReshapeOp::create(b, loc, lossType, lossColumn), {sums}));
    return success();
  }

  /// Records the layouts `made`'s operands need; returns its result.
  Value pin(Operation *made, ArrayRef<GlobalAttr> layouts) {
    SmallVector<Attribute> attrs(layouts.begin(), layouts.end());
    operandLayoutsAttr(b.getContext()).setAttr(made, b.getArrayAttr(attrs));
    return made->getResult(0);
  }

  /// The op's layout with each mesh axis that splits the class axis set
  /// to `sbp`.
  GlobalAttr withSplits(SbpAttr sbp) const {
    SmallVector<SbpAttr> sbps;
    for (SbpAttr s : layout.getNdSbp())
      sbps.push_back(s.isSplit() && s.getAxis() == axis ? sbp : s);
    return GlobalAttr::get(op->getContext(), layout.getPlacement(),
                           NdSbpAttr::get(op->getContext(), sbps));
  }
  /// The shape reduced along the class axis, laid out `global`.
  RankedTensorType reducedType(GlobalAttr global) const {
    return RankedTensorType::get(reducedShape, full.getElementType(), global);
  }
  void replace(unsigned result, Value value) {
    op->getResult(result).replaceAllUsesWith(value);
  }

  Operation *op;
  int64_t axis;
  OpBuilder b;
  Location loc;
  RankedTensorType full;
  GlobalAttr layout;
  SmallVector<int64_t> reducedShape;
};

struct ExpandSplitSoftmaxPass
    : public mlir::oneflow::impl::ExpandSplitSoftmaxPassBase<
          ExpandSplitSoftmaxPass> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, int64_t>> found;
    getOperation().walk([&](Operation *op) {
      if (std::optional<int64_t> axis = getSplitSoftmaxAxis(op))
        found.push_back({op, *axis});
    });
    for (auto [op, axis] : found)
      if (failed(Expander(op, axis).run()))
        return signalPassFailure();
  }
};
} // namespace
