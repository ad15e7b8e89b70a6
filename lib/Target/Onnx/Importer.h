//===- Importer.h - ONNX importer internals ---------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Shared by the importer's parts: model reading and validation
// (ModelReader.cpp), constant tensors and folding (Constants.cpp,
// Folding.cpp), the graph walk (Importer.cpp) and the op mapping tables
// (MapMath.cpp, MapNN.cpp, MapShape.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_TARGET_ONNX_IMPORTER_H
#define ONEFLOW_LIB_TARGET_ONNX_IMPORTER_H

#include "OneFlowDialect/Target/OnnxImport.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include "onnx/onnx_pb.h"

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace mlir::oneflow::onnx_import {

//===----------------------------------------------------------------------===//
// Reading and validation
//===----------------------------------------------------------------------===//

/// The opsets the importer maps (of the default ONNX domain).
constexpr int64_t kMinOpset = 13;
constexpr int64_t kMaxOpset = 17;

/// "node 'name' (#index, OpType)", or "node #index (OpType)" unnamed.
std::string describeNode(const onnx::NodeProto &node, int64_t index);

/// Parses `bytes` as a ModelProto and validates it: the ONNX checker, the
/// opset range, no external data, every op type one that `isSupported`
/// accepts (before ONNX's own shape inference runs on it), then ONNX shape
/// inference (strict). Errors are emitted at `loc`.
FailureOr<onnx::ModelProto>
readModel(llvm::StringRef bytes, Location loc,
          llvm::function_ref<bool(llvm::StringRef)> isSupported);

//===----------------------------------------------------------------------===//
// Constant tensors
//===----------------------------------------------------------------------===//

/// The MLIR element type of an ONNX element type, or null when we have none.
/// FLOAT16 and BFLOAT16 are computed in f32.
Type elementType(int32_t onnxType, MLIRContext *context);
/// The element type a graph input or output of `onnxType` has: f16 and
/// bf16 for the half types (cast to and from f32 at the graph's edges),
/// elementType otherwise.
Type storageType(int32_t onnxType, MLIRContext *context);

/// The ONNX name of an element type ("FLOAT16", ...).
std::string elementTypeName(int32_t onnxType);

/// Shapes larger than this many elements count as this many.
constexpr int64_t kMaxElements = int64_t(1) << 50;
/// The number of elements of `shape`, saturating at kMaxElements.
int64_t elementCount(llvm::ArrayRef<int64_t> shape);

/// A tensor known at import time: initializers, Constant nodes and what
/// folds from them. Floating-point values are held as doubles, integers
/// and booleans as int64.
struct ConstTensor {
  int32_t dtype = onnx::TensorProto::FLOAT;
  llvm::SmallVector<int64_t> shape;
  std::vector<double> floats;
  std::vector<int64_t> ints;

  bool isFloat() const;
  int64_t numElements() const;
  double getDouble(int64_t i) const {
    return isFloat() ? floats[i] : static_cast<double>(ints[i]);
  }
  int64_t getInt(int64_t i) const {
    return isFloat() ? static_cast<int64_t>(floats[i]) : ints[i];
  }
  /// An empty tensor of `dtype` and `shape`, storage sized.
  static ConstTensor zeros(int32_t dtype, llvm::ArrayRef<int64_t> shape);
  /// Appends element `i` of `from` (converted to this dtype).
  void append(const ConstTensor &from, int64_t i);

  /// Reads an ONNX TensorProto; on failure, `why` says why.
  static FailureOr<ConstTensor> fromProto(const onnx::TensorProto &proto,
                                          std::string &why);
  RankedTensorType getType(MLIRContext *context) const;
  DenseElementsAttr toAttr(MLIRContext *context) const;
  /// The values of `attr` (what toAttr makes) as a tensor of ONNX `dtype`.
  static ConstTensor fromAttr(DenseElementsAttr attr, int32_t dtype);
};

/// The values of an initializer as an elements attribute (without going
/// through ConstTensor: weights can be large).
FailureOr<DenseElementsAttr> initializerAttr(const onnx::TensorProto &proto,
                                             MLIRContext *context,
                                             std::string &why);

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

class Importer;

/// One node being imported: operands, attributes, results, errors.
class NodeContext {
public:
  NodeContext(Importer &importer, const onnx::NodeProto &node, int64_t index,
              Location loc);

  const onnx::NodeProto &node;
  const int64_t index;
  const Location loc;
  OpBuilder &b;
  MLIRContext *getContext() const { return loc.getContext(); }
  llvm::StringRef opType() const { return node.op_type(); }
  /// "node 'name' (#index, OpType)".
  std::string describe() const;
  /// An error naming the node.
  InFlightDiagnostic error();

  // Operands. Optional ONNX inputs may be absent (an empty name).
  unsigned numInputs() const { return node.input_size(); }
  bool hasInput(unsigned i) const;
  /// Input `i` as a value (constants and initializers are materialized).
  FailureOr<Value> input(unsigned i);
  /// The shape of input `i` (an initializer's is read without making it a
  /// variable).
  FailureOr<llvm::SmallVector<int64_t>> inputShape(unsigned i);
  /// The ONNX element type of input `i` (what it was before the importer
  /// chose a computing type), or 0 when ONNX's shape inference left it
  /// untyped.
  int32_t inputElementType(unsigned i) const;
  /// Input `i` when it is known at import time, else null: Constant nodes,
  /// integer initializers and what folds from them (float initializers are
  /// parameters and never fold; `readParameters` reads their values too,
  /// for a node that takes one as a setting).
  const ConstTensor *constInput(unsigned i, bool readParameters = false);
  /// Input `i` that must be known at import time (a shape, axes, ...),
  /// as integers; errors name `what`.
  FailureOr<llvm::SmallVector<int64_t>> constInts(unsigned i,
                                                  llvm::StringRef what);
  /// Fails unless the node has between `min` and `max` inputs and no
  /// output beyond the first `outputs` that a node or the graph reads.
  LogicalResult checkArity(unsigned min, unsigned max, unsigned outputs);

  // Attributes; reading one marks it handled.
  const onnx::AttributeProto *attr(llvm::StringRef name);
  int64_t getInt(llvm::StringRef name, int64_t defaultValue);
  double getFloat(llvm::StringRef name, double defaultValue);
  std::string getString(llvm::StringRef name, llvm::StringRef defaultValue);
  FailureOr<llvm::SmallVector<int64_t>> getInts(llvm::StringRef name);
  /// Fails, naming it, when the node has an attribute nothing read.
  LogicalResult checkAttributesHandled();

  // Results.
  void setOutput(unsigned i, Value value);
  void setConst(unsigned i, ConstTensor value);
  unsigned numOutputs() const { return node.output_size(); }
  bool hasOutput(unsigned i) const;
  /// Whether a later node or the graph's outputs read output `i`.
  bool isOutputUsed(unsigned i) const;

  /// The static type of a value (all our tensors are ranked).
  static RankedTensorType typeOf(Value value) {
    return llvm::cast<RankedTensorType>(value.getType());
  }

  /// Creates an op whose result types it infers; an inference error (bad
  /// shapes) is reported, never fatal.
  template <typename OpTy>
  FailureOr<OpTy> create(ValueRange operands,
                         llvm::ArrayRef<NamedAttribute> attrs = {}) {
    MLIRContext *context = getContext();
    DictionaryAttr dict = DictionaryAttr::get(context, attrs);
    typename OpTy::Properties props;
    if (failed(OpTy::setPropertiesFromAttr(props, dict,
                                           [&] { return emitError(loc); })))
      return failure();
    // Attributes left out take their defaults, as in the op's builders.
    std::optional<RegisteredOperationName> name =
        RegisteredOperationName::lookup(OpTy::getOperationName(), context);
    name->populateDefaultProperties(OpaqueProperties(&props));
    typename OpTy::Adaptor adaptor(operands, dict, props);
    llvm::SmallVector<Type> types;
    if (failed(OpTy::inferReturnTypes(context, loc, adaptor, types)))
      return failure();
    OperationState state(loc, OpTy::getOperationName());
    state.addOperands(operands);
    state.addAttributes(attrs);
    state.addTypes(types);
    return llvm::cast<OpTy>(b.create(state));
  }
  /// Creates an op with a given result type (reshape, cast, constant).
  template <typename OpTy>
  OpTy createTyped(Type type, ValueRange operands,
                   llvm::ArrayRef<NamedAttribute> attrs = {}) {
    OperationState state(loc, OpTy::getOperationName());
    state.addOperands(operands);
    state.addAttributes(attrs);
    state.addTypes(type);
    return llvm::cast<OpTy>(b.create(state));
  }
  NamedAttribute named(llvm::StringRef name, Attribute value) {
    return b.getNamedAttr(name, value);
  }
  /// Reshapes `value` to `shape` (no op when it has that shape already).
  Value reshape(Value value, llvm::ArrayRef<int64_t> shape);
  /// value[..., begin:end, ...] along `axis`.
  FailureOr<Value> sliceAlong(Value value, int64_t axis, int64_t begin,
                              int64_t end);
  /// `value` broadcast (numpy rules) to `shape`: an add of a zero fill, a
  /// where for booleans; no op when it has that shape.
  FailureOr<Value> broadcastTo(Value value, llvm::ArrayRef<int64_t> shape);
  /// Casts `value` to `element` (no op when it has that element type).
  Value cast(Value value, Type element);
  /// A constant of `value`.
  Value constant(const ConstTensor &value);
  /// A tensor of `type` filled with `value`.
  Value fill(RankedTensorType type, double value);

private:
  Importer &importer;
  llvm::StringSet<> handled;
};

/// The result of a created op, or failure.
template <typename OpTy> FailureOr<Value> valueOf(FailureOr<OpTy> op) {
  if (failed(op))
    return failure();
  return (*op)->getResult(0);
}

/// ScatterElements' and ScatterND's result from `data` and the scatter-add
/// of the updates: their sum (reduction add), or the scattered values where
/// a scatter-add of ones (`scatterOnes`) is positive (none).
FailureOr<Value>
scatterResult(NodeContext &node, llvm::StringRef reduction, Value data,
              Value scattered,
              llvm::function_ref<FailureOr<Value>()> scatterOnes);

/// Maps one ONNX op type onto oneflow ops.
using Lowering = LogicalResult (*)(NodeContext &);

/// The mapping tables, one per family of ops.
void addMathLowerings(llvm::StringMap<Lowering> &table);
void addNNLowerings(llvm::StringMap<Lowering> &table);
void addShapeLowerings(llvm::StringMap<Lowering> &table);
void addLossLowerings(llvm::StringMap<Lowering> &table);
void addCompositeLowerings(llvm::StringMap<Lowering> &table);
void addLayoutLowerings(llvm::StringMap<Lowering> &table);
void addIndexingLowerings(llvm::StringMap<Lowering> &table);
void addResizeLowerings(llvm::StringMap<Lowering> &table);
void addRecurrentLowerings(llvm::StringMap<Lowering> &table);
void addStatisticsLowerings(llvm::StringMap<Lowering> &table);
void addEinsumLowerings(llvm::StringMap<Lowering> &table);

/// Computes a node's outputs at import time when every input is known
/// (or, for Shape, when its input's shape is static). Returns true when it
/// did, false when the node is not foldable, failure on an error.
FailureOr<bool> foldNode(NodeContext &node);
/// Whether foldNode knows the op type.
bool isFoldable(llvm::StringRef opType);

/// The window attributes of a convolution or pooling node: per spatial
/// axis, and `pads` all begins then all ends (ONNX's order).
struct WindowAttrs {
  llvm::SmallVector<int64_t> kernel, strides, pads, dilations;
};
/// Reads kernel_shape, strides, pads, dilations and auto_pad for an input
/// of spatial size `spatial` (1 to 3 axes); `kernel` is the weight's when
/// given. A 1-D window comes back as the 2-D window of height 1 (MapNN.cpp).
FailureOr<WindowAttrs> readWindow(NodeContext &node,
                                  llvm::ArrayRef<int64_t> spatial,
                                  llvm::ArrayRef<int64_t> kernel,
                                  bool hasDilations);
/// Conv, MaxPool and AveragePool over 3 spatial axes (NCDHW) as 2-D ops
/// (MapVolume.cpp).
LogicalResult mapConv3D(NodeContext &node);
LogicalResult mapPool3D(NodeContext &node, bool isMax);

/// Adds the loss `options` asks for (Loss.cpp).
LogicalResult attachLoss(ModuleOp module, const OnnxImportOptions &options);

/// ConstantOfShape's `value` attribute (one element; 0.0f by default).
FailureOr<ConstTensor> constantOfShapeValue(NodeContext &node);

/// Normalizes an axis in [-rank, rank) or fails naming the node.
FailureOr<int64_t> normalizeAxis(NodeContext &node, int64_t axis, int64_t rank,
                                 llvm::StringRef what);
/// A reduction's attributes: `axes` (every axis when empty), each
/// normalized, and `keepdims` when the node's is set (default 1).
FailureOr<llvm::SmallVector<NamedAttribute>>
reduceAttrs(NodeContext &node, llvm::ArrayRef<int64_t> axes, int64_t rank);

//===----------------------------------------------------------------------===//
// Shape rules shared by folding and mapping (MapShape.cpp)
//===----------------------------------------------------------------------===//

/// Reshape's result shape from its `shape` input (0 copies the input's
/// dimension unless `allowZero`, one -1 is inferred).
FailureOr<llvm::SmallVector<int64_t>>
reshapeShape(NodeContext &node, llvm::ArrayRef<int64_t> input,
             llvm::ArrayRef<int64_t> spec, bool allowZero);
/// Unsqueeze's result shape for `axes` (of the result's rank).
FailureOr<llvm::SmallVector<int64_t>>
unsqueezeShape(NodeContext &node, llvm::ArrayRef<int64_t> input,
               llvm::ArrayRef<int64_t> axes);
/// Squeeze's result shape; no `axes` drops every 1.
FailureOr<llvm::SmallVector<int64_t>>
squeezeShape(NodeContext &node, llvm::ArrayRef<int64_t> input,
             std::optional<llvm::ArrayRef<int64_t>> axes);
/// Slice's inputs, one (start, end, step) per axis of `input`, normalized
/// and clamped as the ONNX spec says.
struct SliceAxis {
  int64_t start, end, step, size;
};
FailureOr<llvm::SmallVector<SliceAxis>>
sliceAxes(NodeContext &node, llvm::ArrayRef<int64_t> input);
/// Numpy broadcasting of two shapes.
FailureOr<llvm::SmallVector<int64_t>> broadcastShape(NodeContext &node,
                                                     llvm::ArrayRef<int64_t> a,
                                                     llvm::ArrayRef<int64_t> b);

/// What the graph walk tracks per ONNX value name.
struct Entry {
  Value value;
  std::shared_ptr<ConstTensor> constant;
  const onnx::TensorProto *initializer = nullptr;
  /// The values of a float initializer read as a setting (constInput).
  std::shared_ptr<ConstTensor> parameterValue;
};

/// Walks a validated graph, building `func.func @main`.
class Importer {
public:
  Importer(MLIRContext *context, llvm::StringRef filename,
           const OnnxImportOptions &options);
  OwningOpRef<ModuleOp> run(const onnx::ModelProto &model);
  /// Whether a node of `opType` can be folded or mapped.
  bool isSupported(llvm::StringRef opType) const {
    return table.count(opType) || isFoldable(opType);
  }

  OpBuilder builder;
  llvm::StringMap<Entry> values;
  /// Materializes `name` as a value (a variable for an initializer, a
  /// constant for a folded tensor).
  FailureOr<Value> materialize(llvm::StringRef name, Location loc);
  Location fileLoc() const { return fileLocation; }
  /// The ONNX element type of the value `name` (a graph input or output,
  /// an initializer, or a value ONNX's shape inference typed), or 0.
  int32_t onnxElementType(llvm::StringRef name) const;

  bool isConsumed(llvm::StringRef name) const { return consumed.contains(name); }

private:
  LogicalResult importInputs(const onnx::GraphProto &graph);
  LogicalResult importNode(const onnx::NodeProto &node, int64_t index);
  LogicalResult importOutputs(const onnx::GraphProto &graph);
  Type withLayout(RankedTensorType type, bool split);
  /// `value` (f32) cast to bf16 and back: a BFLOAT16 graph input or output,
  /// f32 at the edge, holds bf16 values.
  Value roundedToBf16(Value value, Location loc);

  MLIRContext *context;
  Location fileLocation;
  OnnxImportOptions options;
  /// The symbolic dimensions of the graph's inputs and outputs.
  std::set<std::string> dimNames;
  llvm::StringMap<Lowering> table;
  /// The variable of each initializer made one so far.
  llvm::DenseMap<const onnx::TensorProto *, Value> variables;
  /// Names of initializers that must stay frozen (BatchNormalization's
  /// running statistics).
  llvm::StringSet<> frozen;
  /// Names some node reads or the graph outputs.
  llvm::StringSet<> consumed;
  const onnx::GraphProto *graph = nullptr;
};

} // namespace mlir::oneflow::onnx_import

#endif // ONEFLOW_LIB_TARGET_ONNX_IMPORTER_H
