//===- ConstantFolding.cpp - Constant evaluation of layout ops ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each fold walks the result row-major and reads the element of the operand
// it comes from; elements stay attributes, so every element type folds the
// same way. The ops' fold hooks fold values without a layout (a program for
// one device, before SBP propagation), and the dialect materializes folded
// values as oneflow.constant.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/ConstantFolding.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/IR/Builders.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::oneflow;

static int64_t countOf(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

static SmallVector<int64_t> stridesOf(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// A result of `shape` (x's element type) whose element at each index comes
/// from x's element `source(index)`; null when too large.
template <typename Fn>
static DenseElementsAttr build(DenseElementsAttr x, ArrayRef<int64_t> shape,
                               Fn source) {
  int64_t count = countOf(shape);
  if (count > kMaxFoldedElements)
    return {};
  SmallVector<Attribute> in(x.getValues<Attribute>());
  SmallVector<Attribute> out;
  out.reserve(count);
  SmallVector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    out.push_back(in[source(index)]);
    for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
      if (++index[d] < shape[d])
        break;
      index[d] = 0;
    }
  }
  auto type = RankedTensorType::get(shape, x.getElementType());
  return DenseElementsAttr::get(type, out);
}

std::pair<int64_t, int64_t> mlir::oneflow::pythonSliceRange(int64_t dim,
                                                            int64_t start,
                                                            int64_t end,
                                                            int64_t step) {
  auto clamp = [&](int64_t v) {
    if (v < 0)
      v += dim;
    return std::min(std::max<int64_t>(v, 0), dim);
  };
  int64_t begin = clamp(start), stop = clamp(end);
  return {begin, stop > begin ? (stop - begin + step - 1) / step : 0};
}

DenseElementsAttr mlir::oneflow::foldTranspose(DenseElementsAttr x,
                                               ArrayRef<int64_t> perm) {
  ArrayRef<int64_t> in = x.getType().getShape();
  SmallVector<int64_t> shape, strides = stridesOf(in);
  for (int64_t p : perm)
    shape.push_back(in[p]);
  return build(x, shape, [&](ArrayRef<int64_t> index) {
    int64_t at = 0;
    for (auto [d, p] : llvm::enumerate(perm))
      at += index[d] * strides[p];
    return at;
  });
}

DenseElementsAttr mlir::oneflow::foldConcat(ArrayRef<DenseElementsAttr> parts,
                                            int64_t axis) {
  SmallVector<int64_t> shape(parts.front().getType().getShape());
  shape[axis] = 0;
  SmallVector<Attribute> values;
  for (DenseElementsAttr part : parts) {
    shape[axis] += part.getType().getDimSize(axis);
    if (countOf(shape) > kMaxFoldedElements)
      return {};
  }
  int64_t outer = countOf(ArrayRef<int64_t>(shape).take_front(axis));
  for (int64_t o = 0; o < outer; ++o)
    for (DenseElementsAttr part : parts) {
      auto elements = part.getValues<Attribute>();
      int64_t block = part.getNumElements() / std::max<int64_t>(outer, 1);
      for (int64_t i = 0; i < block; ++i)
        values.push_back(elements[o * block + i]);
    }
  auto type = RankedTensorType::get(shape, parts.front().getElementType());
  return DenseElementsAttr::get(type, values);
}

DenseElementsAttr mlir::oneflow::foldSlice(DenseElementsAttr x,
                                           ArrayRef<int64_t> start,
                                           ArrayRef<int64_t> step,
                                           ArrayRef<int64_t> size) {
  SmallVector<int64_t> strides = stridesOf(x.getType().getShape());
  return build(x, size, [&](ArrayRef<int64_t> index) {
    int64_t at = 0;
    for (size_t d = 0; d < index.size(); ++d)
      at += (start[d] + index[d] * step[d]) * strides[d];
    return at;
  });
}

DenseElementsAttr mlir::oneflow::foldGather(DenseElementsAttr x,
                                            DenseElementsAttr indices,
                                            int64_t axis) {
  ArrayRef<int64_t> in = x.getType().getShape();
  int64_t dim = in[axis];
  SmallVector<int64_t> picks;
  for (const APInt &value : indices.getValues<APInt>()) {
    int64_t k = value.getSExtValue();
    if (k < -dim || k >= dim)
      return {};
    picks.push_back(k < 0 ? k + dim : k);
  }
  ArrayRef<int64_t> indexShape = indices.getType().getShape();
  SmallVector<int64_t> shape(in.take_front(axis));
  llvm::append_range(shape, indexShape);
  llvm::append_range(shape, in.drop_front(axis + 1));
  SmallVector<int64_t> strides = stridesOf(in),
                       indexStrides = stridesOf(indexShape);
  int64_t rank = indexShape.size();
  return build(x, shape, [&](ArrayRef<int64_t> index) {
    int64_t at = 0, pick = 0;
    for (int64_t d = 0; d < axis; ++d)
      at += index[d] * strides[d];
    for (int64_t j = 0; j < rank; ++j)
      pick += index[axis + j] * indexStrides[j];
    at += picks[pick] * strides[axis];
    for (int64_t d = axis + 1; d < static_cast<int64_t>(in.size()); ++d)
      at += index[d + rank - 1] * strides[d];
    return at;
  });
}

DenseElementsAttr mlir::oneflow::foldBroadcast(DenseElementsAttr x,
                                               ArrayRef<int64_t> shape) {
  ArrayRef<int64_t> in = x.getType().getShape();
  SmallVector<int64_t> strides = stridesOf(in);
  int64_t offset = shape.size() - in.size();
  return build(x, shape, [&](ArrayRef<int64_t> index) {
    int64_t at = 0;
    for (size_t d = 0; d < in.size(); ++d)
      if (in[d] != 1)
        at += index[d + offset] * strides[d];
    return at;
  });
}

//===----------------------------------------------------------------------===//
// Fold hooks
//===----------------------------------------------------------------------===//

DenseElementsAttr mlir::oneflow::constantFoldOperand(Attribute operand,
                                                     Type result) {
  auto type = dyn_cast<RankedTensorType>(result);
  if (!type || type.getEncoding() || !type.hasStaticShape())
    return {};
  return dyn_cast_or_null<DenseElementsAttr>(operand);
}

/// Whether no value of `values` has a layout: chains of layout ops fold
/// into one op in programs for one device; laid-out programs keep the ops
/// their layouts were chosen for.
static bool withoutLayouts(ValueRange values) {
  return llvm::all_of(values, [](Value v) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    return type && !type.getEncoding();
  });
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  // reshape(reshape(x)) is reshape(x).
  if (auto inner = getX().getDefiningOp<ReshapeOp>();
      inner && withoutLayouts({inner.getX(), getX(), getResult()})) {
    getXMutable().assign(inner.getX());
    if (getX().getType() != getType())
      return getResult();
  }
  if (getX().getType() == getType())
    return getX();
  DenseElementsAttr x = constantFoldOperand(adaptor.getX(), getType());
  if (!x || x.getNumElements() > kMaxFoldedElements)
    return {};
  return x.reshape(cast<ShapedType>(getType()));
}

OpFoldResult TransposeOp::fold(FoldAdaptor adaptor) {
  // transpose(transpose(x, p), q) is transpose(x, p o q): result axis j is
  // axis p[q[j]] of x.
  bool changed = false;
  if (auto inner = getX().getDefiningOp<TransposeOp>();
      inner && withoutLayouts({inner.getX(), getX(), getResult()})) {
    changed = true;
    SmallVector<int64_t> perm;
    for (int64_t axis : getPerm())
      perm.push_back(inner.getPerm()[axis]);
    getXMutable().assign(inner.getX());
    setPermAttr(DenseI64ArrayAttr::get(getContext(), perm));
  }
  // The identity permutation of a value without a layout is the value.
  if (withoutLayouts({getX(), getResult()}) &&
      llvm::equal(getPerm(), llvm::seq<int64_t>(0, getPerm().size())))
    return getX();
  DenseElementsAttr x = constantFoldOperand(adaptor.getX(), getType());
  if (x)
    return foldTranspose(x, getPerm());
  return changed ? OpFoldResult(getResult()) : OpFoldResult();
}

OpFoldResult ConcatOp::fold(FoldAdaptor adaptor) {
  SmallVector<DenseElementsAttr> parts;
  for (Attribute input : adaptor.getInputs()) {
    DenseElementsAttr part = constantFoldOperand(input, getType());
    if (!part)
      return {};
    parts.push_back(part);
  }
  int64_t rank = cast<RankedTensorType>(getType()).getRank();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0)
    axis += rank;
  return parts.empty() ? OpFoldResult() : foldConcat(parts, axis);
}

OpFoldResult SliceOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr x = constantFoldOperand(adaptor.getX(), getType());
  if (!x)
    return {};
  SmallVector<int64_t> start, size;
  for (auto [d, dim] : llvm::enumerate(x.getType().getShape())) {
    auto [begin, length] =
        pythonSliceRange(dim, getStarts()[d], getEnds()[d], getSteps()[d]);
    start.push_back(begin);
    size.push_back(length);
  }
  return foldSlice(x, start, getSteps(), size);
}

OpFoldResult GatherOp::fold(FoldAdaptor adaptor) {
  DenseElementsAttr x = constantFoldOperand(adaptor.getX(), getType());
  DenseElementsAttr indices =
      constantFoldOperand(adaptor.getIndices(), getType());
  if (!x || !indices)
    return {};
  int64_t rank = x.getType().getRank();
  int64_t axis = getAxisAttr().getInt();
  if (axis < 0)
    axis += rank;
  return foldGather(x, indices, axis);
}

Operation *OneFlowDialect::materializeConstant(OpBuilder &builder,
                                               Attribute value, Type type,
                                               Location loc) {
  auto elements = dyn_cast<DenseElementsAttr>(value);
  if (!elements || elements.getType() != type)
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}
