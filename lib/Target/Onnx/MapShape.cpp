//===- MapShape.cpp - Shape, layout and data-movement ops -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// | ONNX                         | oneflow                                 |
// |------------------------------|-----------------------------------------|
// | Reshape Flatten              | reshape (shape known at import time)    |
// | Unsqueeze Squeeze            | reshape                                 |
// | Transpose Concat             | transpose concat                        |
// | Slice (positive steps)       | slice                                   |
// | Gather                       | gather                                  |
// | Expand                       | add of a zero fill (where for booleans) |
// | Cast                         | cast                                    |
// | Identity                     | nothing                                 |
// | ConstantOfShape (large)      | fill                                    |
// | Trilu                        | where(constant band mask, x, 0)         |
// | Shape, Constant              | always folded (Folding.cpp)             |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

//===----------------------------------------------------------------------===//
// Shape rules
//===----------------------------------------------------------------------===//

FailureOr<llvm::SmallVector<int64_t>> mlir::oneflow::onnx_import::reshapeShape(
    NodeContext &node, llvm::ArrayRef<int64_t> input,
    llvm::ArrayRef<int64_t> spec, bool allowZero) {
  llvm::SmallVector<int64_t> shape;
  int64_t inferred = -1, known = 1;
  for (auto [i, given] : llvm::enumerate(spec)) {
    int64_t d = given;
    if (d == 0 && !allowZero) {
      if (i >= input.size())
        return node.error() << "shape copies dimension " << i << " of a rank-"
                            << input.size() << " input";
      d = input[i];
    }
    if (d == -1) {
      if (inferred >= 0)
        return node.error() << "shape has more than one -1";
      inferred = i;
    } else if (d < 0) {
      return node.error() << "shape has a negative dimension " << d;
    } else {
      if (d > 0 && known > (int64_t(1) << 50) / d)
        return node.error() << "shape is too large";
      known *= d;
    }
    shape.push_back(d);
  }
  int64_t total = elementCount(input);
  if (inferred >= 0) {
    if (known == 0 || total % known != 0)
      return node.error() << "cannot infer the -1 of the shape for " << total
                          << " elements";
    shape[inferred] = total / known;
  } else if (known != total) {
    return node.error() << "shape holds " << known << " elements, the input "
                        << total;
  }
  return shape;
}

FailureOr<llvm::SmallVector<int64_t>>
mlir::oneflow::onnx_import::unsqueezeShape(NodeContext &node,
                                           llvm::ArrayRef<int64_t> input,
                                           llvm::ArrayRef<int64_t> axes) {
  int64_t rank = input.size() + axes.size();
  llvm::SmallVector<bool> inserted(rank, false);
  for (int64_t axis : axes) {
    FailureOr<int64_t> a = normalizeAxis(node, axis, rank, "axis");
    if (failed(a))
      return failure();
    if (inserted[*a])
      return node.error() << "axis " << axis << " is repeated";
    inserted[*a] = true;
  }
  llvm::SmallVector<int64_t> shape;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : input[next++]);
  return shape;
}

FailureOr<llvm::SmallVector<int64_t>> mlir::oneflow::onnx_import::squeezeShape(
    NodeContext &node, llvm::ArrayRef<int64_t> input,
    std::optional<llvm::ArrayRef<int64_t>> axes) {
  int64_t rank = input.size();
  llvm::SmallVector<bool> dropped(rank, false);
  if (axes) {
    for (int64_t axis : *axes) {
      FailureOr<int64_t> a = normalizeAxis(node, axis, rank, "axis");
      if (failed(a))
        return failure();
      if (input[*a] != 1)
        return node.error()
               << "axis " << axis << " has size " << input[*a] << ", not 1";
      dropped[*a] = true;
    }
  } else {
    for (int64_t i = 0; i < rank; ++i)
      dropped[i] = input[i] == 1;
  }
  llvm::SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!dropped[i])
      shape.push_back(input[i]);
  return shape;
}

FailureOr<llvm::SmallVector<SliceAxis>>
mlir::oneflow::onnx_import::sliceAxes(NodeContext &node,
                                      llvm::ArrayRef<int64_t> input) {
  if (failed(node.checkArity(3, 5, 1)))
    return failure();
  int64_t rank = input.size();
  FailureOr<llvm::SmallVector<int64_t>> starts = node.constInts(1, "starts");
  if (failed(starts))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> ends = node.constInts(2, "ends");
  if (failed(ends))
    return failure();
  llvm::SmallVector<int64_t> axes, steps(starts->size(), 1);
  for (int64_t i = 0, e = starts->size(); i < e; ++i)
    axes.push_back(i);
  if (node.hasInput(3)) {
    FailureOr<llvm::SmallVector<int64_t>> given = node.constInts(3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  if (node.hasInput(4)) {
    FailureOr<llvm::SmallVector<int64_t>> given = node.constInts(4, "steps");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return node.error() << "starts, ends, axes and steps differ in length";
  llvm::SmallVector<SliceAxis> result;
  for (int64_t d : input)
    result.push_back({0, d, 1, d});
  llvm::SmallVector<bool> seen(rank, false);
  for (size_t k = 0; k < axes.size(); ++k) {
    FailureOr<int64_t> axis = normalizeAxis(node, axes[k], rank, "axis");
    if (failed(axis))
      return failure();
    if (seen[*axis])
      return node.error() << "axis " << axes[k] << " is repeated";
    seen[*axis] = true;
    int64_t dim = input[*axis], step = steps[k];
    if (step == 0)
      return node.error() << "a step is 0";
    auto clampIndex = [&](int64_t v, int64_t lo, int64_t hi) {
      if (v < 0)
        v = v < -dim ? lo : v + dim;
      return std::clamp(v, lo, hi);
    };
    int64_t start, end;
    if (step > 0) {
      start = clampIndex((*starts)[k], 0, dim);
      end = clampIndex((*ends)[k], 0, dim);
    } else {
      start = clampIndex((*starts)[k], -1, dim - 1);
      end = clampIndex((*ends)[k], -1, dim - 1);
    }
    int64_t size = step > 0 ? (end - start + step - 1) / step
                            : (start - end - step - 1) / -step;
    result[*axis] = {start, end, step, std::max<int64_t>(0, size)};
  }
  return result;
}

FailureOr<llvm::SmallVector<int64_t>>
mlir::oneflow::onnx_import::broadcastShape(NodeContext &node,
                                           llvm::ArrayRef<int64_t> a,
                                           llvm::ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  llvm::SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return node.error() << "shapes do not broadcast (" << x << " against "
                          << y << " in dimension " << i << ")";
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

//===----------------------------------------------------------------------===//
// Lowerings
//===----------------------------------------------------------------------===//

/// The data input and its shape.
static FailureOr<std::pair<Value, RankedTensorType>> data(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  return std::make_pair(*x, NodeContext::typeOf(*x));
}

static LogicalResult mapReshape(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  auto x = data(node);
  FailureOr<llvm::SmallVector<int64_t>> spec = node.constInts(1, "shape");
  if (failed(x) || failed(spec))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> shape = reshapeShape(
      node, x->second.getShape(), *spec, node.getInt("allowzero", 0) != 0);
  if (failed(shape))
    return failure();
  node.setOutput(0, node.reshape(x->first, *shape));
  return success();
}

static LogicalResult mapFlatten(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  llvm::ArrayRef<int64_t> shape = x->second.getShape();
  int64_t rank = shape.size(), axis = node.getInt("axis", 1);
  if (axis < -rank || axis > rank)
    return node.error() << "axis " << axis << " is out of range for rank "
                        << rank;
  if (axis < 0)
    axis += rank;
  node.setOutput(
      0, node.reshape(x->first, {elementCount(shape.take_front(axis)),
                                 elementCount(shape.drop_front(axis))}));
  return success();
}

static LogicalResult mapUnsqueezeOrSqueeze(NodeContext &node) {
  bool unsqueeze = node.opType() == "Unsqueeze";
  if (failed(node.checkArity(unsqueeze ? 2 : 1, 2, 1)))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  std::optional<llvm::SmallVector<int64_t>> axes;
  if (node.hasInput(1)) {
    FailureOr<llvm::SmallVector<int64_t>> given = node.constInts(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  }
  llvm::ArrayRef<int64_t> shape = x->second.getShape();
  FailureOr<llvm::SmallVector<int64_t>> result =
      unsqueeze
          ? unsqueezeShape(node, shape, *axes)
          : squeezeShape(node, shape,
                         axes ? std::optional<llvm::ArrayRef<int64_t>>(*axes)
                              : std::nullopt);
  if (failed(result))
    return failure();
  node.setOutput(0, node.reshape(x->first, *result));
  return success();
}

static LogicalResult mapTranspose(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  int64_t rank = x->second.getRank();
  llvm::SmallVector<int64_t> perm;
  if (FailureOr<llvm::SmallVector<int64_t>> given = node.getInts("perm");
      succeeded(given))
    perm = *given;
  else
    for (int64_t i = rank - 1; i >= 0; --i)
      perm.push_back(i);
  FailureOr<TransposeOp> op = node.create<TransposeOp>(
      x->first, {node.named("perm", node.b.getDenseI64ArrayAttr(perm))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

static LogicalResult mapConcat(NodeContext &node) {
  if (node.numInputs() == 0)
    return node.error() << "has no inputs";
  if (failed(node.checkArity(1, node.numInputs(), 1)))
    return failure();
  llvm::SmallVector<Value> inputs;
  for (unsigned i = 0; i < node.numInputs(); ++i) {
    FailureOr<Value> v = node.input(i);
    if (failed(v))
      return failure();
    inputs.push_back(*v);
  }
  FailureOr<ConcatOp> op = node.create<ConcatOp>(
      inputs,
      {node.named("axis", node.b.getI64IntegerAttr(node.getInt("axis", 0)))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

static LogicalResult mapSlice(NodeContext &node) {
  auto x = data(node);
  if (failed(x))
    return failure();
  FailureOr<llvm::SmallVector<SliceAxis>> axes =
      sliceAxes(node, x->second.getShape());
  if (failed(axes))
    return failure();
  llvm::SmallVector<int64_t> starts, ends, steps;
  for (const SliceAxis &a : *axes) {
    if (a.step < 0)
      return node.error() << "negative steps are not supported";
    starts.push_back(a.start);
    ends.push_back(std::max(a.start, a.end));
    steps.push_back(a.step);
  }
  OpBuilder &b = node.b;
  FailureOr<SliceOp> op = node.create<SliceOp>(
      x->first, {node.named("starts", b.getDenseI64ArrayAttr(starts)),
                 node.named("ends", b.getDenseI64ArrayAttr(ends)),
                 node.named("steps", b.getDenseI64ArrayAttr(steps))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

static LogicalResult mapGather(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  int64_t rank = x->second.getRank();
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  Value indices;
  if (const ConstTensor *c = node.constInput(1)) {
    // Known indices: checked and made non-negative here.
    if (c->isFloat())
      return node.error() << "indices must be integers";
    ConstTensor wrapped = *c;
    int64_t dim = x->second.getDimSize(*axis);
    for (int64_t &k : wrapped.ints) {
      if (k < -dim || k >= dim)
        return node.error()
               << "index " << k << " is out of range for axis of " << dim;
      k = k < 0 ? k + dim : k;
    }
    wrapped.dtype = onnx::TensorProto::INT64;
    indices = node.constant(wrapped);
  } else {
    FailureOr<Value> v = node.input(1);
    if (failed(v))
      return failure();
    indices = *v;
  }
  FailureOr<GatherOp> op = node.create<GatherOp>(
      {x->first, indices},
      {node.named("axis", node.b.getI64IntegerAttr(*axis))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

static LogicalResult mapExpand(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  auto x = data(node);
  FailureOr<llvm::SmallVector<int64_t>> spec = node.constInts(1, "shape");
  if (failed(x) || failed(spec))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> shape =
      broadcastShape(node, x->second.getShape(), *spec);
  if (failed(shape))
    return failure();
  FailureOr<Value> y = node.broadcastTo(x->first, *shape);
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

static LogicalResult mapCast(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  auto x = data(node);
  if (failed(x))
    return failure();
  int64_t to = node.getInt("to", 0);
  Type element = elementType(to, node.getContext());
  if (!element)
    return node.error() << "unsupported target type " << elementTypeName(to);
  // A cast to a half type rounds (through f32) and stays in f32.
  Value v = x->first;
  Type storage = storageType(to, node.getContext());
  if (storage != element)
    v = node.cast(node.cast(v, element), storage);
  node.setOutput(0, node.cast(v, element));
  return success();
}

static LogicalResult mapIdentity(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  node.setOutput(0, *x);
  return success();
}

static LogicalResult mapConstantOfShape(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<llvm::SmallVector<int64_t>> shape = node.constInts(0, "shape");
  if (failed(shape))
    return failure();
  FailureOr<ConstTensor> value = constantOfShapeValue(node);
  if (failed(value))
    return failure();
  for (int64_t d : *shape)
    if (d < 0)
      return node.error() << "shape has a negative dimension " << d;
  auto type = RankedTensorType::get(
      *shape, elementType(value->dtype, node.getContext()));
  node.setOutput(0, node.fill(type, value->getDouble(0)));
  return success();
}

/// Trilu: the elements on and above (upper) or on and below the k-th
/// diagonal of the last two axes stay, the others become 0. The band is a
/// constant when k is; otherwise `column - row >= k` (or `<=`) against a
/// constant of column - row, so k may be a run-time input.
static LogicalResult mapTrilu(NodeContext &node) {
  if (failed(node.checkArity(1, 2, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  bool upper = node.getInt("upper", 1) != 0;
  RankedTensorType type = NodeContext::typeOf(*x);
  if (type.getRank() < 2)
    return node.error() << "input must have rank 2 or more, got "
                        << stripEncoding(type);
  int64_t rows = type.getDimSize(type.getRank() - 2);
  int64_t cols = type.getDimSize(type.getRank() - 1);
  ConstTensor offsets;
  offsets.dtype = onnx::TensorProto::INT64;
  offsets.shape = {rows, cols};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j)
      offsets.ints.push_back(j - i);
  Value k;
  if (node.hasInput(1)) {
    FailureOr<Value> input = node.input(1);
    if (failed(input))
      return failure();
    RankedTensorType kType = NodeContext::typeOf(*input);
    if (kType.getNumElements() != 1 || !kType.getElementType().isInteger(64))
      return node.error() << "k must be one int64, got "
                          << stripEncoding(kType);
    k = node.reshape(*input, {});
  } else {
    ConstTensor zero = ConstTensor::zeros(onnx::TensorProto::INT64, {});
    k = node.constant(zero);
  }
  Value diagonal = node.constant(offsets);
  FailureOr<Operation *> mask =
      upper ? FailureOr<Operation *>(node.create<GreaterEqualOp>({diagonal, k}))
            : FailureOr<Operation *>(node.create<LessEqualOp>({diagonal, k}));
  if (failed(mask))
    return failure();
  Value zero = node.fill(RankedTensorType::get({}, type.getElementType()), 0.0);
  FailureOr<WhereOp> op =
      node.create<WhereOp>({(*mask)->getResult(0), *x, zero});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

void mlir::oneflow::onnx_import::addShapeLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Trilu"] = mapTrilu;
  table["Reshape"] = mapReshape;
  table["Flatten"] = mapFlatten;
  table["Unsqueeze"] = mapUnsqueezeOrSqueeze;
  table["Squeeze"] = mapUnsqueezeOrSqueeze;
  table["Transpose"] = mapTranspose;
  table["Concat"] = mapConcat;
  table["Slice"] = mapSlice;
  table["Gather"] = mapGather;
  table["Expand"] = mapExpand;
  table["Cast"] = mapCast;
  table["Identity"] = mapIdentity;
  table["ConstantOfShape"] = mapConstantOfShape;
}
