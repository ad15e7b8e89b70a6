//===- ShapeGradients.cpp - Gradient rules of layout and reduction ops ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Reductions broadcast their gradient back (reduce_max to its maxima);
// reshapes, transposes and flattens undo themselves; concat slices its
// gradient and slice pads its gradient with zeros (concatenations, strided
// ones through a reshape that interleaves zeros); gather's table gradient is
// a scatter-add, `gather_grad`.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// `x` with size-1 axes inserted at the reduced `axes` (the keepdims shape
/// of a reduction of `in`).
SmallVector<int64_t> keepdimsShape(ArrayRef<int64_t> in,
                                   ArrayRef<int64_t> axes) {
  SmallVector<int64_t> shape(in);
  int64_t rank = in.size();
  for (int64_t axis : axes)
    shape[normalizeAxis(axis, rank)] = 1;
  return shape;
}

/// Zeros of `like`'s shape with axis `axis` of size `size` (null when
/// `size` is 0).
Value zerosAlong(GradientBuilder &g, Value like, int64_t axis, int64_t size) {
  if (size == 0)
    return Value();
  RankedTensorType type = g.typeOf(like);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = size;
  return g.fill(RankedTensorType::get(shape, type.getElementType()), 0.0);
}

/// `parts` (null ones skipped) concatenated along `axis`.
Value concat(GradientBuilder &g, ArrayRef<Value> parts, int64_t axis) {
  SmallVector<Value> inputs;
  for (Value part : parts)
    if (part)
      inputs.push_back(part);
  if (inputs.size() == 1)
    return inputs.front();
  return ConcatOp::create(g.builder(), g.getLoc(), inputs,
                          g.builder().getI64IntegerAttr(axis));
}

/// `x` sliced to [begin, end) along `axis`, whole along the others.
Value sliceAlong(GradientBuilder &g, Value x, int64_t axis, int64_t begin,
                 int64_t end) {
  ArrayRef<int64_t> shape = g.typeOf(x).getShape();
  if (begin == 0 && end == shape[axis])
    return x;
  SmallVector<int64_t> starts(shape.size(), 0), ends(shape),
      steps(shape.size(), 1);
  starts[axis] = begin;
  ends[axis] = end;
  OpBuilder &b = g.builder();
  return SliceOp::create(b, g.getLoc(), x, b.getDenseI64ArrayAttr(starts),
                         b.getDenseI64ArrayAttr(ends),
                         b.getDenseI64ArrayAttr(steps));
}

/// Python's clamping of a slice bound to [0, size].
int64_t clampBound(int64_t bound, int64_t size) {
  if (bound < 0)
    bound += size;
  return std::clamp<int64_t>(bound, 0, size);
}

} // namespace

namespace mlir::oneflow {

template <typename ReduceOpTy>
static void reduceGradient(ReduceOpTy op, GradientBuilder &g, Value dy,
                           double scale, SmallVectorImpl<Value> &dxs) {
  RankedTensorType x = g.typeOf(op.getX());
  Value kept = g.reshape(dy, keepdimsShape(x.getShape(), op.getAxes()));
  if (scale != 1.0)
    kept = g.scalarMul(kept, scale);
  dxs.push_back(g.broadcastTo(kept, x));
}

static LogicalResult buildGradientRule(ReduceSumOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  reduceGradient(op, g, dys[0], 1.0, dxs);
  return success();
}

static LogicalResult buildGradientRule(ReduceMeanOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  RankedTensorType x = g.typeOf(op.getX());
  int64_t count = 1;
  for (int64_t axis : op.getAxes())
    count *= x.getDimSize(normalizeAxis(axis, x.getRank()));
  reduceGradient(op, g, dys[0], count ? 1.0 / count : 0.0, dxs);
  return success();
}

// d/dx sum(x * x) = 2 x, times dy brought back to x's shape.
static LogicalResult buildGradientRule(ReduceSumSquareOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  SmallVector<Value, 1> spread;
  reduceGradient(op, g, dys[0], 2.0, spread);
  dxs.push_back(g.mul(spread.front(), op.getX()));
  return success();
}

static LogicalResult buildGradientRule(ReduceMaxOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // dy goes to the maxima, shared evenly between ties (as torch.amax).
  RankedTensorType x = g.typeOf(op.getX());
  SmallVector<int64_t> keep = keepdimsShape(x.getShape(), op.getAxes());
  SmallVector<int64_t> axes;
  for (int64_t axis : op.getAxes())
    axes.push_back(normalizeAxis(axis, x.getRank()));
  Type element = x.getElementType();
  Value isMax = EqualOp::create(g.builder(), g.getLoc(), op.getX(),
                                g.reshape(op.getResult(), keep));
  Value mask = g.where(isMax, g.scalar(element, 1.0), g.scalar(element, 0.0));
  Value ties = g.reduceSum(mask, axes, /*keepdims=*/true);
  dxs.push_back(g.mul(mask, g.div(g.reshape(dys[0], keep), ties)));
  return success();
}

static LogicalResult buildGradientRule(ReshapeOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.reshape(dys[0], g.typeOf(op.getX()).getShape()));
  return success();
}

static LogicalResult buildGradientRule(FlattenOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  dxs.push_back(g.reshape(dys[0], g.typeOf(op.getX()).getShape()));
  return success();
}

static LogicalResult buildGradientRule(TransposeOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  ArrayRef<int64_t> perm = op.getPerm();
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = i;
  OpBuilder &b = g.builder();
  dxs.push_back(TransposeOp::create(b, g.getLoc(), dys[0],
                                    b.getDenseI64ArrayAttr(inverse)));
  return success();
}

static LogicalResult buildGradientRule(ConcatOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  int64_t rank = g.typeOf(op.getResult()).getRank();
  int64_t axis = normalizeAxis(op.getAxis(), rank);
  int64_t begin = 0;
  for (Value input : op.getInputs()) {
    int64_t size = g.typeOf(input).getDimSize(axis);
    dxs.push_back(sliceAlong(g, dys[0], axis, begin, begin + size));
    begin += size;
  }
  return success();
}

static LogicalResult buildGradientRule(SliceOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  RankedTensorType x = g.typeOf(op.getX());
  ArrayRef<int64_t> outShape = g.typeOf(op.getResult()).getShape();
  if (llvm::is_contained(outShape, 0)) {
    dxs.push_back(g.fill(x, 0.0));
    return success();
  }
  Value grad = dys[0];
  for (int64_t axis = 0; axis < x.getRank(); ++axis) {
    int64_t dim = x.getDimSize(axis), count = outShape[axis];
    int64_t start = clampBound(op.getStarts()[axis], dim);
    int64_t step = op.getSteps()[axis];
    int64_t length = count;
    if (step > 1) {
      // Interleave step - 1 zeros after each element: (.., count, 1, ..)
      // joined with zeros (.., count, step - 1, ..), merged, and cut at the
      // end of the axis.
      SmallVector<int64_t> shape(g.typeOf(grad).getShape());
      shape.insert(shape.begin() + axis + 1, 1);
      Value split = g.reshape(grad, shape);
      Value spread = concat(
          g, {split, zerosAlong(g, split, axis + 1, step - 1)}, axis + 1);
      shape.erase(shape.begin() + axis + 1);
      shape[axis] = count * step;
      length = std::min(count * step, dim - start);
      grad = sliceAlong(g, g.reshape(spread, shape), axis, 0, length);
    }
    grad = concat(g,
                  {zerosAlong(g, grad, axis, start), grad,
                   zerosAlong(g, grad, axis, dim - start - length)},
                  axis);
  }
  dxs.push_back(grad);
  return success();
}

static LogicalResult buildGradientRule(GatherOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // The rows of dy added back into a zero table at their indices.
  RankedTensorType x = g.typeOf(op.getX());
  int64_t axis = normalizeAxis(op.getAxis(), x.getRank());
  if (ShapedType::isDynamic(x.getDimSize(axis)))
    return op.emitOpError("needs a static size of the gathered axis to take "
                          "its gradient");
  OpBuilder &b = g.builder();
  dxs.push_back(GatherGradOp::create(b, g.getLoc(), dys[0], op.getIndices(),
                                     b.getI64IntegerAttr(axis),
                                     b.getI64IntegerAttr(x.getDimSize(axis))));
  dxs.push_back(Value());
  return success();
}

/// gather_elements_grad of `dy`: each element added back at the position
/// of x (static shape, `axis`) that `indices` names.
static FailureOr<Value> scatterBack(Operation *op, GradientBuilder &g, Value dy,
                                    Value indices, int64_t axis, Value x) {
  RankedTensorType type = g.typeOf(x);
  if (!type.hasStaticShape())
    return op->emitOpError("needs a static shape of x to take its gradient");
  OpBuilder &b = g.builder();
  return GatherElementsGradOp::create(
             b, g.getLoc(), dy, indices,
             b.getI64IntegerAttr(normalizeAxis(axis, type.getRank())),
             b.getDenseI64ArrayAttr(type.getShape()))
      .getResult();
}

static LogicalResult buildGradientRule(GatherElementsOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  FailureOr<Value> dx =
      scatterBack(op, g, dys[0], op.getIndices(), op.getAxis(), op.getX());
  if (failed(dx))
    return failure();
  dxs.push_back(*dx);
  dxs.push_back(Value());
  return success();
}

static LogicalResult buildGradientRule(TopKOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // The picked values' gradient goes back where they were picked from; the
  // indices have none.
  if (!dys[0]) {
    dxs.push_back(Value());
    return success();
  }
  FailureOr<Value> dx =
      scatterBack(op, g, dys[0], op.getIndices(), op.getAxis(), op.getX());
  if (failed(dx))
    return failure();
  dxs.push_back(*dx);
  return success();
}

static LogicalResult buildGradientRule(GatherGradOp op, GradientBuilder &g,
                                       ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // A row scatter-add (ONNX ScatterND): each row of dy went to the row its
  // index names, so its gradient is gathered back from there.
  OpBuilder &b = g.builder();
  dxs.push_back(GatherOp::create(b, g.getLoc(), dys[0], op.getIndices(),
                                 op.getAxisAttr()));
  dxs.push_back(Value());
  return success();
}

static LogicalResult buildGradientRule(GatherElementsGradOp op,
                                       GradientBuilder &g, ValueRange dys,
                                       SmallVectorImpl<Value> &dxs) {
  // A scatter-add (ONNX ScatterElements): each element of dy went to the
  // position its index names, so its gradient is gathered back from there.
  OpBuilder &b = g.builder();
  dxs.push_back(GatherElementsOp::create(b, g.getLoc(), dys[0], op.getIndices(),
                                         op.getAxisAttr()));
  dxs.push_back(Value());
  return success();
}

} // namespace mlir::oneflow

void mlir::oneflow::attachShapeGradientModels(MLIRContext &context) {
  attachGradientModels<ONEFLOW_SHAPE_GRADIENT_OPS>(context);
}
