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
