//===- MapIndexing.cpp - ONNX ops built from index patterns ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// ONNX ops whose result is a fixed index pattern of their input, imported as
// ops that differentiate and lay out already, with the pattern a constant
// computed at import time:
//
// | ONNX    | oneflow                                                      |
// |---------|--------------------------------------------------------------|
// | Pad     | constant: concat with fills of the value; edge and reflect:  |
// |         | gather of the padded positions' sources along each axis;     |
// |         | negative pads: slice                                         |
// | OneHot  | where(equal(indices, [0, depth)), on, off)                   |
// | CumSum  | reduce_sum over i of x[..., i, None] * T[i, j], T the 0/1    |
// |         | triangle of (exclusive, reverse); O(n^2) in the axis size    |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// An int64 constant of `shape` holding `values`.
static Value indexConstant(NodeContext &node, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<int64_t> values) {
  ConstTensor t;
  t.dtype = onnx::TensorProto::INT64;
  t.shape.assign(shape.begin(), shape.end());
  t.ints.assign(values.begin(), values.end());
  return node.constant(t);
}

/// A tensor like `x` with `size` along `axis`, filled with the pad value:
/// `constant` when known, else `value` (a runtime scalar) broadcast.
static FailureOr<Value> padBlock(NodeContext &node, Value x, int64_t axis,
                                 int64_t size, double constant, Value value) {
  RankedTensorType type = stripEncoding(NodeContext::typeOf(x));
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape[axis] = size;
  auto blockType = RankedTensorType::get(shape, type.getElementType());
  if (!value)
    return node.fill(blockType, constant);
  return valueOf(node.create<AddOp>({node.fill(blockType, 0), value}));
}

static LogicalResult mapPad(NodeContext &node) {
  if (failed(node.checkArity(1, 3, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = stripEncoding(NodeContext::typeOf(*x));
  int64_t rank = type.getRank();
  FailureOr<llvm::SmallVector<int64_t>> pads = node.constInts(1, "pads");
  if (failed(pads))
    return failure();
  if (static_cast<int64_t>(pads->size()) != 2 * rank)
    return node.error() << "pads has " << pads->size() << " values for an "
                        << "input of rank " << rank << " (needs " << 2 * rank
                        << ")";
  std::string mode = node.getString("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return node.error() << "unsupported mode '" << mode << "'";
  double constant = 0;
  Value value;
  if (node.hasInput(2)) {
    if (const ConstTensor *c = node.constInput(2, /*readParameters=*/true)) {
      if (c->numElements() != 1)
        return node.error() << "constant_value must be a scalar";
      constant = c->getDouble(0);
    } else {
      FailureOr<Value> v = node.input(2);
      if (failed(v))
        return failure();
      value = node.reshape(*v, {});
    }
  }
  Value v = *x;
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t before = (*pads)[axis], after = (*pads)[axis + rank];
    int64_t n = NodeContext::typeOf(v).getDimSize(axis);
    // Negative pads crop.
    if (before < 0 || after < 0) {
      int64_t begin = std::max<int64_t>(0, -before),
              end = n - std::max<int64_t>(0, -after);
      if (end < begin)
        return node.error()
               << "pads crop axis " << axis << " of size " << n << " below 0";
      FailureOr<Value> cropped = node.sliceAlong(v, axis, begin, end);
      if (failed(cropped))
        return failure();
      v = *cropped;
      n = end - begin;
      before = std::max<int64_t>(0, before);
      after = std::max<int64_t>(0, after);
    }
    if (before == 0 && after == 0)
      continue;
    if (mode == "constant") {
      llvm::SmallVector<Value> parts;
      for (int64_t size : {before, int64_t(-1), after}) {
        if (size == -1) {
          parts.push_back(v);
          continue;
        }
        if (size == 0)
          continue;
        FailureOr<Value> block = padBlock(node, v, axis, size, constant, value);
        if (failed(block))
          return failure();
        parts.push_back(*block);
      }
      FailureOr<Value> joined = valueOf(node.create<ConcatOp>(
          parts, {node.named("axis", node.b.getI64IntegerAttr(axis))}));
      if (failed(joined))
        return failure();
      v = *joined;
      continue;
    }
    if (n == 0 || (mode == "reflect" && (n == 1 || before >= n || after >= n)))
      return node.error() << "cannot " << mode << "-pad axis " << axis
                          << " of size " << n << " by " << before << " and "
                          << after;
    llvm::SmallVector<int64_t> sources;
    for (int64_t i = -before; i < n + after; ++i) {
      int64_t j = i;
      if (mode == "edge")
        j = std::clamp<int64_t>(i, 0, n - 1);
      else
        j = i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
      sources.push_back(j);
    }
    FailureOr<Value> gathered = valueOf(node.create<GatherOp>(
        {v,
         indexConstant(node, {static_cast<int64_t>(sources.size())}, sources)},
        {node.named("axis", node.b.getI64IntegerAttr(axis))}));
    if (failed(gathered))
      return failure();
    v = *gathered;
  }
  node.setOutput(0, v);
  return success();
}

static LogicalResult mapOneHot(NodeContext &node) {
  if (failed(node.checkArity(3, 3, 1)))
    return failure();
  FailureOr<Value> indices = node.input(0), values = node.input(2);
  const ConstTensor *depthValue = node.constInput(1, /*readParameters=*/true);
  if (failed(indices) || failed(values))
    return failure();
  if (!depthValue || depthValue->numElements() != 1)
    return node.error() << "depth (input 1) must be a scalar known at import "
                           "time (a constant or an initializer)";
  auto depth = static_cast<int64_t>(depthValue->getDouble(0));
  if (depth < 1)
    return node.error() << "depth must be positive, not " << depth;
  RankedTensorType valuesType = stripEncoding(NodeContext::typeOf(*values));
  if (valuesType.getNumElements() != 2)
    return node.error() << "values must hold 2 elements (off, on), not "
                        << valuesType;
  RankedTensorType type = stripEncoding(NodeContext::typeOf(*indices));
  int64_t rank = type.getRank() + 1;
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  // Negative indices count from the end of [0, depth).
  Type i64 = node.b.getI64Type();
  Value index = node.cast(*indices, i64);
  auto scalarI64 = RankedTensorType::get({}, i64);
  FailureOr<Value> negative =
      valueOf(node.create<LessOp>({index, node.fill(scalarI64, 0)}));
  FailureOr<Value> wrapped =
      valueOf(node.create<AddOp>({index, node.fill(scalarI64, double(depth))}));
  if (failed(negative) || failed(wrapped))
    return failure();
  FailureOr<Value> normalized =
      valueOf(node.create<WhereOp>({*negative, *wrapped, index}));
  if (failed(normalized))
    return failure();
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + *axis, 1);
  Value expanded = node.reshape(*normalized, shape);
  llvm::SmallVector<int64_t> classShape(rank, 1), classes;
  classShape[*axis] = depth;
  for (int64_t c = 0; c < depth; ++c)
    classes.push_back(c);
  FailureOr<Value> hit = valueOf(node.create<EqualOp>(
      {expanded, indexConstant(node, classShape, classes)}));
  if (failed(hit))
    return failure();
  Value flat = node.reshape(*values, {2});
  FailureOr<Value> off = node.sliceAlong(flat, 0, 0, 1);
  FailureOr<Value> on = node.sliceAlong(flat, 0, 1, 2);
  if (failed(off) || failed(on))
    return failure();
  FailureOr<Value> y = valueOf(node.create<WhereOp>(
      {*hit, node.reshape(*on, {}), node.reshape(*off, {})}));
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

static LogicalResult mapCumSum(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  FailureOr<llvm::SmallVector<int64_t>> axisValue = node.constInts(1, "axis");
  if (failed(x) || failed(axisValue))
    return failure();
  if (axisValue->size() != 1)
    return node.error() << "axis must be a scalar";
  RankedTensorType type = stripEncoding(NodeContext::typeOf(*x));
  int64_t rank = type.getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(node, axisValue->front(), rank, "axis");
  if (failed(axis))
    return failure();
  bool exclusive = node.getInt("exclusive", 0) != 0,
       reverse = node.getInt("reverse", 0) != 0;
  int64_t n = type.getDimSize(*axis);
  // y[..., j, ...] = sum_i x[..., i, ...] T[i, j]: x with a new axis after
  // `axis` times T (broadcast), summed over `axis`.
  ConstTensor triangle;
  Type element = type.getElementType();
  triangle.dtype = element.isF32()           ? onnx::TensorProto::FLOAT
                   : isa<FloatType>(element) ? onnx::TensorProto::DOUBLE
                   : element.isInteger(32)   ? onnx::TensorProto::INT32
                                             : onnx::TensorProto::INT64;
  triangle.shape.assign(rank + 1, 1);
  triangle.shape[*axis] = n;
  triangle.shape[*axis + 1] = n;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      bool in =
          reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      if (triangle.isFloat())
        triangle.floats.push_back(in);
      else
        triangle.ints.push_back(in);
    }
  Value t = node.cast(node.constant(triangle), type.getElementType());
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + *axis + 1, 1);
  FailureOr<Value> product =
      valueOf(node.create<MulOp>({node.reshape(*x, shape), t}));
  if (failed(product))
    return failure();
  FailureOr<Value> sum = valueOf(node.create<ReduceSumOp>(
      *product, {node.named("axes", node.b.getDenseI64ArrayAttr({*axis}))}));
  if (failed(sum))
    return failure();
  node.setOutput(0, *sum);
  return success();
}

void mlir::oneflow::onnx_import::addIndexingLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Pad"] = mapPad;
  table["OneHot"] = mapOneHot;
  table["CumSum"] = mapCumSum;
}
