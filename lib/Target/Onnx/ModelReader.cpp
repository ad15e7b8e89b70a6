//===- ModelReader.cpp - Parse and validate an ONNX model -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The ONNX library does the reading: protobuf parsing, onnx::checker and
// onnx::shape_inference. Each of its exceptions becomes an error at the
// model's location; nothing here aborts.
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"
#include "onnx/version_converter/convert.h"

#include <google/protobuf/io/coded_stream.h>

using namespace mlir;
using namespace mlir::oneflow::onnx_import;

/// Fails when a tensor of the graph keeps its data outside the model.
static LogicalResult checkNoExternalData(const onnx::GraphProto &graph,
                                         Location loc) {
  for (const onnx::TensorProto &tensor : graph.initializer())
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL)
      return emitError(loc) << "initializer '" << tensor.name()
                            << "' keeps its data in an external file, which "
                               "the importer does not read";
  for (const onnx::NodeProto &node : graph.node())
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.has_t() &&
          attr.t().data_location() == onnx::TensorProto::EXTERNAL)
        return emitError(loc)
               << "node '" << node.name() << "' (" << node.op_type()
               << ") keeps a tensor in an external file, "
                  "which the importer does not read";
  return success();
}

/// The first node of a model of another opset whose op version none of
/// opsets 13 to 17 resolves to (the op has changed in between), described;
/// empty when there is none: AveragePool of opset 11 is AveragePool-11,
/// which opset 17 uses too.
static std::string findUnmappedVersion(const onnx::GraphProto &graph,
                                       int64_t opset) {
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    const onnx::OpSchema *schema =
        onnx::OpSchemaRegistry::Schema(node.op_type(), opset, node.domain());
    if (!schema)
      continue; // Unknown ops are the checker's to report.
    bool mapped = false;
    for (int64_t v = kMinOpset; v <= kMaxOpset && !mapped; ++v) {
      const onnx::OpSchema *other =
          onnx::OpSchemaRegistry::Schema(node.op_type(), v, node.domain());
      mapped = other && other->since_version() == schema->since_version();
    }
    if (!mapped)
      return "node " + (node.name().empty() ? "" : "'" + node.name() + "' ") +
             "#" + std::to_string(index) + " is " + node.op_type() + "-" +
             std::to_string(schema->since_version());
  }
  return "";
}

/// Models of opsets below 13 are upgraded by ONNX's own version converter.
/// Before IR version 4 an initializer had to be a graph input too, and the
/// converter's adapters add initializers (Pad-11's pads) without one; those
/// get their inputs here so that the checker accepts the result.
static LogicalResult upgradeOpset(onnx::ModelProto &model, int64_t opset,
                                  Location loc) {
  if (!findUnmappedVersion(model.graph(), opset).empty()) {
    try {
      model = onnx::version_conversion::ConvertVersion(model, kMinOpset);
    } catch (const std::exception &e) {
      std::string what = e.what();
      // "file:line: function: Assertion `false` failed: why" -> "why".
      if (size_t at = what.find("failed: "); at != std::string::npos)
        what = what.substr(at + 8);
      while (!what.empty() && (what.back() == '\n' || what.back() == ' '))
        what.pop_back();
      return emitError(loc)
             << "the model uses ONNX opset " << opset << ", where "
             << findUnmappedVersion(model.graph(), opset)
             << ", and ONNX's version converter cannot upgrade it to opset "
             << kMinOpset << ": " << what;
    }
  }
  if (model.ir_version() >= 4)
    return success();
  llvm::StringSet<> inputs;
  for (const onnx::ValueInfoProto &input : model.graph().input())
    inputs.insert(input.name());
  onnx::GraphProto &graph = *model.mutable_graph();
  for (const onnx::TensorProto &init : graph.initializer()) {
    if (inputs.contains(init.name()))
      continue;
    onnx::ValueInfoProto &input = *graph.add_input();
    input.set_name(init.name());
    onnx::TypeProto_Tensor &type = *input.mutable_type()->mutable_tensor_type();
    type.set_elem_type(init.data_type());
    for (int64_t dim : init.dims())
      type.mutable_shape()->add_dim()->set_dim_value(dim);
  }
  return success();
}

/// libonnx's convolution and pooling shape inference reads past the ends of
/// shapes whose ranks disagree (a fuzzer found it). We map 1-D and 2-D
/// windows, and 3-D ones but ConvTranspose's: the ranks that can be seen
/// before inference (graph inputs, initializers) are checked first, and a
/// convolution's input and weight must agree.
static LogicalResult checkWindowRanks(const onnx::GraphProto &graph,
                                      Location loc) {
  llvm::StringMap<int64_t> ranks;
  for (const onnx::TensorProto &init : graph.initializer())
    ranks[init.name()] = init.dims_size();
  for (const onnx::ValueInfoProto &input : graph.input())
    if (input.type().has_tensor_type() &&
        input.type().tensor_type().has_shape())
      ranks[input.name()] = input.type().tensor_type().shape().dim_size();
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    llvm::StringRef op = node.op_type();
    bool weighted = op == "Conv" || op == "ConvTranspose";
    if (!weighted && op != "MaxPool" && op != "AveragePool")
      continue;
    int64_t seen = -1;
    for (int i = 0, e = weighted ? 2 : 1; i < e && i < node.input_size(); ++i) {
      auto it = ranks.find(node.input(i));
      if (it == ranks.end())
        continue;
      // 3-D (NCDHW) too, but not for ConvTranspose (MapVolume.cpp).
      bool volume = it->second == 5 && op != "ConvTranspose";
      if (it->second != 3 && it->second != 4 && !volume)
        return emitError(loc) << describeNode(node, index)
                              << ": only 1-D (NCL) and 2-D (NCHW) inputs are "
                                 "supported, not rank "
                              << it->second;
      if (seen >= 0 && seen != it->second)
        return emitError(loc)
               << describeNode(node, index) << ": the input has rank " << seen
               << " and the weight rank " << it->second;
      seen = it->second;
    }
  }
  return success();
}

FailureOr<onnx::ModelProto> mlir::oneflow::onnx_import::readModel(
    llvm::StringRef bytes, Location loc,
    llvm::function_ref<bool(llvm::StringRef)> isSupported) {
  onnx::ModelProto model;
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()),
      static_cast<int>(std::min<size_t>(bytes.size(), INT32_MAX)));
  stream.SetTotalBytesLimit(INT32_MAX);
  if (bytes.size() > INT32_MAX || !model.ParseFromCodedStream(&stream) ||
      !stream.ConsumedEntireMessage())
    return emitError(loc) << "not an ONNX model: the file does not parse as "
                             "an onnx.ModelProto (truncated or not protobuf)";
  if (!model.has_graph())
    return emitError(loc) << "not an ONNX model: it has no graph";

  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto &set : model.opset_import()) {
    // Other domains are only an error when a node uses one.
    if (set.domain().empty() || set.domain() == "ai.onnx")
      opset = set.version();
  }
  if (opset < 0)
    return emitError(loc) << "the model imports no version of the default "
                             "ONNX operator set";
  // Above what this ONNX library knows, its schemas would silently stand
  // in for newer op versions (ReduceMean-18 takes its axes as an input).
  int64_t known = onnx::OpSchemaRegistry::DomainToVersionRange::Instance()
                      .Map()
                      .at(onnx::ONNX_DOMAIN)
                      .second;
  if (opset > known)
    return emitError(loc) << "the model uses ONNX opset " << opset
                          << ", newer than any this ONNX library knows (up "
                             "to "
                          << known << "); the importer maps opsets "
                          << kMinOpset << " to " << kMaxOpset
                          << " (export the model with one of them)";
  if (opset > kMaxOpset) {
    std::string unmapped = findUnmappedVersion(model.graph(), opset);
    if (!unmapped.empty())
      return emitError(loc)
             << "the model uses ONNX opset " << opset << ", where " << unmapped
             << "; the importer maps the op versions of opsets " << kMinOpset
             << " to " << kMaxOpset;
  }
  if (failed(checkNoExternalData(model.graph(), loc)))
    return failure();

  // The converter runs on checked models only (it crashes on some others).
  auto check = [&]() -> LogicalResult {
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception &e) {
      return emitError(loc)
             << "the ONNX checker rejects the model: " << e.what();
    }
    return success();
  };
  if (failed(check()))
    return failure();
  if (opset < kMinOpset &&
      (failed(upgradeOpset(model, opset, loc)) || failed(check())))
    return failure();
  // Unsupported ops are reported before ONNX's shape inference runs on
  // them (libonnx's inference of some ops it checks crashes on odd input).
  for (auto [index, node] : llvm::enumerate(model.graph().node()))
    if ((node.domain().empty() || node.domain() == "ai.onnx") &&
        !isSupported(node.op_type()))
      return emitError(loc)
             << describeNode(node, index) << ": unsupported op type '"
             << node.op_type() << "'";
  if (failed(checkWindowRanks(model.graph(), loc)))
    return failure();
  try {
    onnx::ShapeInferenceOptions options(/*check_type=*/true,
                                        /*strict_mode=*/1,
                                        /*data_prop=*/true);
    onnx::shape_inference::InferShapes(
        model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception &e) {
    return emitError(loc) << "ONNX shape inference fails on the model: "
                          << e.what();
  }
  return model;
}
