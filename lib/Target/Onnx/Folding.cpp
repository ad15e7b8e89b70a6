//===- Folding.cpp - Import-time evaluation of constant subgraphs ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// PyTorch's exporter computes shapes at run time (Shape, Gather, Concat,
// Unsqueeze, ConstantOfShape, ...). With static shapes all of it is known
// at import time: a node whose inputs are known is evaluated here and its
// outputs are recorded as constants, so that no op is emitted for it.
// Results are bounded in size; larger ones are mapped as ops instead.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/ConstantFolding.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow::onnx_import;
using mlir::oneflow::kMaxFoldedElements;

namespace {
using Fold = FailureOr<bool> (*)(NodeContext &,
                                 llvm::ArrayRef<const ConstTensor *>);
} // namespace

/// `t` as an attribute, for the dialect's constant folds
/// (OneFlowDialect/IR/ConstantFolding.h).
static DenseElementsAttr attrOf(NodeContext &node, const ConstTensor &t) {
  return t.toAttr(node.getContext());
}

/// Records the dialect fold's `result` (of ONNX type `dtype`) as output 0;
/// a result it did not fold (too large, or left to the kernel's error) is
/// left to the op mapping.
static FailureOr<bool> setFolded(NodeContext &node, int32_t dtype,
                                 DenseElementsAttr result) {
  if (!result)
    return false;
  node.setConst(0, ConstTensor::fromAttr(result, dtype));
  return true;
}

static FailureOr<bool> setFolded(NodeContext &node, const ConstTensor &like,
                                 DenseElementsAttr result) {
  return setFolded(node, like.dtype, result);
}

static FailureOr<bool> foldConstant(NodeContext &node,
                                    llvm::ArrayRef<const ConstTensor *>) {
  ConstTensor t;
  std::string why;
  if (const onnx::AttributeProto *a = node.attr("value")) {
    FailureOr<ConstTensor> value = ConstTensor::fromProto(a->t(), why);
    if (failed(value))
      return node.error() << "its value: " << why;
    t = std::move(*value);
  } else if (const onnx::AttributeProto *a = node.attr("value_float")) {
    t.dtype = onnx::TensorProto::FLOAT;
    t.floats = {a->f()};
  } else if (const onnx::AttributeProto *a = node.attr("value_floats")) {
    t.dtype = onnx::TensorProto::FLOAT;
    t.floats.assign(a->floats().begin(), a->floats().end());
    t.shape = {static_cast<int64_t>(t.floats.size())};
  } else if (const onnx::AttributeProto *a = node.attr("value_int")) {
    t.dtype = onnx::TensorProto::INT64;
    t.ints = {a->i()};
  } else if (const onnx::AttributeProto *a = node.attr("value_ints")) {
    t.dtype = onnx::TensorProto::INT64;
    t.ints.assign(a->ints().begin(), a->ints().end());
    t.shape = {static_cast<int64_t>(t.ints.size())};
  } else {
    for (const onnx::AttributeProto &a : node.node.attribute())
      return node.error() << "unsupported attribute '" << a.name() << "'";
    return node.error() << "has no value";
  }
  if (t.isFloat())
    for (double &v : t.floats)
      v = static_cast<float>(v) == v || t.dtype == onnx::TensorProto::DOUBLE
              ? v
              : static_cast<float>(v);
  node.setConst(0, std::move(t));
  return true;
}

static FailureOr<bool> foldShape(NodeContext &node,
                                 llvm::ArrayRef<const ConstTensor *>) {
  FailureOr<llvm::SmallVector<int64_t>> inputShape = node.inputShape(0);
  if (failed(inputShape))
    return failure();
  llvm::ArrayRef<int64_t> shape = *inputShape;
  int64_t rank = shape.size();
  int64_t start = node.getInt("start", 0), end = node.getInt("end", rank);
  start = std::clamp<int64_t>(start < 0 ? start + rank : start, 0, rank);
  end = std::clamp<int64_t>(end < 0 ? end + rank : end, 0, rank);
  ConstTensor t;
  t.dtype = onnx::TensorProto::INT64;
  for (int64_t i = start; i < end; ++i)
    t.ints.push_back(shape[i]);
  t.shape = {static_cast<int64_t>(t.ints.size())};
  node.setConst(0, std::move(t));
  return true;
}

static FailureOr<bool> foldSize(NodeContext &node,
                                llvm::ArrayRef<const ConstTensor *>) {
  FailureOr<llvm::SmallVector<int64_t>> inputShape = node.inputShape(0);
  if (failed(inputShape))
    return failure();
  ConstTensor t;
  t.dtype = onnx::TensorProto::INT64;
  t.ints = {elementCount(*inputShape)};
  node.setConst(0, std::move(t));
  return true;
}

static FailureOr<bool> foldIdentity(NodeContext &node,
                                    llvm::ArrayRef<const ConstTensor *> in) {
  node.setConst(0, *in[0]);
  return true;
}

static FailureOr<bool> foldCast(NodeContext &node,
                                llvm::ArrayRef<const ConstTensor *> in) {
  int64_t to = node.getInt("to", 0);
  if (!elementType(to, node.getContext()))
    return node.error() << "unsupported target type " << elementTypeName(to);
  // Half types round to their own precision (storageType), though they are
  // computed in f32 afterwards.
  return setFolded(node, to,
                   mlir::oneflow::foldCast(attrOf(node, *in[0]),
                                           storageType(to, node.getContext())));
}

/// A result of `shape` gathered elementwise from `in` through `source`.
static ConstTensor gathered(const ConstTensor &in,
                            llvm::ArrayRef<int64_t> shape,
                            llvm::function_ref<int64_t(int64_t)> source) {
  ConstTensor t;
  t.dtype = in.dtype;
  t.shape.assign(shape.begin(), shape.end());
  for (int64_t i = 0, n = elementCount(shape); i < n; ++i)
    t.append(in, source(i));
  return t;
}

static FailureOr<bool> foldReshape(NodeContext &node,
                                   llvm::ArrayRef<const ConstTensor *> in) {
  FailureOr<llvm::SmallVector<int64_t>> shape = reshapeShape(
      node, in[0]->shape, in[1]->ints, node.getInt("allowzero", 0) != 0);
  if (failed(shape))
    return failure();
  ConstTensor t = *in[0];
  t.shape = *shape;
  node.setConst(0, std::move(t));
  return true;
}

static FailureOr<bool> foldUnsqueeze(NodeContext &node,
                                     llvm::ArrayRef<const ConstTensor *> in) {
  if (in.size() < 2 || !in[1])
    return node.error() << "needs its axes input";
  FailureOr<llvm::SmallVector<int64_t>> shape =
      unsqueezeShape(node, in[0]->shape, in[1]->ints);
  if (failed(shape))
    return failure();
  ConstTensor t = *in[0];
  t.shape = *shape;
  node.setConst(0, std::move(t));
  return true;
}

static FailureOr<bool> foldSqueeze(NodeContext &node,
                                   llvm::ArrayRef<const ConstTensor *> in) {
  std::optional<llvm::ArrayRef<int64_t>> axes;
  if (in.size() > 1 && in[1])
    axes = llvm::ArrayRef<int64_t>(in[1]->ints);
  FailureOr<llvm::SmallVector<int64_t>> shape =
      squeezeShape(node, in[0]->shape, axes);
  if (failed(shape))
    return failure();
  ConstTensor t = *in[0];
  t.shape = *shape;
  node.setConst(0, std::move(t));
  return true;
}

static FailureOr<bool> foldTranspose(NodeContext &node,
                                     llvm::ArrayRef<const ConstTensor *> in) {
  const ConstTensor &x = *in[0];
  int64_t rank = x.shape.size();
  llvm::SmallVector<int64_t> perm;
  if (FailureOr<llvm::SmallVector<int64_t>> given = node.getInts("perm");
      succeeded(given))
    perm = *given;
  else
    for (int64_t d = rank - 1; d >= 0; --d)
      perm.push_back(d);
  llvm::SmallVector<bool> seen(rank, false);
  if (static_cast<int64_t>(perm.size()) != rank)
    return node.error() << "perm has " << perm.size() << " axes for rank "
                        << rank;
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p])
      return node.error() << "perm is not a permutation of the axes";
    seen[p] = true;
  }
  return setFolded(node, x,
                   mlir::oneflow::foldTranspose(attrOf(node, x), perm));
}

static FailureOr<bool> foldConcat(NodeContext &node,
                                  llvm::ArrayRef<const ConstTensor *> in) {
  int64_t rank = in[0]->shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  llvm::SmallVector<DenseElementsAttr> parts;
  for (const ConstTensor *t : in) {
    if (static_cast<int64_t>(t->shape.size()) != rank ||
        t->dtype != in[0]->dtype)
      return node.error() << "inputs differ in rank or element type";
    for (int64_t d = 0; d < rank; ++d)
      if (d != *axis && t->shape[d] != in[0]->shape[d])
        return node.error() << "inputs differ in dimension " << d;
    parts.push_back(attrOf(node, *t));
  }
  return setFolded(node, *in[0], mlir::oneflow::foldConcat(parts, *axis));
}

static FailureOr<bool> foldGather(NodeContext &node,
                                  llvm::ArrayRef<const ConstTensor *> in) {
  const ConstTensor &data = *in[0], &indices = *in[1];
  int64_t rank = data.shape.size();
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", 0), rank, "axis");
  if (failed(axis))
    return failure();
  int64_t dim = data.shape[*axis];
  for (int64_t k : indices.ints)
    if (k < -dim || k >= dim)
      return node.error() << "index " << k << " is out of range for axis of "
                          << dim;
  return setFolded(node, data,
                   mlir::oneflow::foldGather(attrOf(node, data),
                                             attrOf(node, indices), *axis));
}

static FailureOr<bool> foldSlice(NodeContext &node,
                                 llvm::ArrayRef<const ConstTensor *> in) {
  FailureOr<llvm::SmallVector<SliceAxis>> axes = sliceAxes(node, in[0]->shape);
  if (failed(axes))
    return failure();
  llvm::SmallVector<int64_t> start, step, size;
  for (const SliceAxis &a : *axes) {
    start.push_back(a.start);
    step.push_back(a.step);
    size.push_back(a.size);
  }
  return setFolded(
      node, *in[0],
      mlir::oneflow::foldSlice(attrOf(node, *in[0]), start, step, size));
}

static FailureOr<bool> foldExpand(NodeContext &node,
                                  llvm::ArrayRef<const ConstTensor *> in) {
  FailureOr<llvm::SmallVector<int64_t>> shape =
      broadcastShape(node, in[0]->shape, in[1]->ints);
  if (failed(shape))
    return failure();
  return setFolded(node, *in[0],
                   mlir::oneflow::foldBroadcast(attrOf(node, *in[0]), *shape));
}

FailureOr<ConstTensor>
mlir::oneflow::onnx_import::constantOfShapeValue(NodeContext &node) {
  ConstTensor value;
  value.dtype = onnx::TensorProto::FLOAT;
  value.floats = {0.0};
  if (const onnx::AttributeProto *a = node.attr("value")) {
    std::string why;
    FailureOr<ConstTensor> v = ConstTensor::fromProto(a->t(), why);
    if (failed(v))
      return node.error() << "its value: " << why;
    if (v->numElements() != 1)
      return node.error() << "its value must hold one element";
    value = std::move(*v);
  }
  return value;
}

static FailureOr<bool>
foldConstantOfShape(NodeContext &node, llvm::ArrayRef<const ConstTensor *> in) {
  llvm::SmallVector<int64_t> shape(in[0]->ints.begin(), in[0]->ints.end());
  for (int64_t d : shape)
    if (d < 0)
      return node.error() << "shape has a negative dimension " << d;
  FailureOr<ConstTensor> value = constantOfShapeValue(node);
  if (failed(value))
    return failure();
  if (elementCount(shape) > kMaxFoldedElements)
    return false;
  node.setConst(0, gathered(*value, shape, [](int64_t) { return 0; }));
  return true;
}

static FailureOr<bool> foldRange(NodeContext &node,
                                 llvm::ArrayRef<const ConstTensor *> in) {
  double start = in[0]->getDouble(0), limit = in[1]->getDouble(0),
         delta = in[2]->getDouble(0);
  if (delta == 0)
    return node.error() << "delta is zero";
  double count = std::max(0.0, std::ceil((limit - start) / delta));
  if (!(count <= kMaxFoldedElements))
    return false;
  ConstTensor t;
  t.dtype = in[0]->dtype;
  t.shape = {static_cast<int64_t>(count)};
  ConstTensor one = *in[0];
  for (int64_t i = 0; i < t.shape[0]; ++i) {
    if (one.isFloat())
      one.floats[0] = start + i * delta;
    else
      one.ints[0] = in[0]->ints[0] + i * in[2]->ints[0];
    t.append(one, 0);
  }
  node.setConst(0, std::move(t));
  return true;
}

/// The dialect's element-wise fold of `in` (ConstantFolding.h), of ONNX
/// type `dtype`. Shapes that do not broadcast are the node's error.
static FailureOr<bool> foldElementwise(NodeContext &node,
                                       llvm::ArrayRef<const ConstTensor *> in,
                                       mlir::oneflow::ElementwiseFold kind,
                                       int32_t dtype) {
  llvm::SmallVector<int64_t> shape(in[0]->shape);
  llvm::SmallVector<DenseElementsAttr> values{attrOf(node, *in[0])};
  for (const ConstTensor *t : in.drop_front()) {
    FailureOr<llvm::SmallVector<int64_t>> s =
        broadcastShape(node, shape, t->shape);
    if (failed(s))
      return failure();
    shape = *s;
    values.push_back(attrOf(node, *t));
  }
  return setFolded(node, dtype, mlir::oneflow::foldElementwise(kind, values));
}

/// Arithmetic of two operands of one type.
template <mlir::oneflow::ElementwiseFold kind>
static FailureOr<bool> foldArithmetic(NodeContext &node,
                                      llvm::ArrayRef<const ConstTensor *> in) {
  if (in[0]->dtype != in[1]->dtype)
    return node.error() << "operands differ in element type";
  return foldElementwise(node, in, kind, in[0]->dtype);
}

/// The folds by op type.
static const llvm::StringMap<Fold> &folds() {
  static const llvm::StringMap<Fold> table = [] {
    llvm::StringMap<Fold> m;
    m["Constant"] = foldConstant;
    m["Shape"] = foldShape;
    m["Size"] = foldSize;
    m["Identity"] = foldIdentity;
    m["Cast"] = foldCast;
    m["Reshape"] = foldReshape;
    m["Unsqueeze"] = foldUnsqueeze;
    m["Squeeze"] = foldSqueeze;
    m["Concat"] = foldConcat;
    m["Transpose"] = foldTranspose;
    m["Gather"] = foldGather;
    m["Slice"] = foldSlice;
    m["Expand"] = foldExpand;
    m["ConstantOfShape"] = foldConstantOfShape;
    m["Range"] = foldRange;
    using K = mlir::oneflow::ElementwiseFold;
    m["Equal"] = [](NodeContext &node, llvm::ArrayRef<const ConstTensor *> in) {
      return foldElementwise(node, in, K::equal, onnx::TensorProto::BOOL);
    };
    m["Where"] = [](NodeContext &node, llvm::ArrayRef<const ConstTensor *> in) {
      return foldElementwise(node, in, K::where, in[1]->dtype);
    };
    m["Neg"] = [](NodeContext &node, llvm::ArrayRef<const ConstTensor *> in) {
      return foldElementwise(node, in, K::neg, in[0]->dtype);
    };
    m["Add"] = foldArithmetic<K::add>;
    m["Sub"] = foldArithmetic<K::sub>;
    m["Mul"] = foldArithmetic<K::mul>;
    m["Div"] = foldArithmetic<K::div>; // Integer division truncates.
    return m;
  }();
  return table;
}

bool mlir::oneflow::onnx_import::isFoldable(llvm::StringRef opType) {
  return folds().count(opType);
}

FailureOr<bool> mlir::oneflow::onnx_import::foldNode(NodeContext &node) {
  auto it = folds().find(node.opType());
  if (it == folds().end())
    return false;
  // Constant has no inputs; Shape and Size need only their input's type.
  if (node.opType() == "Constant" || node.opType() == "Shape" ||
      node.opType() == "Size") {
    if (node.opType() != "Constant" && !node.hasInput(0))
      return node.error() << "input 0 is required";
    return it->second(node, {});
  }
  llvm::SmallVector<const ConstTensor *> inputs;
  for (unsigned i = 0; i < node.numInputs(); ++i) {
    if (!node.hasInput(i)) {
      inputs.push_back(nullptr);
      continue;
    }
    // Range's bounds are settings: a float initializer gives its value.
    const ConstTensor *c =
        node.constInput(i, /*readParameters=*/node.opType() == "Range");
    if (!c)
      return false;
    inputs.push_back(c);
  }
  if (inputs.empty() || !inputs[0])
    return false;
  // Index-like inputs must be integers.
  llvm::StringRef op = node.opType();
  if ((op == "Reshape" || op == "Expand" || op == "Gather" ||
       op == "Unsqueeze" || op == "Squeeze" || op == "ConstantOfShape") &&
      inputs.size() > (op == "ConstantOfShape" ? 0u : 1u)) {
    const ConstTensor *ix = inputs[op == "ConstantOfShape" ? 0 : 1];
    if (ix && ix->isFloat())
      return node.error() << "its index or shape input must be integers";
  }
  // Every input but Slice's and Squeeze's optional ones must be present.
  bool optional = op == "Slice" || op == "Squeeze";
  if (!optional && llvm::is_contained(inputs, nullptr))
    return false;
  unsigned arity = llvm::StringSwitch<unsigned>(op)
                       .Cases({"Identity", "Cast", "ConstantOfShape", "Squeeze",
                               "Concat", "Neg", "Transpose"},
                              1)
                       .Cases({"Where", "Range"}, 3)
                       .Default(2);
  if (inputs.size() < arity)
    return false;
  if (op == "Range")
    for (const ConstTensor *t : inputs)
      if (t->numElements() != 1)
        return node.error() << "start, limit and delta must be scalars";
  return it->second(node, inputs);
}
