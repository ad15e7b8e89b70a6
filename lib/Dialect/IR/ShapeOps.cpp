//===- ShapeOps.cpp - Layout, indexing and reductions ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"

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
    auto clamp = [&](int64_t v) {
      if (v < 0)
        v += dim;
      return std::min(std::max<int64_t>(v, 0), dim);
    };
    int64_t begin = clamp(starts[i]), end = clamp(ends[i]);
    shape.push_back(end > begin ? (end - begin + steps[i] - 1) / steps[i] : 0);
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
