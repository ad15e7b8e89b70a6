//===- GradientBuilder.cpp - Building blocks of gradient rules ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::oneflow;

Value GradientBuilder::reshape(Value x, ArrayRef<int64_t> shape) {
  RankedTensorType type = typeOf(x);
  if (type.getShape() == shape)
    return x;
  return ReshapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), x);
}

Value GradientBuilder::reduceSum(Value x, ArrayRef<int64_t> axes,
                                 bool keepdims) {
  if (axes.empty())
    return x;
  return ReduceSumOp::create(b, loc, x, b.getDenseI64ArrayAttr(axes),
                             keepdims ? b.getUnitAttr() : UnitAttr());
}

Value GradientBuilder::broadcastTo(Value x, RankedTensorType type) {
  if (typeOf(x).getShape() == type.getShape())
    return x;
  return add(
      fill(RankedTensorType::get(type.getShape(), typeOf(x).getElementType()),
           0.0),
      x);
}

Value GradientBuilder::unbroadcast(Value grad, RankedTensorType type) {
  ArrayRef<int64_t> out = typeOf(grad).getShape();
  ArrayRef<int64_t> in = type.getShape();
  int64_t lead = static_cast<int64_t>(out.size()) - in.size();
  SmallVector<int64_t> axes;
  for (int64_t axis = 0; axis < static_cast<int64_t>(out.size()); ++axis)
    if (axis < lead || (in[axis - lead] == 1 && out[axis] != 1))
      axes.push_back(axis);
  return reshape(reduceSum(grad, axes, /*keepdims=*/false), in);
}
