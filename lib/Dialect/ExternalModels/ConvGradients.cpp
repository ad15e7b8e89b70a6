//===- ConvGradients.cpp - Gradient rules of convolutions, pools, norms ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// conv2d, the windowed pools and training batch_norm differentiate into the
// backward ops of OneFlowGradOps.td (oneDNN backward primitives); the
// global pool and inference batch_norm are compositions of element-wise ops
// and reductions.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::oneflow;

namespace mlir::oneflow {

namespace {
/// A convolution's window attributes, for the ops of its gradient.
struct ConvWindow {
  template <typename OpTy>
  ConvWindow(OpBuilder &b, OpTy op)
      : strides(b.getDenseI64ArrayAttr(op.getStrides())),
        pads(b.getDenseI64ArrayAttr(op.getPads())),
        dilations(b.getDenseI64ArrayAttr(op.getDilations())),
        groups(b.getI64IntegerAttr(op.getGroups())) {}
  DenseI64ArrayAttr strides, pads, dilations;
  IntegerAttr groups;
};
} // namespace

static LogicalResult buildGradientRule(Conv2DOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  RankedTensorType x = g.typeOf(op.getX()), w = g.typeOf(op.getWeight());
  if (!x.hasStaticShape() || !w.hasStaticShape())
    return op.emitOpError("needs static shapes to take its gradient");
  OpBuilder &b = g.builder();
  Location loc = g.getLoc();
  ConvWindow win(b, op);
  Value dy = dys[0];
  dxs.push_back(Conv2DBackwardDataOp::create(
      b, loc, dy, op.getWeight(), b.getDenseI64ArrayAttr(x.getShape()),
      win.strides, win.pads, win.dilations, win.groups));
  dxs.push_back(Conv2DBackwardFilterOp::create(
      b, loc, op.getX(), dy, b.getDenseI64ArrayAttr(w.getShape()), win.strides,
      win.pads, win.dilations, win.groups));
  if (op.getBias())
    dxs.push_back(g.reduceSum(dy, {0, 2, 3}, /*keepdims=*/false));
  return success();
}

static LogicalResult buildGradientRule(Conv2DBackwardDataOp op,
                                       GradientBuilder &g, ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // A transposed convolution (ONNX ConvTranspose): the op is linear in dy
  // and in the weight, z = J(w)^T dy for the convolution J(w), so
  // dL/ddy = J(w) g, a convolution of the gradient g, and dL/dw is the
  // filter gradient of a convolution of g whose result's gradient is dy.
  RankedTensorType w = g.typeOf(op.getWeight());
  if (!w.hasStaticShape())
    return op.emitOpError("needs a static weight shape to take its gradient");
  OpBuilder &b = g.builder();
  Location loc = g.getLoc();
  ConvWindow win(b, op);
  dxs.push_back(Conv2DOp::create(b, loc, dys[0], op.getWeight(), Value(),
                                 win.strides, win.pads, win.dilations,
                                 win.groups));
  dxs.push_back(Conv2DBackwardFilterOp::create(
      b, loc, dys[0], op.getDy(), b.getDenseI64ArrayAttr(w.getShape()),
      win.strides, win.pads, win.dilations, win.groups));
  return success();
}

static LogicalResult buildGradientRule(MaxPool2DOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  OpBuilder &b = g.builder();
  dxs.push_back(MaxPool2DGradOp::create(
      b, g.getLoc(), op.getX(), dys[0],
      b.getDenseI64ArrayAttr(op.getKernelSize()),
      b.getDenseI64ArrayAttr(op.getStrides()),
      b.getDenseI64ArrayAttr(op.getPads()),
      b.getDenseI64ArrayAttr(op.getDilations()), op.getCeilModeAttr()));
  return success();
}

static LogicalResult buildGradientRule(AvgPool2DOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  OpBuilder &b = g.builder();
  dxs.push_back(AvgPool2DGradOp::create(
      b, g.getLoc(), op.getX(), dys[0],
      b.getDenseI64ArrayAttr(op.getKernelSize()),
      b.getDenseI64ArrayAttr(op.getStrides()),
      b.getDenseI64ArrayAttr(op.getPads()), op.getCeilModeAttr(),
      op.getCountIncludePadAttr()));
  return success();
}

static LogicalResult buildGradientRule(ResampleOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(ResampleGradOp::create(g.builder(), g.getLoc(), op.getX(),
                                       dys[0], op.getModeAttr()));
  return success();
}

/// resample_grad is linear in dy (the transposed interpolation): the
/// gradient of dy is the interpolation itself (same mode), to dy's sizes;
/// x gives only a shape.
static LogicalResult buildGradientRule(ResampleGradOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  OpBuilder &b = g.builder();
  auto dy = cast<RankedTensorType>(op.getDy().getType());
  dxs.push_back(Value());
  dxs.push_back(ResampleOp::create(
      b, g.getLoc(), dys[0],
      b.getDenseI64ArrayAttr(dy.getShape().drop_front(2)), op.getModeAttr()));
  return success();
}

static LogicalResult buildGradientRule(GlobalAvgPool2DOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // Every input element gets dy / (H W) of its plane.
  RankedTensorType x = g.typeOf(op.getX());
  int64_t h = x.getDimSize(2), w = x.getDimSize(3);
  if (ShapedType::isDynamic(h) || ShapedType::isDynamic(w))
    return op.emitOpError("needs a static height and width to take its "
                          "gradient");
  dxs.push_back(
      g.scalarMul(g.broadcastTo(dys[0], x), 1.0 / static_cast<double>(h * w)));
  return success();
}

/// Gradients of inference batch_norm, y = (x - mean) inv gamma + beta with
/// inv = (moving_variance + eps)^-1/2 and mean = moving_mean: element-wise
/// in x, sums over the other axes for the per-channel operands.
static LogicalResult inferenceBatchNormGradient(BatchNormOp op,
                                                GradientBuilder &g, Value dy,
                                                SmallVectorImpl<Value> &dxs) {
  RankedTensorType x = g.typeOf(op.getX());
  int64_t rank = x.getRank(), axis = normalizeAxis(op.getAxis(), rank);
  int64_t channels = x.getDimSize(axis);
  if (ShapedType::isDynamic(channels))
    return op.emitOpError("needs a static channel count to take its "
                          "gradient");
  SmallVector<int64_t> column(rank, 1);
  column[axis] = channels;
  SmallVector<int64_t> others;
  for (int64_t a = 0; a < rank; ++a)
    if (a != axis)
      others.push_back(a);
  OpBuilder &b = g.builder();
  auto perChannel = [&](Value v) { return g.reshape(v, column); };
  auto sumOthers = [&](Value v) {
    return g.reduceSum(v, others, /*keepdims=*/false);
  };
  Value inv = RsqrtOp::create(
      b, g.getLoc(),
      g.scalarAdd(op.getMovingVariance(), op.getEpsilon().convertToDouble()));
  Value centered = g.sub(op.getX(), perChannel(op.getMovingMean()));
  Value scale = perChannel(g.mul(op.getGamma(), inv));
  Value dxhat = g.mul(dy, scale);
  // d/dvar of (x - mean) (var + eps)^-1/2 is -(x - mean) inv^3 / 2.
  Value inv3 = g.mul(inv, g.mul(inv, inv));
  dxs.push_back(dxhat);
  dxs.push_back(sumOthers(g.mul(g.mul(dy, centered), perChannel(inv))));
  dxs.push_back(sumOthers(dy));
  dxs.push_back(g.neg(sumOthers(dxhat)));
  dxs.push_back(g.scalarMul(
      g.mul(sumOthers(g.mul(dy, centered)), g.mul(op.getGamma(), inv3)), -0.5));
  return success();
}

static LogicalResult buildGradientRule(BatchNormOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  if (dys[1] || dys[2])
    return op.emitOpError("has no gradient through its mean or "
                          "inv_variance results");
  if (!op.getTraining())
    return inferenceBatchNormGradient(op, g, dys[0], dxs);
  OpBuilder &b = g.builder();
  auto grad = BatchNormGradOp::create(
      b, g.getLoc(), op.getX(), dys[0], op.getMean(), op.getInvVariance(),
      op.getGamma(), b.getI64IntegerAttr(op.getAxis()),
      b.getF64FloatAttr(op.getEpsilon().convertToDouble()),
      b.getI64IntegerAttr(op.getStatisticsGroups()));
  // The moving statistics do not enter a training batch_norm's y.
  dxs.append(
      {grad.getDx(), grad.getDgamma(), grad.getDbeta(), Value(), Value()});
  return success();
}

} // namespace mlir::oneflow

void mlir::oneflow::attachConvGradientModels(MLIRContext &context) {
  attachGradientModels<ONEFLOW_CONV_GRADIENT_OPS>(context);
}
