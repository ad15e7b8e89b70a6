//===- NNGradients.cpp - Gradient rules of matmuls, softmax, norms --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Matrix products differentiate into matrix products with the transposes
// folded into their flags; batched ones sum broadcast batch axes back.
// Softmax, the cross-entropy and layer normalization are composed from
// element-wise ops and reductions along the normalized axes, using the
// statistics the forward op returns.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::oneflow;

namespace mlir::oneflow {

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// Gradients of `c = op(a) op(b)` (op a transpose where flagged), as
/// products of the same kind `OpTy`.
template <typename OpTy>
static void matmulGradient(OpTy op, GradientBuilder &g, Value dc,
                           SmallVectorImpl<Value> &dxs) {
  OpBuilder &b = g.builder();
  Location loc = g.getLoc();
  Value a = op.getA(), bm = op.getB();
  bool ta = op.getTransposeA(), tb = op.getTransposeB();
  UnitAttr on = b.getUnitAttr(), off;
  // c = alpha a b: each gradient product scales by alpha too.
  auto product = [&](Value x, Value y, UnitAttr tx, UnitAttr ty) -> Value {
    if constexpr (std::is_same_v<OpTy, BatchMatmulOp>)
      return OpTy::create(b, loc, x, y, tx, ty, op.getAlphaAttr());
    else
      return OpTy::create(b, loc, x, y, tx, ty);
  };
  Value da, db;
  if (!ta && !tb) {
    da = product(dc, bm, off, on);
    db = product(a, dc, on, off);
  } else if (!ta && tb) {
    da = product(dc, bm, off, off);
    db = product(dc, a, on, off);
  } else if (ta && !tb) {
    da = product(bm, dc, off, on);
    db = product(a, dc, off, off);
  } else {
    da = product(bm, dc, on, on);
    db = product(dc, a, on, on);
  }
  dxs.push_back(g.unbroadcast(da, g.typeOf(a)));
  dxs.push_back(g.unbroadcast(db, g.typeOf(bm)));
}

static LogicalResult buildGradientRule(MatmulOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  matmulGradient(op, g, dys[0], dxs);
  return success();
}

static LogicalResult buildGradientRule(BatchMatmulOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  matmulGradient(op, g, dys[0], dxs);
  return success();
}

//===----------------------------------------------------------------------===//
// Softmax and losses
//===----------------------------------------------------------------------===//

/// The gradient of `y = softmax(x)` along `axis`: y (dy - sum(dy y)).
static Value softmaxGradient(GradientBuilder &g, Value y, Value dy,
                             int64_t axis) {
  // y (dy - sum(dy y)) in one op.
  OpBuilder &b = g.builder();
  return SoftmaxGradOp::create(b, g.getLoc(), y, dy,
                               b.getI64IntegerAttr(axis));
}

static LogicalResult buildGradientRule(SoftmaxOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  int64_t axis = normalizeAxis(op.getAxis(), g.typeOf(op.getX()).getRank());
  dxs.push_back(softmaxGradient(g, op.getResult(), dys[0], axis));
  return success();
}

static LogicalResult buildGradientRule(LogSoftmaxOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // dy - softmax(x) sum(dy).
  int64_t axis = normalizeAxis(op.getAxis(), g.typeOf(op.getX()).getRank());
  Value total = g.reduceSum(dys[0], {axis}, /*keepdims=*/true);
  dxs.push_back(g.sub(dys[0], g.mul(g.exp(op.getResult()), total)));
  return success();
}

static LogicalResult buildGradientRule(SparseSoftmaxCrossEntropyOp op,
                                       GradientBuilder &g, ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  RankedTensorType logits = g.typeOf(op.getLogits());
  int64_t axis = logits.getRank() - 1;
  Value prob = op.getProb();
  Value dlogits;
  if (dys[0])
    dlogits = softmaxGradient(g, prob, dys[0], axis);
  if (dys[1]) {
    // (prob - onehot(labels)) * dloss, the one-hot from comparing the labels
    // with the class indices.
    int64_t classes = logits.getDimSize(axis);
    if (ShapedType::isDynamic(classes))
      return op.emitOpError("needs a static number of classes to take its "
                            "gradient");
    RankedTensorType labels = g.typeOf(op.getLabels());
    auto indexType = RankedTensorType::get({classes}, labels.getElementType());
    SmallVector<APInt> indices;
    for (int64_t c = 0; c < classes; ++c)
      indices.push_back(
          APInt(labels.getElementType().getIntOrFloatBitWidth(), c));
    OpBuilder &b = g.builder();
    Value iota = ConstantOp::create(b, g.getLoc(), indexType,
                                    DenseElementsAttr::get(indexType, indices));
    SmallVector<int64_t> column(labels.getShape());
    column.push_back(1);
    Value onehot =
        EqualOp::create(b, g.getLoc(), g.reshape(op.getLabels(), column), iota);
    Value diff = g.where(onehot, g.scalarAdd(prob, -1.0), prob);
    SmallVector<int64_t> lossColumn(g.typeOf(dys[1]).getShape());
    lossColumn.push_back(1);
    Value fromLoss = g.mul(diff, g.reshape(dys[1], lossColumn));
    dlogits = dlogits ? g.add(dlogits, fromLoss) : fromLoss;
  }
  dxs.push_back(dlogits);
  dxs.push_back(Value());
  return success();
}

//===----------------------------------------------------------------------===//
// Normalization and dropout
//===----------------------------------------------------------------------===//

static LogicalResult buildGradientRule(LayerNormOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  if (dys[1] || dys[2])
    return op.emitOpError("has no gradient through its mean or "
                          "inv_variance results");
  RankedTensorType x = g.typeOf(op.getX());
  int64_t rank = x.getRank();
  int64_t normAxis = normalizeAxis(op.getBeginNormAxis(), rank);
  int64_t paramsAxis = normalizeAxis(op.getBeginParamsAxis(), rank);
  Value dy = dys[0];
  OpBuilder &b = g.builder();
  if (normAxis == paramsAxis) {
    // One op: gamma covers exactly the normalized axes.
    auto grad = LayerNormGradOp::create(
        b, g.getLoc(), op.getX(), dy, op.getMean(), op.getInvVariance(),
        op.getGamma(), b.getI64IntegerAttr(normAxis), op.getEpsilonAttr());
    dxs.append({grad.getDx(), grad.getDgamma(), grad.getDbeta()});
    return success();
  }

  // gamma over fewer axes than are normalized: the composition.
  SmallVector<int64_t> keep(x.getShape().take_front(normAxis));
  keep.append(rank - normAxis, 1);
  SmallVector<int64_t> normAxes = llvm::to_vector(llvm::seq(normAxis, rank));
  SmallVector<int64_t> batchAxes =
      llvm::to_vector(llvm::seq<int64_t>(0, paramsAxis));
  Value mean = g.reshape(op.getMean(), keep);
  Value inv = g.reshape(op.getInvVariance(), keep);
  Value xhat = g.mul(g.sub(op.getX(), mean), inv);
  // dx = inv (dxhat - mean(dxhat) - xhat mean(dxhat xhat)), the means over
  // the normalized axes.
  auto meanOver = [&](Value v) -> Value {
    return ReduceMeanOp::create(
        b, g.getLoc(), v, b.getDenseI64ArrayAttr(normAxes), b.getUnitAttr());
  };
  Value dxhat = g.mul(dy, op.getGamma());
  Value centered = g.sub(dxhat, meanOver(dxhat));
  Value dx =
      g.mul(inv, g.sub(centered, g.mul(xhat, meanOver(g.mul(dxhat, xhat)))));
  dxs.push_back(dx);
  dxs.push_back(g.reduceSum(g.mul(dy, xhat), batchAxes, /*keepdims=*/false));
  dxs.push_back(g.reduceSum(dy, batchAxes, /*keepdims=*/false));
  return success();
}

static LogicalResult buildGradientRule(DropoutOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  double keep = 1.0 - op.getRate().convertToDouble();
  Value zero = g.scalar(g.typeOf(dys[0]).getElementType(), 0.0);
  dxs.push_back(g.where(op.getMask(), g.scalarMul(dys[0], 1.0 / keep), zero));
  return success();
}

/// The rnn's operand gradients in one rnn_grad; results without a gradient
/// give zeros.
static LogicalResult buildGradientRule(RnnOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  auto gradOf = [&](unsigned i) -> Value {
    if (dys[i])
      return dys[i];
    return g.fill(g.typeOf(op->getResult(i)), 0.0);
  };
  Value dcn = op.getCn() ? gradOf(2) : Value();
  auto grad = RnnGradOp::create(g.builder(), g.getLoc(), op.getX(), op.getW(),
                                op.getR(), op.getB(), op.getH0(), op.getC0(),
                                gradOf(0), gradOf(1), dcn, op.getCellAttr(),
                                op.getDirectionAttr());
  llvm::append_range(dxs, grad->getResults());
  return success();
}

} // namespace mlir::oneflow

void mlir::oneflow::attachNNGradientModels(MLIRContext &context) {
  attachGradientModels<ONEFLOW_NN_GRADIENT_OPS>(context);
}
