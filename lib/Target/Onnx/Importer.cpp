//===- Importer.cpp - The ONNX graph walk ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Graph inputs become `oneflow.input`, then each node in order is folded
// (when its inputs are known) or mapped by its op type's lowering, then
// graph outputs become `oneflow.output`. Initializers become variables the
// first time a node uses one as data; ones that only feed shapes and axes
// fold away.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

//===----------------------------------------------------------------------===//
// NodeContext
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// Importer
//===----------------------------------------------------------------------===//

Importer::Importer(MLIRContext *context, llvm::StringRef filename,
                   const OnnxImportOptions &options)
    : builder(context), context(context),
      fileLocation(FileLineColLoc::get(context, filename, 0, 0)),
      options(options) {
  addMathLowerings(table);
  addNNLowerings(table);
  addShapeLowerings(table);
  addLossLowerings(table);
  addCompositeLowerings(table);
  addLayoutLowerings(table);
  addIndexingLowerings(table);
  addResizeLowerings(table);
  addRecurrentLowerings(table);
  addStatisticsLowerings(table);
  addEinsumLowerings(table);
}

Type Importer::withLayout(RankedTensorType type, bool split) {
  int64_t n = options.dataParallelRanks;
  if (n <= 1)
    return type;
  llvm::SmallVector<int64_t> ranks;
  for (int64_t r = 0; r < n; ++r)
    ranks.push_back(r);
  auto placement = PlacementAttr::get(context, options.device, ranks, {n});
  SbpAttr sbp = split && type.getRank() > 0 && type.getDimSize(0) >= n
                    ? SbpAttr::getSplit(context, 0)
                    : SbpAttr::getBroadcast(context);
  auto layout =
      GlobalAttr::get(context, placement, NdSbpAttr::get(context, {sbp}));
  return RankedTensorType::get(type.getShape(), type.getElementType(), layout);
}

FailureOr<Value> Importer::materialize(llvm::StringRef name, Location loc) {
  auto it = values.find(name);
  if (it == values.end())
    return emitError(loc) << "uses '" << name
                          << "', which no node, input or initializer defines";
  Entry &entry = it->second;
  if (entry.value)
    return entry.value;
  if (entry.initializer) {
    // One variable per initializer, however many names alias it.
    Value &variable = variables[entry.initializer];
    if (variable)
      return entry.value = variable;
    const onnx::TensorProto &proto = *entry.initializer;
    std::string why;
    FailureOr<DenseElementsAttr> attr = initializerAttr(proto, context, why);
    if (failed(attr))
      return emitError(fileLocation)
             << "initializer '" << proto.name() << "': " << why;
    // Integer tensors are data, not parameters: frozen.
    bool isFrozen = frozen.contains(name) ||
                    !isa<FloatType>(attr->getType().getElementType());
    llvm::SmallVector<NamedAttribute> attrs{
        builder.getNamedAttr("name", builder.getStringAttr(proto.name())),
        builder.getNamedAttr("value", *attr)};
    if (isFrozen)
      attrs.push_back(builder.getNamedAttr("frozen", builder.getUnitAttr()));
    OperationState state(fileLocation, VariableOp::getOperationName());
    state.addAttributes(attrs);
    state.addTypes(withLayout(cast<RankedTensorType>(attr->getType()),
                              /*split=*/false));
    entry.value = variable = builder.create(state)->getResult(0);
    return entry.value;
  }
  if (entry.constant) {
    DenseElementsAttr attr = entry.constant->toAttr(context);
    // Broadcast on every rank, so that a program of constants has ranks.
    entry.value = ConstantOp::create(
        builder, loc,
        withLayout(cast<RankedTensorType>(attr.getType()), /*split=*/false),
        attr);
    return entry.value;
  }
  return emitError(loc) << "'" << name << "' has no value";
}

/// The static tensor type of a graph input or output, or an error naming it;
/// a symbolic dimension takes its size from `dims` (--onnx-dim), and its
/// name goes into `used`.
static FailureOr<RankedTensorType>
valueType(const onnx::ValueInfoProto &info, Location loc, llvm::StringRef what,
          const std::map<std::string, int64_t> &dims,
          std::set<std::string> &used) {
  MLIRContext *context = loc.getContext();
  if (!info.type().has_tensor_type())
    return emitError(loc) << what << " '" << info.name() << "' is not a tensor";
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  // Values cross the graph's edges as .npy files, which have no bf16: a
  // BFLOAT16 edge is f32 there, its values rounded to bf16 (roundedToBf16).
  Type element = tensor.elem_type() == onnx::TensorProto::BFLOAT16
                     ? Float32Type::get(context)
                     : storageType(tensor.elem_type(), context);
  if (!element)
    return emitError(loc) << what << " '" << info.name()
                          << "' has unsupported element type "
                          << elementTypeName(tensor.elem_type());
  if (!tensor.has_shape())
    return emitError(loc) << what << " '" << info.name() << "' has no shape";
  llvm::SmallVector<int64_t> shape;
  for (const onnx::TensorShapeProto::Dimension &dim : tensor.shape().dim()) {
    if (dim.has_dim_param()) {
      used.insert(dim.dim_param());
      auto it = dims.find(dim.dim_param());
      if (it != dims.end()) {
        shape.push_back(it->second);
        continue;
      }
    }
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      return emitError(loc)
             << what << " '" << info.name()
             << "' has a dimension of unknown size"
             << (dim.has_dim_param()
                     ? " ('" + dim.dim_param() + "'); fix it with --onnx-dim " +
                           dim.dim_param() + "=SIZE"
                     : std::string("; the importer needs static shapes"));
    shape.push_back(dim.dim_value());
  }
  return RankedTensorType::get(shape, element);
}

LogicalResult Importer::importInputs(const onnx::GraphProto &graph) {
  for (const onnx::TensorProto &init : graph.initializer()) {
    if (values.count(init.name()))
      return emitError(fileLocation)
             << "initializer '" << init.name() << "' is defined twice";
    values[init.name()].initializer = &init;
  }
  for (const onnx::ValueInfoProto &info : graph.input()) {
    if (values.count(info.name()))
      continue; // An initializer listed as an input (IR version < 4).
    FailureOr<RankedTensorType> type =
        valueType(info, fileLocation, "graph input", options.dims, dimNames);
    if (failed(type))
      return failure();
    Location loc =
        NameLoc::get(builder.getStringAttr(info.name()), fileLocation);
    Value input = InputOp::create(
        builder, loc, withLayout(*type, /*split=*/true), info.name());
    // Half-precision inputs are computed in f32, ui8 ones in i32.
    int32_t onnxType = info.type().tensor_type().elem_type();
    Type compute = elementType(onnxType, context);
    if (type->getElementType() != compute)
      input = CastOp::create(
          builder, loc,
          withLayout(RankedTensorType::get(type->getShape(), compute),
                     /*split=*/true),
          input);
    if (onnxType == onnx::TensorProto::BFLOAT16)
      input = roundedToBf16(input, loc);
    values[info.name()].value = input;
  }
  return success();
}

LogicalResult Importer::importNode(const onnx::NodeProto &node, int64_t index) {
  Location loc = NameLoc::get(
      builder.getStringAttr(node.name().empty() ? "#" + std::to_string(index)
                                                : node.name()),
      fileLocation);
  NodeContext ctx(*this, node, index, loc);
  if (!node.domain().empty() && node.domain() != "ai.onnx")
    return ctx.error() << "op domain '" << node.domain()
                       << "' is not supported";
  // Errors that ops raise themselves (shape inference) name the node too.
  std::string description = ctx.describe();
  ScopedDiagnosticHandler handler(context, [&](Diagnostic &diag) {
    if (diag.getSeverity() == DiagnosticSeverity::Error &&
        diag.str().find(description) == std::string::npos)
      diag.attachNote() << "while importing " << description;
    return failure(); // Let the next handler print it.
  });
  FailureOr<bool> folded = foldNode(ctx);
  if (failed(folded))
    return failure();
  if (!*folded) {
    auto it = table.find(node.op_type());
    if (it == table.end() && isFoldable(node.op_type()))
      return ctx.error() << "its inputs must be known at import time (a "
                         << node.op_type() << " is computed by the importer)";
    if (it == table.end())
      return ctx.error() << "unsupported op type '" << node.op_type() << "'";
    if (failed(it->second(ctx)))
      return failure();
  }
  if (failed(ctx.checkAttributesHandled()))
    return failure();
  for (unsigned i = 0; i < ctx.numOutputs(); ++i) {
    if (!ctx.isOutputUsed(i))
      continue;
    auto it = values.find(node.output(i));
    if (it == values.end() || (!it->second.value && !it->second.constant))
      return ctx.error() << "output " << i << " ('" << node.output(i)
                         << "') is not supported";
  }
  return success();
}

int32_t Importer::onnxElementType(llvm::StringRef name) const {
  for (const auto *infos :
       {&graph->input(), &graph->value_info(), &graph->output()})
    for (const onnx::ValueInfoProto &info : *infos)
      if (info.name() == name && info.type().has_tensor_type())
        return info.type().tensor_type().elem_type();
  for (const onnx::TensorProto &init : graph->initializer())
    if (init.name() == name)
      return init.data_type();
  return 0;
}

int32_t NodeContext::inputElementType(unsigned i) const {
  return hasInput(i) ? importer.onnxElementType(node.input(i)) : 0;
}

Value Importer::roundedToBf16(Value value, Location loc) {
  auto type = cast<RankedTensorType>(value.getType());
  auto bf16 = RankedTensorType::get(type.getShape(), BFloat16Type::get(context),
                                    type.getEncoding());
  Value rounded = CastOp::create(builder, loc, bf16, value);
  return CastOp::create(builder, loc, type, rounded);
}

LogicalResult Importer::importOutputs(const onnx::GraphProto &graph) {
  for (const onnx::ValueInfoProto &info : graph.output()) {
    FailureOr<RankedTensorType> type =
        valueType(info, fileLocation, "graph output", options.dims, dimNames);
    if (failed(type))
      return failure();
    Location loc =
        NameLoc::get(builder.getStringAttr(info.name()), fileLocation);
    FailureOr<Value> value = materialize(info.name(), loc);
    if (failed(value))
      return failure();
    if (info.type().tensor_type().elem_type() == onnx::TensorProto::BFLOAT16 &&
        NodeContext::typeOf(*value).getElementType().isF32())
      value = roundedToBf16(*value, loc);
    RankedTensorType have = NodeContext::typeOf(*value);
    // Half-precision outputs were computed in f32, ui8 ones in i32.
    if (type->getElementType() != have.getElementType() &&
        have.getElementType() ==
            elementType(info.type().tensor_type().elem_type(), context)) {
      value = CastOp::create(builder, loc,
                             RankedTensorType::get(have.getShape(),
                                                   type->getElementType(),
                                                   have.getEncoding()),
                             *value)
                  .getResult();
      have = NodeContext::typeOf(*value);
    }
    if (have.getShape() != type->getShape() ||
        have.getElementType() != type->getElementType())
      return emitError(loc)
             << "graph output '" << info.name() << "' is imported as "
             << RankedTensorType::get(have.getShape(), have.getElementType())
             << " but the model declares " << *type;
    OutputOp::create(builder, loc, info.name(), *value);
  }
  return success();
}

OwningOpRef<ModuleOp> Importer::run(const onnx::ModelProto &model) {
  graph = &model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLocation);
  builder.setInsertionPointToEnd(module->getBody());
  auto func = func::FuncOp::create(builder, fileLocation, "main",
                                   builder.getFunctionType({}, {}));
  builder.setInsertionPointToEnd(func.addEntryBlock());
  if (failed(importInputs(*graph)))
    return nullptr;
  // BatchNormalization's running statistics are not trained.
  for (const onnx::NodeProto &node : graph->node()) {
    if (node.op_type() == "BatchNormalization")
      for (int i = 3; i < node.input_size() && i < 5; ++i)
        frozen.insert(node.input(i));
    for (const std::string &input : node.input())
      consumed.insert(input);
  }
  for (const onnx::ValueInfoProto &output : graph->output())
    consumed.insert(output.name());
  for (int64_t i = 0; i < graph->node_size(); ++i)
    if (failed(importNode(graph->node(i), i)))
      return nullptr;
  if (failed(importOutputs(*graph)))
    return nullptr;
  for (const auto &[name, size] : options.dims)
    if (!dimNames.count(name)) {
      std::string known;
      for (const std::string &seen : dimNames)
        known += (known.empty() ? "" : ", ") + seen;
      emitError(fileLocation)
          << "--onnx-dim " << name << ": the model has no dimension named '"
          << name << "' ("
          << (known.empty() ? "its inputs and outputs have static shapes"
                            : "it has " + known)
          << ")";
      return nullptr;
    }
  func::ReturnOp::create(builder, fileLocation);
  if (failed(attachLoss(*module, options)) || failed(verify(*module)))
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

std::optional<std::string>
mlir::oneflow::parseOnnxDim(llvm::StringRef spec,
                            std::map<std::string, int64_t> &dims) {
  auto [name, size] = spec.split('=');
  int64_t value = 0;
  if (name.empty() || size.getAsInteger(10, value) || value < 1)
    return "--onnx-dim '" + spec.str() +
           "' is not NAME=SIZE with a positive SIZE";
  if (!dims.emplace(name.str(), value).second)
    return "--onnx-dim gives '" + name.str() + "' twice";
  return std::nullopt;
}

void mlir::oneflow::registerOnnxImportDialects(DialectRegistry &registry) {
  registry.insert<OneFlowDialect, func::FuncDialect>();
}

OwningOpRef<ModuleOp>
mlir::oneflow::importOnnxModel(llvm::StringRef bytes, llvm::StringRef filename,
                               MLIRContext *context,
                               const OnnxImportOptions &options) {
  context->loadDialect<OneFlowDialect, func::FuncDialect>();
  Location loc = FileLineColLoc::get(context, filename, 0, 0);
  Importer importer(context, filename, options);
  FailureOr<onnx::ModelProto> model = readModel(
      bytes, loc, [&](llvm::StringRef op) { return importer.isSupported(op); });
  if (failed(model))
    return nullptr;
  return importer.run(*model);
}
