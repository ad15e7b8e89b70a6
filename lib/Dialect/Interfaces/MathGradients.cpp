//===- MathGradients.cpp - Gradient rules of element-wise ops -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Binary ops broadcast numpy-style, so each operand's gradient is summed
// back to its shape (`GradientBuilder::unbroadcast`). Unary rules reuse the
// forward result where the derivative is a function of it (tanh, sigmoid,
// exp, sqrt).
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;

namespace mlir::oneflow {

//===----------------------------------------------------------------------===//
// Broadcasting binary ops
//===----------------------------------------------------------------------===//

static LogicalResult buildGradientRule(AddOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.unbroadcast(dys[0], g.typeOf(op.getLhs())));
  dxs.push_back(g.unbroadcast(dys[0], g.typeOf(op.getRhs())));
  return success();
}

static LogicalResult buildGradientRule(SubOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.unbroadcast(dys[0], g.typeOf(op.getLhs())));
  dxs.push_back(g.unbroadcast(g.neg(dys[0]), g.typeOf(op.getRhs())));
  return success();
}

static LogicalResult buildGradientRule(MulOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.unbroadcast(g.mul(dys[0], op.getRhs()),
                              g.typeOf(op.getLhs())));
  dxs.push_back(g.unbroadcast(g.mul(dys[0], op.getLhs()),
                              g.typeOf(op.getRhs())));
  return success();
}

static LogicalResult buildGradientRule(DivOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // z = a / b: da = dz / b, db = -dz * z / b.
  Value da = g.div(dys[0], op.getRhs());
  dxs.push_back(g.unbroadcast(da, g.typeOf(op.getLhs())));
  Value db = g.neg(g.mul(da, op.getResult()));
  dxs.push_back(g.unbroadcast(db, g.typeOf(op.getRhs())));
  return success();
}

//===----------------------------------------------------------------------===//
// Unary and scalar ops
//===----------------------------------------------------------------------===//

static LogicalResult buildGradientRule(NegOp, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.neg(dys[0]));
  return success();
}

static LogicalResult buildGradientRule(ScalarAddOp, GradientBuilder &,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(dys[0]);
  return success();
}

static LogicalResult buildGradientRule(ScalarMulOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.scalarMul(dys[0], op.getScalar().convertToDouble()));
  return success();
}

static LogicalResult buildGradientRule(ScalarDivOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.scalarMul(dys[0], 1.0 / op.getScalar().convertToDouble()));
  return success();
}

static LogicalResult buildGradientRule(ReluOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  Type element = g.typeOf(op.getX()).getElementType();
  Value positive = GreaterOp::create(g.builder(), g.getLoc(), op.getX(),
                                     g.scalar(element, 0.0));
  dxs.push_back(g.where(positive, dys[0], g.scalar(element, 0.0)));
  return success();
}

static LogicalResult buildGradientRule(TanhOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 1 - y^2.
  Value y = op.getResult();
  Value slope = g.scalarAdd(g.neg(g.mul(y, y)), 1.0);
  dxs.push_back(g.mul(dys[0], slope));
  return success();
}

static LogicalResult buildGradientRule(SigmoidOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // y (1 - y).
  Value y = op.getResult();
  Value slope = g.mul(y, g.scalarAdd(g.neg(y), 1.0));
  dxs.push_back(g.mul(dys[0], slope));
  return success();
}

static LogicalResult buildGradientRule(ExpOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.mul(dys[0], op.getResult()));
  return success();
}

static LogicalResult buildGradientRule(LogOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.div(dys[0], op.getX()));
  return success();
}

static LogicalResult buildGradientRule(SqrtOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 1 / (2 y).
  dxs.push_back(g.scalarMul(g.div(dys[0], op.getResult()), 0.5));
  return success();
}

static LogicalResult buildGradientRule(GeluOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2 and
  // phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
  Value x = op.getX();
  Value erf = ErfOp::create(g.builder(), g.getLoc(),
                            g.scalarMul(x, 1.0 / std::sqrt(2.0)));
  Value cdf = g.scalarAdd(g.scalarMul(erf, 0.5), 0.5);
  Value pdf = g.scalarMul(g.exp(g.scalarMul(g.mul(x, x), -0.5)),
                          1.0 / std::sqrt(2.0 * M_PI));
  Value slope = g.add(cdf, g.mul(x, pdf));
  dxs.push_back(g.mul(dys[0], slope));
  return success();
}

//===----------------------------------------------------------------------===//
// Selection
//===----------------------------------------------------------------------===//

static LogicalResult buildGradientRule(WhereOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  Value zero = g.scalar(g.typeOf(dys[0]).getElementType(), 0.0);
  Value cond = op.getCondition();
  dxs.push_back(Value());
  dxs.push_back(
      g.unbroadcast(g.where(cond, dys[0], zero), g.typeOf(op.getX())));
  dxs.push_back(
      g.unbroadcast(g.where(cond, zero, dys[0]), g.typeOf(op.getY())));
  return success();
}

static LogicalResult buildGradientRule(MaskedFillOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  Value zero = g.scalar(g.typeOf(dys[0]).getElementType(), 0.0);
  dxs.push_back(g.unbroadcast(g.where(op.getMask(), zero, dys[0]),
                              g.typeOf(op.getX())));
  dxs.push_back(Value());
  return success();
}

} // namespace mlir::oneflow

void mlir::oneflow::attachMathGradientModels(MLIRContext &context) {
  attachGradientModels<AddOp, SubOp, MulOp, DivOp, NegOp, ScalarAddOp,
                       ScalarMulOp, ScalarDivOp, ReluOp, TanhOp, SigmoidOp,
                       ExpOp, LogOp, SqrtOp, GeluOp, WhereOp, MaskedFillOp>(
      context);
}
