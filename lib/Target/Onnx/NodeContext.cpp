//===- NodeContext.cpp - One ONNX node being imported ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What a lowering sees of its node: operands (initializers materialized,
// constants known at import time), attributes (each read marks it
// handled), results, errors naming the node, and the few op-building
// helpers every lowering shares. The graph walk is Importer.cpp.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

NodeContext::NodeContext(Importer &importer, const onnx::NodeProto &node,
                         int64_t index, Location loc)
    : node(node), index(index), loc(loc), b(importer.builder),
      importer(importer) {}

std::string
mlir::oneflow::onnx_import::describeNode(const onnx::NodeProto &node,
                                         int64_t index) {
  std::string text = "node ";
  if (!node.name().empty())
    text += "'" + node.name() + "' (#" + std::to_string(index) + ", ";
  else
    text += "#" + std::to_string(index) + " (";
  return text + node.op_type() + ")";
}

std::string NodeContext::describe() const { return describeNode(node, index); }

InFlightDiagnostic NodeContext::error() {
  return emitError(loc) << describe() << ": ";
}

bool NodeContext::hasInput(unsigned i) const {
  return i < static_cast<unsigned>(node.input_size()) && !node.input(i).empty();
}

bool NodeContext::hasOutput(unsigned i) const {
  return i < static_cast<unsigned>(node.output_size()) &&
         !node.output(i).empty();
}

bool NodeContext::isOutputUsed(unsigned i) const {
  return hasOutput(i) && importer.isConsumed(node.output(i));
}

LogicalResult NodeContext::checkArity(unsigned min, unsigned max,
                                      unsigned outputs) {
  if (numInputs() < min || numInputs() > max)
    return error() << "has " << numInputs() << " inputs, expected " << min
                   << (min == max ? "" : " to " + std::to_string(max));
  for (unsigned i = 0; i < min; ++i)
    if (!hasInput(i))
      return error() << "input " << i << " is required";
  // An optional output nothing reads (Dropout's mask in a training
  // export) is no obstacle.
  for (unsigned i = outputs; i < numOutputs(); ++i)
    if (isOutputUsed(i))
      return error() << "output " << i << " ('" << node.output(i)
                     << "') is not supported";
  return success();
}

FailureOr<Value> NodeContext::input(unsigned i) {
  if (!hasInput(i))
    return error() << "input " << i << " is required";
  return importer.materialize(node.input(i), loc);
}

const ConstTensor *NodeContext::constInput(unsigned i, bool readParameters) {
  if (!hasInput(i))
    return nullptr;
  auto it = importer.values.find(node.input(i));
  if (it == importer.values.end())
    return nullptr;
  Entry &entry = it->second;
  if (!entry.constant && entry.initializer) {
    // Small integer initializers fold (shapes, axes, indices); float ones
    // are parameters, which stay variables, and are read as values only
    // where a node takes them as such (Dropout's ratio).
    bool parameter =
        ConstTensor::zeros(entry.initializer->data_type(), {}).isFloat();
    if (parameter && !readParameters)
      return nullptr;
    std::shared_ptr<ConstTensor> &slot =
        parameter ? entry.parameterValue : entry.constant;
    if (slot)
      return slot.get();
    std::string why;
    FailureOr<ConstTensor> tensor =
        ConstTensor::fromProto(*entry.initializer, why);
    if (failed(tensor) || tensor->numElements() > 4096)
      return nullptr;
    slot = std::make_shared<ConstTensor>(std::move(*tensor));
    return slot.get();
  }
  return entry.constant.get();
}

FailureOr<llvm::SmallVector<int64_t>> NodeContext::inputShape(unsigned i) {
  if (hasInput(i)) {
    auto it = importer.values.find(node.input(i));
    if (it != importer.values.end() && !it->second.value &&
        it->second.initializer)
      return llvm::SmallVector<int64_t>(it->second.initializer->dims().begin(),
                                        it->second.initializer->dims().end());
  }
  FailureOr<Value> value = input(i);
  if (failed(value))
    return failure();
  return llvm::SmallVector<int64_t>(typeOf(*value).getShape());
}

FailureOr<llvm::SmallVector<int64_t>>
NodeContext::constInts(unsigned i, llvm::StringRef what) {
  const ConstTensor *c = constInput(i);
  if (!c)
    return error() << "its " << what << " (input " << i
                   << ") must be known at import time (a constant or an "
                      "initializer)";
  if (c->isFloat())
    return error() << "its " << what << " (input " << i << ") must be integers";
  return llvm::SmallVector<int64_t>(c->ints.begin(), c->ints.end());
}

const onnx::AttributeProto *NodeContext::attr(llvm::StringRef name) {
  handled.insert(name);
  for (const onnx::AttributeProto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t NodeContext::getInt(llvm::StringRef name, int64_t defaultValue) {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->i() : defaultValue;
}

double NodeContext::getFloat(llvm::StringRef name, double defaultValue) {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->f() : defaultValue;
}

std::string NodeContext::getString(llvm::StringRef name,
                                   llvm::StringRef defaultValue) {
  const onnx::AttributeProto *a = attr(name);
  return a ? a->s() : defaultValue.str();
}

FailureOr<llvm::SmallVector<int64_t>>
NodeContext::getInts(llvm::StringRef name) {
  const onnx::AttributeProto *a = attr(name);
  if (!a)
    return failure();
  return llvm::SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

LogicalResult NodeContext::checkAttributesHandled() {
  for (const onnx::AttributeProto &a : node.attribute())
    if (!handled.contains(a.name()))
      return error() << "unsupported attribute '" << a.name() << "'";
  return success();
}

void NodeContext::setOutput(unsigned i, Value value) {
  if (hasOutput(i))
    importer.values[node.output(i)].value = value;
}

void NodeContext::setConst(unsigned i, ConstTensor value) {
  if (hasOutput(i))
    importer.values[node.output(i)].constant =
        std::make_shared<ConstTensor>(std::move(value));
}

Value NodeContext::reshape(Value value, llvm::ArrayRef<int64_t> shape) {
  RankedTensorType type = typeOf(value);
  if (type.getShape() == shape)
    return value;
  return createTyped<ReshapeOp>(
      RankedTensorType::get(shape, type.getElementType()), value);
}

FailureOr<Value> NodeContext::sliceAlong(Value value, int64_t axis,
                                         int64_t begin, int64_t end) {
  llvm::ArrayRef<int64_t> shape = typeOf(value).getShape();
  llvm::SmallVector<int64_t> starts(shape.size(), 0), ends(shape),
      steps(shape.size(), 1);
  starts[axis] = begin;
  ends[axis] = end;
  return valueOf(
      create<SliceOp>(value, {named("starts", b.getDenseI64ArrayAttr(starts)),
                              named("ends", b.getDenseI64ArrayAttr(ends)),
                              named("steps", b.getDenseI64ArrayAttr(steps))}));
}

FailureOr<Value> NodeContext::broadcastTo(Value value,
                                          llvm::ArrayRef<int64_t> shape) {
  Type element = typeOf(value).getElementType();
  if (typeOf(value).getShape() == shape)
    return value;
  auto type = RankedTensorType::get(shape, element);
  if (element.isInteger(1))
    return valueOf(create<WhereOp>({value, fill(type, 1), fill(type, 0)}));
  return valueOf(create<AddOp>({value, fill(type, 0)}));
}

Value NodeContext::cast(Value value, Type element) {
  RankedTensorType type = typeOf(value);
  if (type.getElementType() == element)
    return value;
  return createTyped<CastOp>(RankedTensorType::get(type.getShape(), element),
                             value);
}

Value NodeContext::constant(const ConstTensor &value) {
  DenseElementsAttr attr = value.toAttr(getContext());
  return createTyped<ConstantOp>(attr.getType(), {}, {named("value", attr)});
}

Value NodeContext::fill(RankedTensorType type, double value) {
  return createTyped<FillOp>(type, {},
                             {named("value", b.getF64FloatAttr(value))});
}

FailureOr<int64_t>
mlir::oneflow::onnx_import::normalizeAxis(NodeContext &node, int64_t axis,
                                          int64_t rank, llvm::StringRef what) {
  if (axis < -rank || axis >= rank)
    return node.error() << what << " " << axis << " is out of range for rank "
                        << rank;
  return axis < 0 ? axis + rank : axis;
}

FailureOr<llvm::SmallVector<NamedAttribute>>
mlir::oneflow::onnx_import::reduceAttrs(NodeContext &node,
                                        llvm::ArrayRef<int64_t> axes,
                                        int64_t rank) {
  llvm::SmallVector<int64_t> normalized;
  if (axes.empty())
    for (int64_t i = 0; i < rank; ++i)
      normalized.push_back(i);
  for (int64_t axis : axes) {
    FailureOr<int64_t> a = normalizeAxis(node, axis, rank, "axis");
    if (failed(a))
      return failure();
    normalized.push_back(*a);
  }
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("axes", node.b.getDenseI64ArrayAttr(normalized))};
  if (node.getInt("keepdims", 1) != 0)
    attrs.push_back(node.named("keepdims", node.b.getUnitAttr()));
  return attrs;
}

int32_t NodeContext::inputElementType(unsigned i) const {
  return hasInput(i) ? importer.onnxElementType(node.input(i)) : 0;
}
