//===- MapComposite.cpp - ONNX ops that are compositions of ours ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// ONNX ops whose spec defines them through simpler ones, imported as those
// compositions of oneflow ops (so they differentiate and lay out like their
// parts):
//
// | ONNX                  | oneflow                                         |
// |-----------------------|-------------------------------------------------|
// | Sum Mean (n inputs)   | add chain (Mean: then scalar_div by n)          |
// | Max Min (n inputs)    | maximum / minimum chain                         |
// | ReduceL1 ReduceL2     | reduce_sum of abs / reduce_sum_square, then     |
// |                       | sqrt (L2); integers: reduce_sum of x * x        |
// | ReduceSumSquare       | reduce_sum_square (integers: reduce_sum of x*x) |
// | ReduceLogSum(Exp)     | log of reduce_sum (of exp)                      |
// | HardSwish             | x * hard_sigmoid(x; 1/6, 1/2)                   |
// | Softsign              | x / (1 + abs(x))                                |
// | Celu                  | alpha * elu(x / alpha)                          |
// | ThresholdedRelu       | where(x > alpha, x, 0)                          |
// | PRelu                 | where(x < 0, slope * x, x)                      |
// | Shrink                | where(x < -l, x + bias, where(x > l, x - bias, 0))|
// | Hardmax               | cast(equal(arg_max(x, axis), class indices))    |
// | ReduceProd            | exp(reduce_sum(log|x|)), times -1 where an odd  |
// |                       | count of x < 0 (a 0 gives exp(-inf) = 0; its    |
// |                       | gradient there is NaN)                          |
// | Mod                   | x - y * floor(x / y), or trunc (fmod 1); integer |
// |                       | operands in f64, cast back                      |
// | IsNaN                 | not_equal(x, x)                                 |
// | IsInf                 | equal(abs(x), inf), or equal(x, +inf / -inf)    |
// |                       | with one sign detected                          |
// | EyeLike               | a constant of x's shape (static), ones on the   |
// |                       | k-th diagonal                                   |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/ConstantFolding.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// `x * scalar`-style ops with one f64 attribute `scalar`.
template <typename OpTy>
static FailureOr<Value> scalar(NodeContext &node, Value x, double value) {
  return valueOf(node.create<OpTy>(
      x, {node.named("scalar", node.b.getF64FloatAttr(value))}));
}

/// Sets output 0 from `value`.
static LogicalResult finish(NodeContext &node, FailureOr<Value> value) {
  if (failed(value))
    return failure();
  node.setOutput(0, *value);
  return success();
}

/// Sum, Mean, Max, Min over any number of inputs (numpy broadcasting).
template <typename OpTy> static LogicalResult mapVariadic(NodeContext &node) {
  if (failed(node.checkArity(1, 2147483647u, 1)))
    return failure();
  FailureOr<Value> acc = node.input(0);
  for (unsigned i = 1; succeeded(acc) && i < node.numInputs(); ++i) {
    FailureOr<Value> next = node.input(i);
    if (failed(next))
      return failure();
    acc = valueOf(node.create<OpTy>({*acc, *next}));
  }
  if (succeeded(acc) && node.opType() == "Mean" && node.numInputs() > 1)
    acc = scalar<ScalarDivOp>(node, *acc, node.numInputs());
  return finish(node, acc);
}

namespace {
enum class Before { none, abs, square, exp };
enum class After { none, sqrt, log };
} // namespace

/// reduce_sum of `before(x)` over the node's axes (attribute, opsets up to
/// 17), then `after`.
static LogicalResult mapSumComposite(NodeContext &node, Before before,
                                     After after) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = NodeContext::typeOf(*x).getRank();
  SmallVector<int64_t> axes;
  if (FailureOr<SmallVector<int64_t>> given = node.getInts("axes");
      succeeded(given))
    axes = *given;
  FailureOr<SmallVector<NamedAttribute>> attrs = reduceAttrs(node, axes, rank);
  if (failed(attrs))
    return failure();
  FailureOr<Value> v = *x;
  if (before == Before::square &&
      isa<FloatType>(NodeContext::typeOf(*x).getElementType())) {
    v = valueOf(node.create<ReduceSumSquareOp>(*x, *attrs));
    if (succeeded(v) && after == After::sqrt)
      v = valueOf(node.create<SqrtOp>(*v));
    return finish(node, v);
  }
  switch (before) {
  case Before::none:
    break;
  case Before::abs:
    v = valueOf(node.create<AbsOp>(*v));
    break;
  case Before::square:
    v = valueOf(node.create<MulOp>({*v, *v}));
    break;
  case Before::exp:
    v = valueOf(node.create<ExpOp>(*v));
    break;
  }
  if (failed(v))
    return failure();
  v = valueOf(node.create<ReduceSumOp>(*v, *attrs));
  if (succeeded(v) && after == After::sqrt)
    v = valueOf(node.create<SqrtOp>(*v));
  if (succeeded(v) && after == After::log)
    v = valueOf(node.create<LogOp>(*v));
  return finish(node, v);
}

/// One input and the node's float attributes read with ONNX's defaults.
static FailureOr<Value> unaryInput(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  return node.input(0);
}

static LogicalResult mapHardSwish(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  FailureOr<Value> gate = valueOf(node.create<HardSigmoidOp>(
      *x, {node.named("alpha", node.b.getF64FloatAttr(1.0 / 6)),
           node.named("beta", node.b.getF64FloatAttr(0.5))}));
  if (failed(gate))
    return failure();
  return finish(node, valueOf(node.create<MulOp>({*x, *gate})));
}

static LogicalResult mapSoftsign(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  FailureOr<Value> abs = valueOf(node.create<AbsOp>(*x));
  if (failed(abs))
    return failure();
  FailureOr<Value> denominator = scalar<ScalarAddOp>(node, *abs, 1.0);
  if (failed(denominator))
    return failure();
  return finish(node, valueOf(node.create<DivOp>({*x, *denominator})));
}

static LogicalResult mapCelu(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  double alpha = node.getFloat("alpha", 1.0);
  if (!(alpha != 0))
    return node.error() << "alpha must not be 0";
  FailureOr<Value> scaled = scalar<ScalarDivOp>(node, *x, alpha);
  if (failed(scaled))
    return failure();
  FailureOr<Value> elu = valueOf(node.create<EluOp>(
      *scaled, {node.named("alpha", node.b.getF64FloatAttr(1.0))}));
  if (failed(elu))
    return failure();
  return finish(node, scalar<ScalarMulOp>(node, *elu, alpha));
}

static LogicalResult mapThresholdedRelu(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  Type element = NodeContext::typeOf(*x).getElementType();
  Value alpha = node.fill(RankedTensorType::get({}, element),
                          node.getFloat("alpha", 1.0));
  Value zero = node.fill(RankedTensorType::get({}, element), 0.0);
  FailureOr<Value> above = valueOf(node.create<GreaterOp>({*x, alpha}));
  if (failed(above))
    return failure();
  return finish(node, valueOf(node.create<WhereOp>({*above, *x, zero})));
}

static LogicalResult mapPRelu(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> x = node.input(0), slope = node.input(1);
  if (failed(x) || failed(slope))
    return failure();
  RankedTensorType xType = NodeContext::typeOf(*x);
  Type element = xType.getElementType();
  // PRelu before opset 7 applied a 1-D slope per channel (axis 1); ONNX's
  // version converter keeps the slope, which would not broadcast now.
  llvm::ArrayRef<int64_t> slopeShape = NodeContext::typeOf(*slope).getShape();
  if (xType.getRank() >= 3 && slopeShape.size() == 1 &&
      slopeShape[0] == xType.getDimSize(1) &&
      slopeShape[0] != xType.getShape().back()) {
    llvm::SmallVector<int64_t> perChannel(xType.getRank() - 1, 1);
    perChannel[0] = slopeShape[0];
    slope = node.reshape(*slope, perChannel);
  }
  Value zero = node.fill(RankedTensorType::get({}, element), 0.0);
  FailureOr<Value> negative = valueOf(node.create<LessOp>({*x, zero}));
  FailureOr<Value> sloped = valueOf(node.create<MulOp>({*x, *slope}));
  if (failed(negative) || failed(sloped))
    return failure();
  if (NodeContext::typeOf(*sloped).getShape() !=
      NodeContext::typeOf(*x).getShape())
    return node.error() << "slope "
                        << stripEncoding(NodeContext::typeOf(*slope))
                        << " does not broadcast to x "
                        << stripEncoding(NodeContext::typeOf(*x));
  return finish(node, valueOf(node.create<WhereOp>({*negative, *sloped, *x})));
}

static LogicalResult mapShrink(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  double bias = node.getFloat("bias", 0.0), lambd = node.getFloat("lambd", 0.5);
  Type element = NodeContext::typeOf(*x).getElementType();
  auto scalarType = RankedTensorType::get({}, element);
  FailureOr<Value> below =
      valueOf(node.create<LessOp>({*x, node.fill(scalarType, -lambd)}));
  FailureOr<Value> above =
      valueOf(node.create<GreaterOp>({*x, node.fill(scalarType, lambd)}));
  FailureOr<Value> raised = scalar<ScalarAddOp>(node, *x, bias);
  FailureOr<Value> lowered = scalar<ScalarAddOp>(node, *x, -bias);
  if (failed(below) || failed(above) || failed(raised) || failed(lowered))
    return failure();
  FailureOr<Value> upper = valueOf(
      node.create<WhereOp>({*above, *lowered, node.fill(scalarType, 0.0)}));
  if (failed(upper))
    return failure();
  return finish(node, valueOf(node.create<WhereOp>({*below, *raised, *upper})));
}

static LogicalResult mapHardmax(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  RankedTensorType type = NodeContext::typeOf(*x);
  FailureOr<int64_t> axis =
      normalizeAxis(node, node.getInt("axis", -1), type.getRank(), "axis");
  if (failed(axis))
    return failure();
  FailureOr<Value> index = valueOf(node.create<ArgMaxOp>(
      *x, {node.named("axis", node.b.getI64IntegerAttr(*axis)),
           node.named("keepdims", node.b.getUnitAttr())}));
  if (failed(index))
    return failure();
  ConstTensor classes;
  classes.dtype = onnx::TensorProto::INT64;
  classes.shape.assign(type.getRank(), 1);
  classes.shape[*axis] = type.getDimSize(*axis);
  for (int64_t c = 0; c < type.getDimSize(*axis); ++c)
    classes.ints.push_back(c);
  FailureOr<Value> hit =
      valueOf(node.create<EqualOp>({*index, node.constant(classes)}));
  if (failed(hit))
    return failure();
  node.setOutput(0, node.createTyped<CastOp>(stripEncoding(type), *hit));
  return success();
}

static LogicalResult mapReduceProd(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = NodeContext::typeOf(*x);
  if (!isa<FloatType>(type.getElementType()))
    return node.error() << "ReduceProd of " << type.getElementType()
                        << " is not supported (floats only)";
  SmallVector<int64_t> axes;
  if (FailureOr<SmallVector<int64_t>> given = node.getInts("axes");
      succeeded(given))
    axes = *given;
  FailureOr<SmallVector<NamedAttribute>> attrs =
      reduceAttrs(node, axes, type.getRank());
  if (failed(attrs))
    return failure();
  FailureOr<Value> magnitude = valueOf(node.create<AbsOp>(*x));
  if (succeeded(magnitude))
    magnitude = valueOf(node.create<LogOp>(*magnitude));
  if (succeeded(magnitude))
    magnitude = valueOf(node.create<ReduceSumOp>(*magnitude, *attrs));
  if (succeeded(magnitude))
    magnitude = valueOf(node.create<ExpOp>(*magnitude));
  Value zero = node.fill(RankedTensorType::get({}, type.getElementType()), 0);
  FailureOr<Value> negative = valueOf(node.create<LessOp>({*x, zero}));
  if (failed(magnitude) || failed(negative))
    return failure();
  // sign = 1 - 2 (count - 2 floor(count / 2)), count the negatives reduced.
  FailureOr<Value> count = valueOf(node.create<ReduceSumOp>(
      node.cast(*negative, type.getElementType()), *attrs));
  FailureOr<Value> sign = count;
  if (succeeded(sign))
    sign = scalar<ScalarMulOp>(node, *sign, 0.5);
  if (succeeded(sign))
    sign = valueOf(node.create<FloorOp>(*sign));
  if (succeeded(sign))
    sign = scalar<ScalarMulOp>(node, *sign, 2.0);
  if (succeeded(sign))
    sign = valueOf(node.create<SubOp>({*count, *sign}));
  if (succeeded(sign))
    sign = scalar<ScalarMulOp>(node, *sign, -2.0);
  if (succeeded(sign))
    sign = scalar<ScalarAddOp>(node, *sign, 1.0);
  if (failed(sign))
    return failure();
  return finish(node, valueOf(node.create<MulOp>({*magnitude, *sign})));
}

/// Mod: x - y * floor(x / y) (the divisor's sign, fmod 0) or x - y *
/// trunc(x / y) (the dividend's, fmod 1; trunc is floor or ceil by sign).
/// Integers are computed in f64, exact below 2^53, and cast back.
static LogicalResult mapMod(NodeContext &node) {
  if (failed(node.checkArity(2, 2, 1)))
    return failure();
  FailureOr<Value> x = node.input(0), y = node.input(1);
  if (failed(x) || failed(y))
    return failure();
  Type element = NodeContext::typeOf(*x).getElementType();
  bool fmod = node.getInt("fmod", 0) != 0;
  bool isFloat = isa<FloatType>(element);
  if (isFloat && !fmod)
    return node.error() << "fmod 0 needs integer operands (a float Mod "
                           "is fmod 1)";
  Type compute = isFloat ? element : node.b.getF64Type();
  Value a = node.cast(*x, compute), b = node.cast(*y, compute);
  FailureOr<Value> q = valueOf(node.create<DivOp>({a, b}));
  if (failed(q))
    return failure();
  FailureOr<Value> whole = valueOf(node.create<FloorOp>(*q));
  if (succeeded(whole) && fmod) {
    Value zero = node.fill(RankedTensorType::get({}, compute), 0.0);
    FailureOr<Value> negative = valueOf(node.create<LessOp>({*q, zero}));
    FailureOr<Value> up = valueOf(node.create<CeilOp>(*q));
    if (failed(negative) || failed(up))
      return failure();
    whole = valueOf(node.create<WhereOp>({*negative, *up, *whole}));
  }
  if (failed(whole))
    return failure();
  FailureOr<Value> product = valueOf(node.create<MulOp>({b, *whole}));
  if (failed(product))
    return failure();
  FailureOr<Value> rest = valueOf(node.create<SubOp>({a, *product}));
  if (failed(rest))
    return failure();
  node.setOutput(0, node.cast(*rest, element));
  return success();
}

/// Input 0, which must be a float tensor for the IEEE predicates.
static FailureOr<Value> floatInput(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (succeeded(x) && !isa<FloatType>(NodeContext::typeOf(*x).getElementType()))
    return node.error() << "x must be a float tensor, not "
                        << stripEncoding(NodeContext::typeOf(*x));
  return x;
}

static LogicalResult mapIsNaN(NodeContext &node) {
  FailureOr<Value> x = floatInput(node);
  if (failed(x))
    return failure();
  // Only NaN differs from itself.
  return finish(node, valueOf(node.create<NotEqualOp>({*x, *x})));
}

static LogicalResult mapIsInf(NodeContext &node) {
  FailureOr<Value> x = floatInput(node);
  if (failed(x))
    return failure();
  bool positive = node.getInt("detect_positive", 1) != 0;
  bool negative = node.getInt("detect_negative", 1) != 0;
  auto scalarType =
      RankedTensorType::get({}, NodeContext::typeOf(*x).getElementType());
  double inf = std::numeric_limits<double>::infinity();
  FailureOr<Value> v = *x;
  double target = positive ? inf : -inf;
  if (positive && negative)
    v = valueOf(node.create<AbsOp>(*x));
  else if (!positive && !negative)
    target = std::numeric_limits<double>::quiet_NaN(); // Equal to nothing.
  if (failed(v))
    return failure();
  return finish(
      node, valueOf(node.create<EqualOp>({*v, node.fill(scalarType, target)})));
}

static LogicalResult mapEyeLike(NodeContext &node) {
  FailureOr<Value> x = unaryInput(node);
  if (failed(x))
    return failure();
  RankedTensorType type = stripEncoding(NodeContext::typeOf(*x));
  if (type.getRank() != 2)
    return node.error() << "x must be 2-D, not " << type;
  Type element = type.getElementType();
  if (const onnx::AttributeProto *dtype = node.attr("dtype")) {
    element = elementType(dtype->i(), node.getContext());
    if (!element)
      return node.error() << "unsupported dtype "
                          << elementTypeName(dtype->i());
  }
  int64_t k = node.getInt("k", 0);
  int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
  SmallVector<int64_t> ones(rows * cols, 0);
  for (int64_t i = 0; i < rows; ++i)
    if (i + k >= 0 && i + k < cols)
      ones[i * cols + i + k] = 1;
  auto result = RankedTensorType::get(type.getShape(), element);
  DenseElementsAttr value =
      isa<FloatType>(element)
          ? denseOfDoubles(result,
                           SmallVector<double>(ones.begin(), ones.end()))
          : denseOfInts(result, ones);
  node.setOutput(0, node.createTyped<ConstantOp>(result, {},
                                                 {node.named("value", value)}));
  return success();
}

void mlir::oneflow::onnx_import::addCompositeLowerings(
    llvm::StringMap<Lowering> &table) {
  table["Sum"] = mapVariadic<AddOp>;
  table["Mean"] = mapVariadic<AddOp>;
  table["Max"] = mapVariadic<MaximumOp>;
  table["Min"] = mapVariadic<MinimumOp>;
  table["ReduceL1"] = [](NodeContext &n) {
    return mapSumComposite(n, Before::abs, After::none);
  };
  table["ReduceL2"] = [](NodeContext &n) {
    return mapSumComposite(n, Before::square, After::sqrt);
  };
  table["ReduceSumSquare"] = [](NodeContext &n) {
    return mapSumComposite(n, Before::square, After::none);
  };
  table["ReduceLogSum"] = [](NodeContext &n) {
    return mapSumComposite(n, Before::none, After::log);
  };
  table["ReduceLogSumExp"] = [](NodeContext &n) {
    return mapSumComposite(n, Before::exp, After::log);
  };
  table["HardSwish"] = mapHardSwish;
  table["Softsign"] = mapSoftsign;
  table["Celu"] = mapCelu;
  table["ThresholdedRelu"] = mapThresholdedRelu;
  table["PRelu"] = mapPRelu;
  table["Shrink"] = mapShrink;
  table["Hardmax"] = mapHardmax;
  table["Mod"] = mapMod;
  table["ReduceProd"] = mapReduceProd;
  table["IsNaN"] = mapIsNaN;
  table["IsInf"] = mapIsInf;
  table["EyeLike"] = mapEyeLike;
}
