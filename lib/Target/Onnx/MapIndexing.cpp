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
// | GatherND| gather along axis 0 of the data with its first k axes        |
// |         | flattened, by the row-major offsets of the k-index tuples    |
// | ScatterND| the same offsets, gather_grad (a row scatter-add) of the    |
// |         | updates: added to the data (add) or over it (none)           |
// | TopK    | top_k (always sorted; among equals the lower index first)    |
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
  return node.broadcastTo(value, shape);
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

/// The row-major offsets [m...] of index tuples [m..., k] into the first k
/// axes of `shape` (negative indices count from the end).
static FailureOr<Value> tupleOffsets(NodeContext &node, Value indices,
                                     llvm::ArrayRef<int64_t> shape) {
  RankedTensorType type = stripEncoding(NodeContext::typeOf(indices));
  int64_t rank = type.getRank(), k = type.getDimSize(rank - 1);
  if (k < 1 || k > static_cast<int64_t>(shape.size()))
    return node.error() << "index tuples of " << k << " do not fit the data's "
                        << shape.size() << " axes";
  llvm::SmallVector<int64_t> rows(type.getShape().drop_back());
  Type i64 = node.b.getI64Type();
  auto scalar = RankedTensorType::get({}, i64);
  Value index = node.cast(indices, i64);
  FailureOr<Value> offsets = failure();
  int64_t stride = 1;
  for (int64_t j = k - 1; j >= 0; --j) {
    FailureOr<Value> part = node.sliceAlong(index, rank - 1, j, j + 1);
    if (failed(part))
      return failure();
    Value v = node.reshape(*part, rows);
    FailureOr<Value> negative =
        valueOf(node.create<LessOp>({v, node.fill(scalar, 0)}));
    FailureOr<Value> wrapped =
        valueOf(node.create<AddOp>({v, node.fill(scalar, double(shape[j]))}));
    FailureOr<Value> fixed =
        succeeded(negative) && succeeded(wrapped)
            ? valueOf(node.create<WhereOp>({*negative, *wrapped, v}))
            : FailureOr<Value>(failure());
    FailureOr<Value> term =
        succeeded(fixed) ? valueOf(node.create<MulOp>(
                               {*fixed, node.fill(scalar, double(stride))}))
                         : fixed;
    if (failed(term))
      return failure();
    offsets =
        j == k - 1 ? term : valueOf(node.create<AddOp>({*offsets, *term}));
    if (failed(offsets))
      return failure();
    stride *= shape[j];
  }
  return offsets;
}

/// `shape` with its first k axes flattened into one.
static llvm::SmallVector<int64_t> flattenFront(llvm::ArrayRef<int64_t> shape,
                                               int64_t k) {
  llvm::SmallVector<int64_t> out{1};
  for (int64_t d = 0; d < k; ++d)
    out[0] *= shape[d];
  out.append(shape.begin() + k, shape.end());
  return out;
}

static LogicalResult mapGatherND(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> x = node.input(0), indices = node.input(1);
  if (failed(x) || failed(indices))
    return failure();
  llvm::ArrayRef<int64_t> shape = NodeContext::typeOf(*x).getShape();
  llvm::ArrayRef<int64_t> indexShape = NodeContext::typeOf(*indices).getShape();
  int64_t k = indexShape.back();
  // The first batch_dims axes of data and indices pair up: each batch's
  // tuples index its own slice of the data.
  int64_t batchDims = node.getInt("batch_dims", 0);
  if (batchDims < 0 || batchDims >= static_cast<int64_t>(indexShape.size()) ||
      batchDims >= static_cast<int64_t>(shape.size()) ||
      shape.take_front(batchDims) != indexShape.take_front(batchDims))
    return node.error() << "batch_dims " << batchDims
                        << " must be below both ranks, with equal leading "
                           "dimensions of data and indices";
  FailureOr<Value> offsets =
      tupleOffsets(node, *indices, shape.drop_front(batchDims));
  if (failed(offsets))
    return failure();
  if (batchDims > 0) {
    // Batch b's rows start at b times the rows one batch indexes.
    int64_t perBatch = 1, batches = 1;
    for (int64_t d = batchDims; d < batchDims + k; ++d)
      perBatch *= shape[d];
    ConstTensor base;
    base.dtype = onnx::TensorProto::INT64;
    base.shape.assign(indexShape.size() - 1, 1);
    for (int64_t d = 0; d < batchDims; ++d) {
      base.shape[d] = shape[d];
      batches *= shape[d];
    }
    for (int64_t b = 0; b < batches; ++b)
      base.ints.push_back(b * perBatch);
    offsets = valueOf(node.create<AddOp>({*offsets, node.constant(base)}));
    if (failed(offsets))
      return failure();
  }
  FailureOr<Value> y = valueOf(node.create<GatherOp>(
      {node.reshape(*x, flattenFront(shape, batchDims + k)), *offsets},
      {node.named("axis", node.b.getI64IntegerAttr(0))}));
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

static LogicalResult mapScatterND(NodeContext &node) {
  if (failed(node.checkArity(3, 3, 1)))
    return failure();
  FailureOr<Value> x = node.input(0), indices = node.input(1),
                   updates = node.input(2);
  if (failed(x) || failed(indices) || failed(updates))
    return failure();
  RankedTensorType type = stripEncoding(NodeContext::typeOf(*x));
  if (!isa<FloatType>(type.getElementType()))
    return node.error() << "scatters floats only, not "
                        << type.getElementType();
  std::string reduction = node.getString("reduction", "none");
  if (reduction != "none" && reduction != "add")
    return node.error() << "unsupported reduction '" << reduction << "'";
  llvm::ArrayRef<int64_t> shape = type.getShape();
  RankedTensorType indexType = stripEncoding(NodeContext::typeOf(*indices));
  int64_t k = indexType.getShape().back();
  FailureOr<Value> offsets = tupleOffsets(node, *indices, shape);
  if (failed(offsets))
    return failure();
  // Rows: the data [N, rest], the updates [M, rest], the offsets [M].
  llvm::SmallVector<int64_t> flat = flattenFront(shape, k);
  int64_t m = 1;
  for (int64_t d : indexType.getShape().drop_back())
    m *= d;
  llvm::SmallVector<int64_t> rowShape{m};
  rowShape.append(flat.begin() + 1, flat.end());
  Value rowsOf = node.reshape(*offsets, {m});
  auto scatter = [&](Value v) {
    return valueOf(node.create<GatherGradOp>(
        {node.reshape(v, rowShape), rowsOf},
        {node.named("axis", node.b.getI64IntegerAttr(0)),
         node.named("dim_size", node.b.getI64IntegerAttr(flat[0]))}));
  };
  Value data = node.reshape(*x, flat);
  FailureOr<Value> scattered = scatter(*updates);
  if (failed(scattered))
    return failure();
  FailureOr<Value> y = scatterResult(node, reduction, data, *scattered, [&] {
    return scatter(
        node.fill(RankedTensorType::get(rowShape, type.getElementType()), 1));
  });
  if (failed(y))
    return failure();
  node.setOutput(0, node.reshape(*y, shape));
  return success();
}

static LogicalResult mapTopK(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 2)))
    return failure();
  FailureOr<Value> x = node.input(0);
  FailureOr<llvm::SmallVector<int64_t>> k = node.constInts(1, "k");
  if (failed(x) || failed(k))
    return failure();
  if (k->size() != 1)
    return node.error() << "k must hold one value, not " << k->size();
  int64_t rank = NodeContext::typeOf(*x).getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", -1), rank, "axis");
  if (failed(axis))
    return failure();
  (void)node.getInt("sorted", 1); // Always sorted, which sorted 0 allows.
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("k", node.b.getI64IntegerAttr(k->front())),
      node.named("axis", node.b.getI64IntegerAttr(*axis))};
  if (node.getInt("largest", 1) == 0)
    attrs.push_back(node.named("smallest", node.b.getUnitAttr()));
  FailureOr<TopKOp> op = node.create<TopKOp>(*x, attrs);
  if (failed(op))
    return failure();
  node.setOutput(0, op->getValues());
  if (node.hasOutput(1))
    node.setOutput(1, op->getIndices());
  return success();
}

void mlir::oneflow::onnx_import::addIndexingLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Pad"] = mapPad;
  table["OneHot"] = mapOneHot;
  table["CumSum"] = mapCumSum;
  table["GatherND"] = mapGatherND;
  table["ScatterND"] = mapScatterND;
  table["TopK"] = mapTopK;
}
