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
  dxs.push_back(
      g.unbroadcast(g.mul(dys[0], op.getRhs()), g.typeOf(op.getLhs())));
  dxs.push_back(
      g.unbroadcast(g.mul(dys[0], op.getLhs()), g.typeOf(op.getRhs())));
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

static LogicalResult buildGradientRule(PowOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // z = a^b: da = dz b a^(b - 1); db = dz z log(a), taken as 0 where a <= 0
  // (b's derivative is only defined for a positive base).
  Value a = op.getLhs(), bv = op.getRhs(), dz = dys[0];
  OpBuilder &b = g.builder();
  Location loc = g.getLoc();
  Value lower = PowOp::create(b, loc, a, g.scalarAdd(bv, -1.0));
  dxs.push_back(g.unbroadcast(g.mul(dz, g.mul(bv, lower)), g.typeOf(a)));
  Type element = g.typeOf(a).getElementType();
  Value positive = GreaterOp::create(b, loc, a, g.scalar(element, 0.0));
  Value logA = LogOp::create(b, loc, a);
  Value slope =
      g.where(positive, g.mul(op.getResult(), logA), g.scalar(element, 0.0));
  dxs.push_back(g.unbroadcast(g.mul(dz, slope), g.typeOf(bv)));
  return success();
}

/// Gradients of maximum (`isMax`) or minimum: dz goes to the operand that
/// was picked, and half of it to each on a tie (as PyTorch).
template <typename OpTy>
static void extremumGradient(OpTy op, GradientBuilder &g, Value dz, bool isMax,
                             SmallVectorImpl<Value> &dxs) {
  OpBuilder &b = g.builder();
  Location loc = g.getLoc();
  Value lhs = op.getLhs(), rhs = op.getRhs();
  Value zero = g.scalar(g.typeOf(dz).getElementType(), 0.0);
  Value tie = EqualOp::create(b, loc, lhs, rhs);
  Value half = g.where(tie, g.scalarMul(dz, 0.5), zero);
  Value lhsWins = isMax ? GreaterOp::create(b, loc, lhs, rhs).getResult()
                        : LessOp::create(b, loc, lhs, rhs).getResult();
  Value rhsWins = isMax ? LessOp::create(b, loc, lhs, rhs).getResult()
                        : GreaterOp::create(b, loc, lhs, rhs).getResult();
  dxs.push_back(g.unbroadcast(g.where(lhsWins, dz, half), g.typeOf(lhs)));
  dxs.push_back(g.unbroadcast(g.where(rhsWins, dz, half), g.typeOf(rhs)));
}

static LogicalResult buildGradientRule(MaximumOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  extremumGradient(op, g, dys[0], /*isMax=*/true, dxs);
  return success();
}

static LogicalResult buildGradientRule(MinimumOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  extremumGradient(op, g, dys[0], /*isMax=*/false, dxs);
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

/// dy times `DerivativeOp` of x (negated when `negate`): sin, cos, sinh,
/// cosh and softplus have their derivative among the ops.
template <typename DerivativeOp>
static LogicalResult pushDerivative(Value x, GradientBuilder &g, Value dy,
                                    bool negate, SmallVectorImpl<Value> &dxs) {
  Value dx = g.mul(dy, DerivativeOp::create(g.builder(), g.getLoc(), x));
  dxs.push_back(negate ? g.neg(dx) : dx);
  return success();
}

static LogicalResult buildGradientRule(ReciprocalOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // -1 / x^2 = -y^2.
  Value y = op.getResult();
  dxs.push_back(g.neg(g.mul(dys[0], g.mul(y, y))));
  return success();
}

static LogicalResult buildGradientRule(SinOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  return pushDerivative<CosOp>(op.getX(), g, dys[0], false, dxs);
}

static LogicalResult buildGradientRule(CosOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  return pushDerivative<SinOp>(op.getX(), g, dys[0], true, dxs);
}

static LogicalResult buildGradientRule(TanOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 1 + y^2.
  Value y = op.getResult();
  dxs.push_back(g.mul(dys[0], g.scalarAdd(g.mul(y, y), 1.0)));
  return success();
}

/// dy / sqrt(sign (x^2 + shift)): asin (-1, 1), asinh (1, 1), acosh (1, -1).
static Value inverseRootSlope(GradientBuilder &g, Value x, Value dy,
                              double sign, double shift) {
  Value square = g.mul(x, x);
  Value inside = g.scalarAdd(sign < 0 ? g.neg(square) : square, shift);
  return g.mul(dy, RsqrtOp::create(g.builder(), g.getLoc(), inside));
}

static LogicalResult buildGradientRule(AsinOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(inverseRootSlope(g, op.getX(), dys[0], -1, 1));
  return success();
}

static LogicalResult buildGradientRule(AcosOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.neg(inverseRootSlope(g, op.getX(), dys[0], -1, 1)));
  return success();
}

static LogicalResult buildGradientRule(AsinhOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(inverseRootSlope(g, op.getX(), dys[0], 1, 1));
  return success();
}

static LogicalResult buildGradientRule(AcoshOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(inverseRootSlope(g, op.getX(), dys[0], 1, -1));
  return success();
}

static LogicalResult buildGradientRule(AtanOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 1 / (1 + x^2).
  Value x = op.getX();
  dxs.push_back(g.div(dys[0], g.scalarAdd(g.mul(x, x), 1.0)));
  return success();
}

static LogicalResult buildGradientRule(AtanhOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 1 / (1 - x^2).
  Value x = op.getX();
  dxs.push_back(g.div(dys[0], g.scalarAdd(g.neg(g.mul(x, x)), 1.0)));
  return success();
}

static LogicalResult buildGradientRule(SinhOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  return pushDerivative<CoshOp>(op.getX(), g, dys[0], false, dxs);
}

static LogicalResult buildGradientRule(CoshOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  return pushDerivative<SinhOp>(op.getX(), g, dys[0], false, dxs);
}

/// Piecewise-constant ops (floor, ceil, round, sign): a zero gradient, as
/// PyTorch gives.
template <typename OpTy>
static LogicalResult buildZeroGradient(OpTy op, GradientBuilder &g,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.fill(g.typeOf(op.getX()), 0.0));
  return success();
}

static LogicalResult buildGradientRule(FloorOp op, GradientBuilder &g,
                                       ValueRange,
                                       SmallVectorImpl<Value> &dxs) {
  return buildZeroGradient(op, g, dxs);
}

static LogicalResult buildGradientRule(CeilOp op, GradientBuilder &g,
                                       ValueRange,
                                       SmallVectorImpl<Value> &dxs) {
  return buildZeroGradient(op, g, dxs);
}

static LogicalResult buildGradientRule(RoundOp op, GradientBuilder &g,
                                       ValueRange,
                                       SmallVectorImpl<Value> &dxs) {
  return buildZeroGradient(op, g, dxs);
}

static LogicalResult buildGradientRule(SignOp op, GradientBuilder &g,
                                       ValueRange,
                                       SmallVectorImpl<Value> &dxs) {
  return buildZeroGradient(op, g, dxs);
}

static LogicalResult buildGradientRule(SoftplusOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // sigmoid(x).
  return pushDerivative<SigmoidOp>(op.getX(), g, dys[0], false, dxs);
}

static LogicalResult buildGradientRule(LeakyReluOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 1 above 0, alpha elsewhere (as PyTorch).
  Type element = g.typeOf(op.getX()).getElementType();
  Value positive = GreaterOp::create(g.builder(), g.getLoc(), op.getX(),
                                     g.scalar(element, 0.0));
  double alpha = op.getAlpha().convertToDouble();
  dxs.push_back(g.where(positive, dys[0], g.scalarMul(dys[0], alpha)));
  return success();
}

/// elu and selu: y = scale x above 0, else scale alpha (exp(x) - 1), whose
/// slope there is y + scale alpha.
static void buildExponentialLinearGradient(Value x, Value y, double scale,
                                           double alpha, GradientBuilder &g,
                                           Value dy,
                                           SmallVectorImpl<Value> &dxs) {
  Type element = g.typeOf(x).getElementType();
  Value positive =
      GreaterOp::create(g.builder(), g.getLoc(), x, g.scalar(element, 0.0));
  Value below = g.mul(dy, g.scalarAdd(y, scale * alpha));
  dxs.push_back(g.where(positive, g.scalarMul(dy, scale), below));
}

static LogicalResult buildGradientRule(EluOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  buildExponentialLinearGradient(op.getX(), op.getResult(), 1.0,
                                 op.getAlpha().convertToDouble(), g, dys[0],
                                 dxs);
  return success();
}

static LogicalResult buildGradientRule(SeluOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  buildExponentialLinearGradient(
      op.getX(), op.getResult(), op.getGamma().convertToDouble(),
      op.getAlpha().convertToDouble(), g, dys[0], dxs);
  return success();
}

static LogicalResult buildGradientRule(HardSigmoidOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // alpha where 0 < alpha x + beta < 1, else 0.
  double alpha = op.getAlpha().convertToDouble();
  Value t = g.scalarAdd(g.scalarMul(op.getX(), alpha),
                        op.getBeta().convertToDouble());
  Type element = g.typeOf(t).getElementType();
  Value zero = g.scalar(element, 0.0);
  Value above = GreaterOp::create(g.builder(), g.getLoc(), t, zero);
  Value below =
      LessOp::create(g.builder(), g.getLoc(), t, g.scalar(element, 1.0));
  Value slope = g.scalarMul(dys[0], alpha);
  dxs.push_back(g.where(above, g.where(below, slope, zero), zero));
  return success();
}

static LogicalResult buildGradientRule(GeluOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // dy (Phi(x) + x phi(x)), one op (gelu_grad) rather than eleven.
  dxs.push_back(GeluGradOp::create(g.builder(), g.getLoc(), op.getX(), dys[0]));
  return success();
}

static LogicalResult buildGradientRule(ScalarPowOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // p x^(p - 1); p = 0 gives 0 and p = 1 gives dz, also where x = 0.
  double p = op.getScalar().convertToDouble();
  Value dz = dys[0];
  if (p == 0.0) {
    dxs.push_back(g.fill(g.typeOf(op.getX()), 0.0));
    return success();
  }
  if (p == 1.0) {
    dxs.push_back(dz);
    return success();
  }
  Value lower = p == 2.0
                    ? op.getX()
                    : ScalarPowOp::create(g.builder(), g.getLoc(), op.getX(),
                                          g.builder().getF64FloatAttr(p - 1))
                          .getResult();
  dxs.push_back(g.scalarMul(g.mul(dz, lower), p));
  return success();
}

static LogicalResult buildGradientRule(AbsOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // sign(x), 0 at 0 (as PyTorch).
  OpBuilder &b = g.builder();
  Value x = op.getX(), dz = dys[0];
  Value zero = g.scalar(g.typeOf(x).getElementType(), 0.0);
  Value negative = LessOp::create(b, g.getLoc(), x, zero);
  Value positive = GreaterOp::create(b, g.getLoc(), x, zero);
  dxs.push_back(g.where(positive, dz, g.where(negative, g.neg(dz), zero)));
  return success();
}

static LogicalResult buildGradientRule(RsqrtOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // -y^3 / 2.
  Value y = op.getResult();
  dxs.push_back(g.scalarMul(g.mul(dys[0], g.mul(y, g.mul(y, y))), -0.5));
  return success();
}

static LogicalResult buildGradientRule(ErfOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // 2 / sqrt(pi) exp(-x^2).
  Value x = op.getX();
  Value bell = g.exp(g.neg(g.mul(x, x)));
  dxs.push_back(g.scalarMul(g.mul(dys[0], bell), 2.0 / std::sqrt(M_PI)));
  return success();
}

static LogicalResult buildGradientRule(CastOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // Float to float casts the gradient back; an integer input has none.
  RankedTensorType x = g.typeOf(op.getX());
  if (!isa<FloatType>(x.getElementType()) || !dys[0]) {
    dxs.push_back(Value());
    return success();
  }
  dxs.push_back(CastOp::create(g.builder(), g.getLoc(), x, dys[0]));
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
  dxs.push_back(
      g.unbroadcast(g.where(op.getMask(), zero, dys[0]), g.typeOf(op.getX())));
  dxs.push_back(Value());
  return success();
}

} // namespace mlir::oneflow

void mlir::oneflow::attachMathGradientModels(MLIRContext &context) {
  attachGradientModels<ONEFLOW_MATH_GRADIENT_OPS>(context);
}
