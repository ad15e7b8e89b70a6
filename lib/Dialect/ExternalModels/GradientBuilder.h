//===- GradientBuilder.h - Building blocks of gradient rules ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The gradient rules of the oneflow ops build their backward graph from the
// dialect's own ops (so that backward ops get SBP signatures and kernels
// like forward ones). `GradientBuilder` wraps an OpBuilder and a location
// and offers the few compositions every rule needs: numpy-broadcast
// reduction of a gradient back to an operand's shape, broadcasting to a
// shape, filled tensors and reshapes. Every tensor it makes is logical (no
// layout encoding): propagation derives backward layouts.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_DIALECT_INTERFACES_GRADIENTBUILDER_H
#define ONEFLOW_LIB_DIALECT_INTERFACES_GRADIENTBUILDER_H

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"

namespace mlir::oneflow {

/// Builds backward ops at an OpBuilder's insertion point.
class GradientBuilder {
public:
  GradientBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  OpBuilder &builder() { return b; }
  Location getLoc() const { return loc; }

  /// The logical type of `value`.
  static RankedTensorType typeOf(Value value) {
    return stripEncoding(value.getType());
  }

  Value add(Value lhs, Value rhs) { return AddOp::create(b, loc, lhs, rhs); }
  Value sub(Value lhs, Value rhs) { return SubOp::create(b, loc, lhs, rhs); }
  Value mul(Value lhs, Value rhs) { return MulOp::create(b, loc, lhs, rhs); }
  Value div(Value lhs, Value rhs) { return DivOp::create(b, loc, lhs, rhs); }
  Value neg(Value x) { return NegOp::create(b, loc, x); }
  Value exp(Value x) { return ExpOp::create(b, loc, x); }
  Value scalarMul(Value x, double s) {
    return ScalarMulOp::create(b, loc, x, b.getF64FloatAttr(s));
  }
  Value scalarAdd(Value x, double s) {
    return ScalarAddOp::create(b, loc, x, b.getF64FloatAttr(s));
  }
  Value where(Value cond, Value x, Value y) {
    return WhereOp::create(b, loc, cond, x, y);
  }

  /// A tensor of `type`'s shape and element type filled with `value`.
  Value fill(RankedTensorType type, double value) {
    return FillOp::create(b, loc, stripEncoding(type),
                          b.getF64FloatAttr(value));
  }
  /// A scalar of `elementType`.
  Value scalar(Type elementType, double value) {
    return fill(RankedTensorType::get({}, elementType), value);
  }

  /// `x` reshaped to `shape` (no op when it has that shape already).
  Value reshape(Value x, ArrayRef<int64_t> shape);

  /// Sum of `x` over `axes` (non-negative).
  Value reduceSum(Value x, ArrayRef<int64_t> axes, bool keepdims);

  /// `x` broadcast numpy-style to `type`'s shape.
  Value broadcastTo(Value x, RankedTensorType type);

  /// The gradient `grad` of a broadcast result, summed back to `type`'s
  /// shape: over the leading axes `type` lacks and the axes where it has
  /// size 1 and the gradient has not.
  Value unbroadcast(Value grad, RankedTensorType type);

private:
  OpBuilder &b;
  Location loc;
};

/// GradientInterface as an external model that calls the rule
/// `buildGradient(OpTy, GradientBuilder &, ValueRange, SmallVectorImpl<Value>
/// &)` found by argument-dependent lookup. The rule sees only the result
/// gradients of float results; null ones mean zero.
template <typename OpTy>
struct GradientModel
    : public GradientInterface::ExternalModel<GradientModel<OpTy>, OpTy> {
  LogicalResult buildGradient(Operation *op, OpBuilder &b,
                              ValueRange resultGrads,
                              SmallVectorImpl<Value> &operandGrads) const {
    GradientBuilder g(b, op->getLoc());
    size_t before = operandGrads.size();
    if (failed(buildGradientRule(cast<OpTy>(op), g, resultGrads, operandGrads)))
      return failure();
    operandGrads.resize(before + op->getNumOperands());
    return success();
  }
};

template <typename... OpTys> void attachGradientModels(MLIRContext &context) {
  (OpTys::template attachInterface<GradientModel<OpTys>>(context), ...);
}

/// Attaches GradientInterface to the ops with a gradient rule
/// (ONEFLOW_<KIND>_GRADIENT_OPS).
void attachMathGradientModels(MLIRContext &context);
void attachShapeGradientModels(MLIRContext &context);
void attachNNGradientModels(MLIRContext &context);
void attachConvGradientModels(MLIRContext &context);
/// CostInterface on every op (CostRules.cpp).
void attachCostInterfaceModels(MLIRContext &context);

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_DIALECT_INTERFACES_GRADIENTBUILDER_H
