//===- ShapeOps.cpp - Layout, indexing and reductions ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/ConstantFolding.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::oneflow;

LogicalResult ReshapeOp::verify() {
  auto in = cast<RankedTensorType>(getX().getType());
  auto out = cast<RankedTensorType>(getType());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "changes the element type from "
                         << in.getElementType() << " to "
                         << out.getElementType();
  if (in.hasStaticShape() && out.hasStaticShape() &&
      in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << in.getNumElements()
                         << " elements into " << out.getNumElements();
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (static_cast<int64_t>(perm.size()) != x.getRank())
    return emitInferError(loc, getOperationName())
           << "perm has " << perm.size() << " entries for a rank-"
           << x.getRank() << " tensor";
  llvm::SmallBitVector seen(perm.size());
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= x.getRank() || seen.test(p))
      return emitInferError(loc, getOperationName())
             << "perm is not a permutation of 0.." << x.getRank() - 1;
    seen.set(p);
    shape.push_back(x.getDimSize(p));
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  int64_t rank = std::max<int64_t>(x.getRank(), 1);
  StringRef name = getOperationName();
  if (failed(checkAxis(loc, name, "start_dim", adaptor.getStartDim(), rank)) ||
      failed(checkAxis(loc, name, "end_dim", adaptor.getEndDim(), rank)))
    return failure();
  int64_t start = normalizeAxis(adaptor.getStartDim(), rank);
  int64_t end = normalizeAxis(adaptor.getEndDim(), rank);
  if (start > end)
    return emitInferError(loc, name)
           << "start_dim " << start << " is after end_dim " << end;
  if (x.getRank() == 0) {
    types.push_back(RankedTensorType::get({1}, x.getElementType()));
    return success();
  }
  SmallVector<int64_t> shape(x.getShape().take_front(start));
  int64_t merged = 1;
  for (int64_t i = start; i <= end; ++i) {
    if (x.isDynamicDim(i)) {
      merged = ShapedType::kDynamic;
      break;
    }
    merged *= x.getDimSize(i);
  }
  shape.push_back(merged);
  llvm::append_range(shape, x.getShape().drop_front(end + 1));
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  if (adaptor.getInputs().empty())
    return emitInferError(loc, name) << "needs at least one input";
  auto first = cast<RankedTensorType>(adaptor.getInputs()[0].getType());
  int64_t rank = first.getRank();
  if (failed(checkAxis(loc, name, "axis", adaptor.getAxis(), rank)))
    return failure();
  int64_t axis = normalizeAxis(adaptor.getAxis(), rank);
  SmallVector<int64_t> shape(first.getShape());
  shape[axis] = 0;
  for (auto [i, input] : llvm::enumerate(adaptor.getInputs())) {
    auto t = cast<RankedTensorType>(input.getType());
    if (t.getRank() != rank || t.getElementType() != first.getElementType())
      return emitInferError(loc, name)
             << "input " << i << " of type " << t
             << " does not match the rank and element type of input 0, "
             << first;
    for (int64_t d = 0; d < rank; ++d) {
      if (d == axis)
        continue;
      if (failed(verifyCompatibleShape({t.getDimSize(d)}, {shape[d]})))
        return emitInferError(loc, name)
               << "input " << i << " has size " << t.getDimSize(d)
               << " on axis " << d << " where input 0 has " << shape[d];
      if (ShapedType::isDynamic(shape[d]))
        shape[d] = t.getDimSize(d);
    }
    if (ShapedType::isDynamic(shape[axis]) || t.isDynamicDim(axis))
      shape[axis] = ShapedType::kDynamic;
    else
      shape[axis] += t.getDimSize(axis);
  }
  types.push_back(RankedTensorType::get(shape, first.getElementType()));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  ArrayRef<int64_t> starts = adaptor.getStarts(), ends = adaptor.getEnds(),
                    steps = adaptor.getSteps();
  size_t rank = x.getRank();
  if (starts.size() != rank || ends.size() != rank || steps.size() != rank)
    return emitInferError(loc, name)
           << "needs one start, end and step per axis (" << rank << "), got "
           << starts.size() << ", " << ends.size() << " and " << steps.size();
  SmallVector<int64_t> shape;
  for (size_t i = 0; i < rank; ++i) {
    if (steps[i] < 1)
      return emitInferError(loc, name)
             << "step " << steps[i] << " on axis " << i << " is not positive";
    int64_t dim = x.getDimSize(i);
    if (ShapedType::isDynamic(dim)) {
      shape.push_back(ShapedType::kDynamic);
      continue;
    }
    shape.push_back(pythonSliceRange(dim, starts[i], ends[i], steps[i]).second);
  }
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  auto indices = cast<RankedTensorType>(adaptor.getIndices().getType());
  if (x.getRank() < 1)
    return emitInferError(loc, getOperationName())
           << "cannot gather from a scalar";
  if (failed(checkAxis(loc, getOperationName(), "axis", adaptor.getAxis(),
                       x.getRank())))
    return failure();
  int64_t axis = normalizeAxis(adaptor.getAxis(), x.getRank());
  SmallVector<int64_t> shape(x.getShape().take_front(axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, x.getShape().drop_front(axis + 1));
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

/// gather_elements and its gradient: `indices` has the rank of `x` (the
/// gathered tensor), and no larger size than it on the other axes.
static LogicalResult checkElementIndices(std::optional<Location> loc,
                                         StringRef name, RankedTensorType x,
                                         RankedTensorType indices,
                                         int64_t axisAttr) {
  if (x.getRank() < 1)
    return emitInferError(loc, name) << "cannot gather from a scalar";
  if (indices.getRank() != x.getRank())
    return emitInferError(loc, name)
           << "indices " << indices << " must have the rank of " << x;
  if (failed(checkAxis(loc, name, "axis", axisAttr, x.getRank())))
    return failure();
  int64_t axis = normalizeAxis(axisAttr, x.getRank());
  for (int64_t j = 0; j < x.getRank(); ++j)
    if (j != axis && !ShapedType::isDynamic(x.getDimSize(j)) &&
        !ShapedType::isDynamic(indices.getDimSize(j)) &&
        indices.getDimSize(j) > x.getDimSize(j))
      return emitInferError(loc, name)
             << "indices " << indices << " are larger than " << x << " on axis "
             << j;
  return success();
}

LogicalResult GatherElementsOp::inferReturnTypes(MLIRContext *,
                                                 std::optional<Location> loc,
                                                 Adaptor adaptor,
                                                 SmallVectorImpl<Type> &types) {
  auto x = stripEncoding(adaptor.getX().getType());
  auto indices = stripEncoding(adaptor.getIndices().getType());
  if (failed(checkElementIndices(loc, getOperationName(), x, indices,
                                 adaptor.getAxis())))
    return failure();
  types.push_back(
      RankedTensorType::get(indices.getShape(), x.getElementType()));
  return success();
}

LogicalResult GatherElementsGradOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto dy = stripEncoding(adaptor.getDy().getType());
  auto indices = stripEncoding(adaptor.getIndices().getType());
  auto dx = RankedTensorType::get(adaptor.getShape(), dy.getElementType());
  if (failed(verifyCompatibleShape(dy.getShape(), indices.getShape())))
    return emitInferError(loc, getOperationName())
           << "dy " << dy << " must have the indices' shape " << indices;
  if (failed(checkElementIndices(loc, getOperationName(), dx, indices,
                                 adaptor.getAxis())))
    return failure();
  types.push_back(dx);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> loc,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto x = stripEncoding(adaptor.getX().getType());
  if (x.getRank() < 1)
    return emitInferError(loc, name) << "cannot take the top k of a scalar";
  if (failed(checkAxis(loc, name, "axis", adaptor.getAxis(), x.getRank())))
    return failure();
  int64_t axis = normalizeAxis(adaptor.getAxis(), x.getRank());
  int64_t k = adaptor.getK(), size = x.getDimSize(axis);
  if (k < 0 || (!ShapedType::isDynamic(size) && k > size))
    return emitInferError(loc, name) << "k " << k << " is outside [0, " << size
                                     << "], the size of axis " << axis;
  SmallVector<int64_t> shape(x.getShape());
  shape[axis] = k;
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  types.push_back(RankedTensorType::get(shape, IntegerType::get(context, 64)));
  return success();
}

//===----------------------------------------------------------------------===//
// SBP signatures
//===----------------------------------------------------------------------===//

/// A reshape from `in` to `out` of op: the axis pairs of
/// `getReshapeSplitAxes` are parallel, and P passes through.
static void deriveReshapeSbp(Operation *op, RankedTensorType in,
                             RankedTensorType out, int64_t meshAxisSize,
                             SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(op);
  for (auto [inAxis, outAxis] :
       getReshapeSplitAxes(in.getShape(), out.getShape(), meshAxisSize)) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(0, inAxis, dim);
    dims.mapResultAxis(0, outAxis, dim);
  }
  dims.addPartials("P");
  dims.derive(meshAxisSize, signatures);
}

void ReshapeOp::getSbpSignatures(int64_t meshAxisSize,
                                 SmallVectorImpl<SbpSignature> &signatures) {
  deriveReshapeSbp(*this, cast<RankedTensorType>(getX().getType()),
                   cast<RankedTensorType>(getType()), meshAxisSize, signatures);
}

void FlattenOp::getSbpSignatures(int64_t meshAxisSize,
                                 SmallVectorImpl<SbpSignature> &signatures) {
  deriveReshapeSbp(*this, cast<RankedTensorType>(getX().getType()),
                   cast<RankedTensorType>(getType()), meshAxisSize, signatures);
}

void TransposeOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  // One dimension per result axis i, which is operand axis perm[i].
  SbpDims dims(*this);
  for (auto [axis, from] : llvm::enumerate(getPerm())) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapResultAxis(0, axis, dim);
    dims.mapOperandAxis(0, from, dim);
  }
  dims.addPartials("P");
  dims.derive(meshAxisSize, signatures);
}

void ConcatOp::getSbpSignatures(int64_t meshAxisSize,
                                SmallVectorImpl<SbpSignature> &signatures) {
  // Every axis but the concatenated one is parallel; all P give P.
  SbpDims dims = SbpDims::elementwise(*this);
  int64_t rank = cast<RankedTensorType>(getType()).getRank();
  int64_t axis = normalizeAxis(getAxis(), rank);
  if (axis >= 0 && axis < rank)
    dims.setKind(axis, SbpDimKind::broadcastOnly);
  dims.addPartials(std::string(getInputs().size(), 'P'));
  dims.derive(meshAxisSize, signatures);
}

void SliceOp::getSbpSignatures(int64_t meshAxisSize,
                               SmallVectorImpl<SbpSignature> &signatures) {
  // An axis taken whole (from 0 to its end, step 1) is parallel; the
  // others are never split. P passes through.
  SbpDims dims = SbpDims::elementwise(*this);
  auto type = cast<RankedTensorType>(getX().getType());
  for (int64_t axis = 0; axis < type.getRank(); ++axis) {
    int64_t size = type.getDimSize(axis);
    int64_t start = getStarts()[axis], end = getEnds()[axis];
    bool whole =
        getSteps()[axis] == 1 &&
        (start == 0 || (!ShapedType::isDynamic(size) && start <= -size)) &&
        (end == std::numeric_limits<int64_t>::max() ||
         (!ShapedType::isDynamic(size) && end >= size));
    if (!whole)
      dims.setKind(axis, SbpDimKind::broadcastOnly);
  }
  dims.addPartials("P");
  dims.derive(meshAxisSize, signatures);
}

void GatherOp::getSbpSignatures(int64_t meshAxisSize,
                                SmallVectorImpl<SbpSignature> &signatures) {
  // The result is x[:axis] + indices + x[axis + 1:]. Index axes and the
  // other axes of x are parallel; x's gathered axis is a reduction (a
  // row-sharded table gives a partial result: out-of-shard rows are zeros).
  SbpDims dims(*this);
  int64_t xRank = cast<RankedTensorType>(getX().getType()).getRank();
  int64_t indexRank = cast<RankedTensorType>(getIndices().getType()).getRank();
  int64_t axis = normalizeAxis(getAxis(), xRank);
  for (int64_t i = 0; i < indexRank; ++i) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(1, i, dim);
    dims.mapResultAxis(0, axis + i, dim);
  }
  for (int64_t j = 0; j < xRank; ++j) {
    int64_t dim =
        dims.addDim(j == axis ? SbpDimKind::reduction : SbpDimKind::parallel);
    dims.mapOperandAxis(0, j, dim);
    if (j != axis)
      dims.mapResultAxis(0, j < axis ? j : j + indexRank - 1, dim);
  }
  dims.addPartials("PB");
  dims.derive(meshAxisSize, signatures);
}

/// gather_elements (`grad` false) and gather_elements_grad over `big` (x,
/// or the gradient's result) and `small` (the indices, the result, or dy):
/// the positions along `axis` are parallel for gather_elements (x whole)
/// and summed over for its gradient (a partial result); another axis is
/// parallel where both have its size (elsewhere the indices' positions
/// would not be x's). And `big` may be split along `axis` alone, each piece
/// holding some positions (as a row-split table does for gather): the
/// result is partial (out-of-piece positions give zeros), and the
/// gradient's pieces take what falls in them (Megatron's vocabulary-parallel
/// pick of the label's logit).
static void deriveGatherElementsSbp(Operation *op, int64_t axisAttr, bool grad,
                                    int64_t meshAxisSize,
                                    SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(op);
  auto big = stripEncoding(grad ? op->getResult(0).getType()
                                : op->getOperand(0).getType());
  auto small = stripEncoding(op->getOperand(1).getType());
  int64_t axis = normalizeAxis(axisAttr, big.getRank());
  for (int64_t j = 0; j < big.getRank(); ++j) {
    bool same = !ShapedType::isDynamic(big.getDimSize(j)) &&
                big.getDimSize(j) == small.getDimSize(j);
    if (j != axis && !same)
      continue;
    int64_t dim = dims.addDim(j == axis && grad ? SbpDimKind::reduction
                                                : SbpDimKind::parallel);
    // Operands: (x, indices) or (dy, indices); results: y or dx.
    dims.mapOperandAxis(1, j, dim);
    if (grad) {
      dims.mapOperandAxis(0, j, dim);
      if (j != axis)
        dims.mapResultAxis(0, j, dim);
    } else {
      dims.mapResultAxis(0, j, dim);
      if (j != axis)
        dims.mapOperandAxis(0, j, dim);
    }
  }
  int64_t pieces =
      dims.addDim(grad ? SbpDimKind::parallel : SbpDimKind::reduction);
  if (grad)
    dims.mapResultAxis(0, axis, pieces);
  else
    dims.mapOperandAxis(0, axis, pieces);
  dims.addPartials("PB");
  dims.derive(meshAxisSize, signatures);
}

void GatherElementsOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  deriveGatherElementsSbp(*this, getAxis(), /*grad=*/false, meshAxisSize,
                          signatures);
}

void GatherElementsGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  deriveGatherElementsSbp(*this, getAxis(), /*grad=*/true, meshAxisSize,
                          signatures);
}

/// How a reduction treats its reduced axes: a sum or mean is linear (split
/// gives P, P passes through), a max gives and passes P(max), a sum of
/// squares gives P but takes no P, an index of an extreme element never
/// splits them.
enum class ReduceSbpKind { linear, max, square, index };

/// Kept axes are parallel (shifted in the result without keepdims); reduced
/// axes as `kind` says.
static void deriveReduceSbp(Operation *op, ArrayRef<int64_t> axes,
                            bool keepdims, ReduceSbpKind kind,
                            int64_t meshAxisSize,
                            SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(op);
  int64_t rank = cast<RankedTensorType>(op->getOperand(0).getType()).getRank();
  llvm::SmallBitVector reduced(rank);
  for (int64_t axis : axes)
    if (normalizeAxis(axis, rank) >= 0 && normalizeAxis(axis, rank) < rank)
      reduced.set(normalizeAxis(axis, rank));
  int64_t resultAxis = 0;
  for (int64_t axis = 0; axis < rank; ++axis) {
    SbpDimKind dimKind = !reduced.test(axis) ? SbpDimKind::parallel
                         : kind == ReduceSbpKind::index
                             ? SbpDimKind::broadcastOnly
                             : SbpDimKind::reduction;
    int64_t dim = dims.addDim(dimKind, kind == ReduceSbpKind::max
                                           ? PartialReduction::max
                                           : PartialReduction::sum);
    dims.mapOperandAxis(0, axis, dim);
    if (!reduced.test(axis))
      dims.mapResultAxis(0, resultAxis, dim);
    if (!reduced.test(axis) || keepdims)
      ++resultAxis;
  }
  if (kind == ReduceSbpKind::linear || kind == ReduceSbpKind::max)
    dims.addPartials(kind == ReduceSbpKind::linear ? "P" : "M");
  dims.derive(meshAxisSize, signatures);
}

void ReduceSumOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  deriveReduceSbp(*this, getAxes(), getKeepdims(), ReduceSbpKind::linear,
                  meshAxisSize, signatures);
}

void ReduceMeanOp::getSbpSignatures(int64_t meshAxisSize,
                                    SmallVectorImpl<SbpSignature> &signatures) {
  // Linear too: the partial means divide by the logical count.
  deriveReduceSbp(*this, getAxes(), getKeepdims(), ReduceSbpKind::linear,
                  meshAxisSize, signatures);
}

void ReduceMaxOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  deriveReduceSbp(*this, getAxes(), getKeepdims(), ReduceSbpKind::max,
                  meshAxisSize, signatures);
}

void ReduceSumSquareOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  deriveReduceSbp(*this, getAxes(), getKeepdims(), ReduceSbpKind::square,
                  meshAxisSize, signatures);
}

// An index along a split axis would be local: the axis is never split.
void TopKOp::getSbpSignatures(int64_t meshAxisSize,
                              SmallVectorImpl<SbpSignature> &signatures) {
  // Every axis parallel in x, values and indices but `axis`.
  SbpDims dims = SbpDims::elementwise(*this);
  int64_t rank = stripEncoding(getX().getType()).getRank();
  dims.setKind(normalizeAxis(getAxis(), rank), SbpDimKind::broadcastOnly);
  dims.derive(meshAxisSize, signatures);
}

void ArgMaxOp::getSbpSignatures(int64_t meshAxisSize,
                                SmallVectorImpl<SbpSignature> &signatures) {
  deriveReduceSbp(*this, {static_cast<int64_t>(getAxis())}, getKeepdims(),
                  ReduceSbpKind::index, meshAxisSize, signatures);
}

void ArgMinOp::getSbpSignatures(int64_t meshAxisSize,
                                SmallVectorImpl<SbpSignature> &signatures) {
  deriveReduceSbp(*this, {static_cast<int64_t>(getAxis())}, getKeepdims(),
                  ReduceSbpKind::index, meshAxisSize, signatures);
}
