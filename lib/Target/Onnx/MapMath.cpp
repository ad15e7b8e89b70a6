//===- MapMath.cpp - Element-wise, reduction and matmul ops ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// | ONNX                          | oneflow                                   |
// |-------------------------------|-------------------------------------------|
// | Add Sub Mul Div Pow           | add sub mul div pow; scalar_add/mul/div/  |
// |                               | pow when one operand is a float scalar    |
// | Pow (mixed element types)     | cast, pow (an integer base in f64), cast  |
// | Clip                          | maximum, minimum                          |
// | Equal Less Greater ...        | equal less greater ...                    |
// | And Or Xor Not                | logical_and logical_or logical_xor        |
// |                               | logical_not                               |
// | Where                         | where                                     |
// | BitShift                      | bit_shift (width from the ONNX type)      |
// | Relu Sqrt Erf Tanh Sigmoid    | the unary op of that name                 |
// | Exp Log Neg Abs Reciprocal    |                                           |
// | Sin Cos Floor Ceil Round Sign |                                           |
// | Softplus Tan Asin Acos Atan   |                                           |
// | Sinh Cosh Asinh Acosh Atanh   |                                           |
// | LeakyRelu Elu Selu            | leaky_relu elu selu hard_sigmoid, with    |
// | HardSigmoid                   | their attributes                          |
// | ReduceMean ReduceSum ReduceMax| reduce_mean reduce_sum reduce_max         |
// | ReduceMin                     | neg, reduce_max, neg                      |
// | ArgMax ArgMin                 | arg_max arg_min                           |
// | MatMul                        | matmul (2-D), batch_matmul (N-D)          |
// | Gemm                          | matmul [scalar_mul] [add]                 |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// The float scalar a constant operand holds, when it is one that keeps the
/// other operand's shape.
static std::optional<double> scalarOperand(NodeContext &node, unsigned i,
                                           Value other) {
  const ConstTensor *c = node.constInput(i);
  RankedTensorType type = NodeContext::typeOf(other);
  if (!c || !c->isFloat() || c->numElements() != 1 ||
      static_cast<int64_t>(c->shape.size()) > type.getRank() ||
      !isa<FloatType>(type.getElementType()))
    return std::nullopt;
  return c->floats[0];
}

template <typename OpTy>
static LogicalResult mapScalar(NodeContext &node, Value x, double scalar) {
  FailureOr<OpTy> op = node.create<OpTy>(
      x, {node.named("scalar", node.b.getF64FloatAttr(scalar))});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

/// A binary op; `scalarForm` picks a scalar op when the right operand is a
/// float scalar constant.
template <typename OpTy>
static LogicalResult mapBinary(NodeContext &node,
                               LogicalResult (*scalarForm)(NodeContext &, Value,
                                                           double) = nullptr) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> lhs = node.input(0);
  if (failed(lhs))
    return failure();
  if (scalarForm)
    if (std::optional<double> scalar = scalarOperand(node, 1, *lhs))
      return scalarForm(node, *lhs, *scalar);
  FailureOr<Value> rhs = node.input(1);
  if (failed(rhs))
    return failure();
  FailureOr<OpTy> op = node.create<OpTy>({*lhs, *rhs});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

/// A one-input op with `attrs`.
template <typename OpTy>
static LogicalResult mapUnaryWith(NodeContext &node,
                                  ArrayRef<NamedAttribute> attrs) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  FailureOr<OpTy> op = node.create<OpTy>(*x, attrs);
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

template <typename OpTy> static LogicalResult mapUnary(NodeContext &node) {
  return mapUnaryWith<OpTy>(node, {});
}

/// A unary op with float attributes, each read from the node with ONNX's
/// default (`names` and `defaults` pair up).
template <typename OpTy>
static LogicalResult mapUnaryParams(NodeContext &node,
                                    ArrayRef<StringRef> names,
                                    ArrayRef<double> defaults) {
  SmallVector<NamedAttribute> attrs;
  Type f64 = Float64Type::get(node.getContext());
  for (auto [name, fallback] : llvm::zip(names, defaults))
    attrs.push_back(NamedAttribute(
        StringAttr::get(node.getContext(), name),
        FloatAttr::get(f64, node.getFloat(name, fallback))));
  return mapUnaryWith<OpTy>(node, attrs);
}

static LogicalResult mapWhere(NodeContext &node) {
  if (failed(node.checkArity(3, 3, 1)))
    return failure();
  FailureOr<Value> c = node.input(0), x = node.input(1), y = node.input(2);
  if (failed(c) || failed(x) || failed(y))
    return failure();
  FailureOr<WhereOp> op = node.create<WhereOp>({*c, *x, *y});
  if (failed(op))
    return failure();
  node.setOutput(0, op->getResult());
  return success();
}

/// ArgMax and ArgMin: `axis`, `keepdims` (default 1), `select_last_index`.
template <typename OpTy> static LogicalResult mapArgReduce(NodeContext &node) {
  MLIRContext *context = node.getContext();
  SmallVector<NamedAttribute> attrs;
  attrs.push_back(NamedAttribute(
      StringAttr::get(context, "axis"),
      IntegerAttr::get(IntegerType::get(context, 64), node.getInt("axis", 0))));
  for (StringRef flag : {"keepdims", "select_last_index"})
    if (node.getInt(flag, flag == "keepdims" ? 1 : 0) != 0)
      attrs.push_back(
          NamedAttribute(StringAttr::get(context, flag), UnitAttr::get(context)));
  return mapUnaryWith<OpTy>(node, attrs);
}

/// ReduceMean and ReduceMax take `axes` as an attribute in opsets 13 to 17,
/// ReduceSum as an input.
template <typename OpTy> static LogicalResult mapReduce(NodeContext &node) {
  bool axesInput = node.opType() == "ReduceSum";
  if (failed(node.checkArity(1, axesInput ? 2 : 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = NodeContext::typeOf(*x).getRank();
  llvm::SmallVector<int64_t> axes;
  if (axesInput && node.hasInput(1)) {
    FailureOr<llvm::SmallVector<int64_t>> given = node.constInts(1, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else if (!axesInput) {
    if (FailureOr<llvm::SmallVector<int64_t>> given = node.getInts("axes");
        succeeded(given))
      axes = *given;
  }
  FailureOr<llvm::SmallVector<NamedAttribute>> attrs =
      reduceAttrs(node, axes, rank);
  if (failed(attrs))
    return failure();
  if (axes.empty() && node.getInt("noop_with_empty_axes", 0) != 0) {
    node.setOutput(0, *x);
    return success();
  }
  // ReduceMin is -reduce_max(-x).
  bool negate = node.opType() == "ReduceMin";
  if (negate)
    x = node.create<NegOp>(*x)->getResult();
  FailureOr<OpTy> op = node.create<OpTy>(*x, *attrs);
  if (failed(op))
    return failure();
  Value result = op->getResult();
  if (negate)
    result = node.create<NegOp>(result)->getResult();
  node.setOutput(0, result);
  return success();
}

/// Pow whose exponent's element type differs from the base's (ONNX allows
/// it; the result has the base's type): an exponent is cast to a float
/// base's type; an integer base is raised in f64 and the result truncated.
static LogicalResult mapPow(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> base = node.input(0), exponent = node.input(1);
  if (failed(base) || failed(exponent))
    return failure();
  RankedTensorType baseType = NodeContext::typeOf(*base),
                   expType = NodeContext::typeOf(*exponent);
  if (baseType.getElementType() == expType.getElementType())
    return mapBinary<PowOp>(node, mapScalar<ScalarPowOp>);
  Type element = baseType.getElementType();
  if (isa<FloatType>(element)) {
    FailureOr<PowOp> op =
        node.create<PowOp>({*base, node.cast(*exponent, element)});
    if (failed(op))
      return failure();
    node.setOutput(0, op->getResult());
    return success();
  }
  Type f64 = node.b.getF64Type();
  FailureOr<PowOp> op =
      node.create<PowOp>({node.cast(*base, f64), node.cast(*exponent, f64)});
  if (failed(op))
    return failure();
  node.setOutput(0, node.cast(op->getResult(), element));
  return success();
}

static LogicalResult mapMatMul(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> a = node.input(0), b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  int64_t rankA = NodeContext::typeOf(*a).getRank(),
          rankB = NodeContext::typeOf(*b).getRank();
  if (rankA == 0 || rankB == 0)
    return node.error() << "operands must have rank 1 or more";
  // 1-D operands are a row (left) or a column (right), dropped afterwards.
  Value lhs = *a, rhs = *b;
  if (rankA == 1)
    lhs = node.reshape(lhs, {1, NodeContext::typeOf(lhs).getDimSize(0)});
  if (rankB == 1)
    rhs = node.reshape(rhs, {NodeContext::typeOf(rhs).getDimSize(0), 1});
  Value result;
  if (rankA <= 2 && rankB <= 2) {
    FailureOr<MatmulOp> op = node.create<MatmulOp>({lhs, rhs});
    if (failed(op))
      return failure();
    result = op->getResult();
  } else {
    FailureOr<BatchMatmulOp> op = node.create<BatchMatmulOp>({lhs, rhs});
    if (failed(op))
      return failure();
    result = op->getResult();
  }
  llvm::SmallVector<int64_t> shape(NodeContext::typeOf(result).getShape());
  if (rankB == 1)
    shape.pop_back();
  if (rankA == 1)
    shape.erase(shape.end() - (rankB == 1 ? 1 : 2));
  node.setOutput(0, node.reshape(result, shape));
  return success();
}

static LogicalResult mapGemm(NodeContext &node) {
  if (failed(node.checkArity(2, 3, 1)))
    return failure();
  FailureOr<Value> a = node.input(0), b = node.input(1);
  if (failed(a) || failed(b))
    return failure();
  double alpha = node.getFloat("alpha", 1.0), beta = node.getFloat("beta", 1.0);
  llvm::SmallVector<NamedAttribute> attrs;
  if (node.getInt("transA", 0))
    attrs.push_back(node.named("transpose_a", node.b.getUnitAttr()));
  if (node.getInt("transB", 0))
    attrs.push_back(node.named("transpose_b", node.b.getUnitAttr()));
  FailureOr<MatmulOp> product = node.create<MatmulOp>({*a, *b}, attrs);
  if (failed(product))
    return failure();
  Value y = product->getResult();
  auto scaled = [&](Value v, double s) -> FailureOr<Value> {
    if (s == 1.0)
      return v;
    FailureOr<ScalarMulOp> op = node.create<ScalarMulOp>(
        v, {node.named("scalar", node.b.getF64FloatAttr(s))});
    if (failed(op))
      return failure();
    return op->getResult();
  };
  FailureOr<Value> ys = scaled(y, alpha);
  if (failed(ys))
    return failure();
  y = *ys;
  if (node.hasInput(2) && beta != 0.0) {
    FailureOr<Value> c = node.input(2);
    if (failed(c))
      return failure();
    FailureOr<Value> cs = scaled(*c, beta);
    if (failed(cs))
      return failure();
    FailureOr<AddOp> sum = node.create<AddOp>({y, *cs});
    if (failed(sum))
      return failure();
    if (NodeContext::typeOf(sum->getResult()).getShape() !=
        NodeContext::typeOf(y).getShape())
      return node.error() << "C does not broadcast to the product's shape";
    y = sum->getResult();
  }
  node.setOutput(0, y);
  return success();
}

/// Clip(x, min, max) as maximum(x, min) then minimum(., max).
static LogicalResult mapClip(NodeContext &node) {
  if (failed(node.checkArity(1, 3, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  Value y = *x;
  for (unsigned i = 1; i < 3; ++i) {
    if (!node.hasInput(i))
      continue;
    FailureOr<Value> bound = node.input(i);
    if (failed(bound))
      return failure();
    FailureOr<Operation *> op =
        i == 1 ? FailureOr<Operation *>(node.create<MaximumOp>({y, *bound}))
               : FailureOr<Operation *>(node.create<MinimumOp>({y, *bound}));
    if (failed(op))
      return failure();
    y = (*op)->getResult(0);
  }
  node.setOutput(0, y);
  return success();
}

static LogicalResult subScalar(NodeContext &node, Value x, double s) {
  return mapScalar<ScalarAddOp>(node, x, -s);
}

/// BitShift on an unsigned ONNX type: its width is the type's; the values
/// are already in their computing type (i32 or i64).
static LogicalResult mapBitShift(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> x = node.input(0), y = node.input(1);
  if (failed(x) || failed(y))
    return failure();
  int32_t type = node.inputElementType(0);
  int64_t width = type == onnx::TensorProto::UINT8    ? 8
                  : type == onnx::TensorProto::UINT16 ? 16
                  : type == onnx::TensorProto::UINT32 ? 32
                  : type == onnx::TensorProto::UINT64 ? 64
                                                      : 0;
  if (!width)
    return node.error() << "needs unsigned integer operands, got "
                        << (type ? elementTypeName(type) : "an untyped value");
  std::string direction = node.getString("direction", "");
  if (direction != "LEFT" && direction != "RIGHT")
    return node.error() << "direction must be LEFT or RIGHT, got '" << direction
                        << "'";
  FailureOr<Value> shifted = valueOf(node.create<BitShiftOp>(
      {*x, *y},
      {node.named("direction",
                  node.b.getStringAttr(direction == "LEFT" ? "left" : "right")),
       node.named("width", node.b.getI64IntegerAttr(width))}));
  if (failed(shifted))
    return failure();
  node.setOutput(0, *shifted);
  return success();
}

void mlir::oneflow::onnx_import::addMathLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Add"] = [](NodeContext &n) {
    return mapBinary<AddOp>(n, mapScalar<ScalarAddOp>);
  };
  table["Sub"] = [](NodeContext &n) { return mapBinary<SubOp>(n, subScalar); };
  table["Mul"] = [](NodeContext &n) {
    return mapBinary<MulOp>(n, mapScalar<ScalarMulOp>);
  };
  table["Div"] = [](NodeContext &n) {
    return mapBinary<DivOp>(n, mapScalar<ScalarDivOp>);
  };
  table["Pow"] = mapPow;
  table["BitShift"] = mapBitShift;
  table["Equal"] = [](NodeContext &n) { return mapBinary<EqualOp>(n); };
  table["Less"] = [](NodeContext &n) { return mapBinary<LessOp>(n); };
  table["LessOrEqual"] = [](NodeContext &n) {
    return mapBinary<LessEqualOp>(n);
  };
  table["Greater"] = [](NodeContext &n) { return mapBinary<GreaterOp>(n); };
  table["GreaterOrEqual"] = [](NodeContext &n) {
    return mapBinary<GreaterEqualOp>(n);
  };
  table["And"] = [](NodeContext &n) { return mapBinary<LogicalAndOp>(n); };
  table["Or"] = [](NodeContext &n) { return mapBinary<LogicalOrOp>(n); };
  table["Xor"] = [](NodeContext &n) { return mapBinary<LogicalXorOp>(n); };
  table["Not"] = mapUnary<LogicalNotOp>;
  table["Where"] = mapWhere;
  table["Clip"] = mapClip;
  table["Relu"] = mapUnary<ReluOp>;
  table["Sqrt"] = mapUnary<SqrtOp>;
  table["Erf"] = mapUnary<ErfOp>;
  table["Tanh"] = mapUnary<TanhOp>;
  table["Sigmoid"] = mapUnary<SigmoidOp>;
  table["Exp"] = mapUnary<ExpOp>;
  table["Log"] = mapUnary<LogOp>;
  table["Neg"] = mapUnary<NegOp>;
  table["Abs"] = mapUnary<AbsOp>;
  table["Reciprocal"] = mapUnary<ReciprocalOp>;
  table["Sin"] = mapUnary<SinOp>;
  table["Cos"] = mapUnary<CosOp>;
  table["Floor"] = mapUnary<FloorOp>;
  table["Ceil"] = mapUnary<CeilOp>;
  table["Round"] = mapUnary<RoundOp>;
  table["Sign"] = mapUnary<SignOp>;
  table["Softplus"] = mapUnary<SoftplusOp>;
  table["Tan"] = mapUnary<TanOp>;
  table["Asin"] = mapUnary<AsinOp>;
  table["Acos"] = mapUnary<AcosOp>;
  table["Atan"] = mapUnary<AtanOp>;
  table["Sinh"] = mapUnary<SinhOp>;
  table["Cosh"] = mapUnary<CoshOp>;
  table["Asinh"] = mapUnary<AsinhOp>;
  table["Acosh"] = mapUnary<AcoshOp>;
  table["Atanh"] = mapUnary<AtanhOp>;
  table["LeakyRelu"] = [](NodeContext &n) {
    return mapUnaryParams<LeakyReluOp>(n, {"alpha"}, {0.01});
  };
  table["Elu"] = [](NodeContext &n) {
    return mapUnaryParams<EluOp>(n, {"alpha"}, {1.0});
  };
  table["Selu"] = [](NodeContext &n) {
    return mapUnaryParams<SeluOp>(n, {"alpha", "gamma"},
                                  {1.67326319217681884765625,
                                   1.05070102214813232421875});
  };
  table["HardSigmoid"] = [](NodeContext &n) {
    return mapUnaryParams<HardSigmoidOp>(n, {"alpha", "beta"}, {0.2, 0.5});
  };
  table["ReduceMean"] = mapReduce<ReduceMeanOp>;
  table["ReduceSum"] = mapReduce<ReduceSumOp>;
  table["ReduceMax"] = mapReduce<ReduceMaxOp>;
  table["ReduceMin"] = mapReduce<ReduceMaxOp>;
  table["ArgMax"] = mapArgReduce<ArgMaxOp>;
  table["ArgMin"] = mapArgReduce<ArgMinOp>;
  table["MatMul"] = mapMatMul;
  table["Gemm"] = mapGemm;
}
