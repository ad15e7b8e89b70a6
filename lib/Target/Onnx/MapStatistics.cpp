//===- MapStatistics.cpp - ONNX ops over the spatial axes -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// | ONNX                  | oneflow                                        |
// |-----------------------|------------------------------------------------|
// | GlobalMaxPool         | reduce_max over the spatial axes, kept         |
// | InstanceNormalization | (x - mean) * rsqrt(var + eps) * scale + bias,  |
// |                       | mean and (population) var over the spatial     |
// |                       | axes of each sample and channel                |
// | LRN                   | x / (bias + alpha / size * S)^beta, S the sum  |
// |                       | of x^2 over a window of `size` channels (zero- |
// |                       | padded channel axis, `size` slices added)      |
// | MeanVariance-         | (x - mean) / (sqrt(var) + 1e-9) over `axes`    |
// | Normalization         | (default 0, 2, 3), population var              |
//
//===----------------------------------------------------------------------===//

#include "Importer.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// Input 0, of rank 3 or more (N, C, spatial...), and its spatial axes.
static FailureOr<std::pair<Value, llvm::SmallVector<int64_t>>>
spatialInput(NodeContext &node) {
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = NodeContext::typeOf(*x).getRank();
  if (rank < 3)
    return node.error() << "needs an input of rank 3 or more (N, C, "
                           "spatial axes), not "
                        << rank;
  llvm::SmallVector<int64_t> axes;
  for (int64_t d = 2; d < rank; ++d)
    axes.push_back(d);
  return std::make_pair(*x, axes);
}

static LogicalResult mapGlobalMaxPool(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  auto in = spatialInput(node);
  if (failed(in))
    return failure();
  FailureOr<Value> y = valueOf(node.create<ReduceMaxOp>(
      in->first, {node.named("axes", node.b.getDenseI64ArrayAttr(in->second)),
                  node.named("keepdims", node.b.getUnitAttr())}));
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

/// x - mean(x) and the population variance of x over `axes` (kept).
static FailureOr<std::pair<Value, Value>>
centeredAndVariance(NodeContext &node, Value x, llvm::ArrayRef<int64_t> axes) {
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("axes", node.b.getDenseI64ArrayAttr(axes)),
      node.named("keepdims", node.b.getUnitAttr())};
  FailureOr<Value> mean = valueOf(node.create<ReduceMeanOp>(x, attrs));
  FailureOr<Value> centered =
      succeeded(mean) ? valueOf(node.create<SubOp>({x, *mean})) : mean;
  FailureOr<Value> square =
      succeeded(centered) ? valueOf(node.create<MulOp>({*centered, *centered}))
                          : centered;
  FailureOr<Value> var =
      succeeded(square) ? valueOf(node.create<ReduceMeanOp>(*square, attrs))
                        : square;
  if (failed(var))
    return failure();
  return std::make_pair(*centered, *var);
}

static LogicalResult mapMeanVarianceNormalization(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  FailureOr<Value> x = node.input(0);
  if (failed(x))
    return failure();
  int64_t rank = NodeContext::typeOf(*x).getRank();
  llvm::SmallVector<int64_t> given = {0, 2, 3}, axes;
  if (FailureOr<llvm::SmallVector<int64_t>> a = node.getInts("axes");
      succeeded(a))
    given = *a;
  for (int64_t axis : given) {
    FailureOr<int64_t> normalized = normalizeAxis(node, axis, rank, "axes");
    if (failed(normalized))
      return failure();
    axes.push_back(*normalized);
  }
  auto stats = centeredAndVariance(node, *x, axes);
  if (failed(stats))
    return failure();
  // The spec's function: the standard deviation plus 1e-9 divides.
  FailureOr<Value> std = valueOf(node.create<SqrtOp>(stats->second));
  FailureOr<Value> denom =
      succeeded(std)
          ? valueOf(node.create<ScalarAddOp>(
                *std, {node.named("scalar", node.b.getF64FloatAttr(1e-9))}))
          : std;
  FailureOr<Value> y = succeeded(denom)
                           ? valueOf(node.create<DivOp>({stats->first, *denom}))
                           : denom;
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

static LogicalResult mapInstanceNormalization(NodeContext &node) {
  if (failed(node.checkArity(3, 3, 1)))
    return failure();
  auto in = spatialInput(node);
  FailureOr<Value> scale = node.input(1), bias = node.input(2);
  if (failed(in) || failed(scale) || failed(bias))
    return failure();
  Value x = in->first;
  RankedTensorType type = stripEncoding(NodeContext::typeOf(x));
  double eps = node.getFloat("epsilon", 1e-5);
  auto stats = centeredAndVariance(node, x, in->second);
  if (failed(stats))
    return failure();
  FailureOr<Value> shifted = valueOf(node.create<ScalarAddOp>(
      stats->second, {node.named("scalar", node.b.getF64FloatAttr(eps))}));
  FailureOr<Value> inv =
      succeeded(shifted) ? valueOf(node.create<RsqrtOp>(*shifted)) : shifted;
  FailureOr<Value> normed =
      succeeded(inv) ? valueOf(node.create<MulOp>({stats->first, *inv})) : inv;
  if (failed(normed))
    return failure();
  // Scale and bias per channel: [C] as [C, 1, ...].
  llvm::SmallVector<int64_t> perChannel(type.getRank() - 1, 1);
  perChannel[0] = type.getDimSize(1);
  FailureOr<Value> scaled =
      valueOf(node.create<MulOp>({*normed, node.reshape(*scale, perChannel)}));
  FailureOr<Value> y = succeeded(scaled)
                           ? valueOf(node.create<AddOp>(
                                 {*scaled, node.reshape(*bias, perChannel)}))
                           : scaled;
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

static LogicalResult mapLRN(NodeContext &node) {
  if (failed(node.checkArity(1, 1, 1)))
    return failure();
  auto in = spatialInput(node);
  if (failed(in))
    return failure();
  Value x = in->first;
  RankedTensorType type = stripEncoding(NodeContext::typeOf(x));
  int64_t size = node.getInt("size", 0), channels = type.getDimSize(1);
  if (size < 1)
    return node.error() << "size must be positive, not " << size;
  double alpha = node.getFloat("alpha", 1e-4),
         beta = node.getFloat("beta", 0.75), bias = node.getFloat("bias", 1.0);
  FailureOr<Value> square = valueOf(node.create<MulOp>({x, x}));
  if (failed(square))
    return failure();
  // Channel c sums channels [c - (size - 1) / 2, c + ceil((size - 1) / 2)].
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  llvm::SmallVector<Value> parts;
  llvm::SmallVector<int64_t> padShape(type.getShape());
  for (int64_t n : {before, int64_t(-1), after}) {
    if (n == -1) {
      parts.push_back(*square);
      continue;
    }
    if (n == 0)
      continue;
    padShape[1] = n;
    parts.push_back(
        node.fill(RankedTensorType::get(padShape, type.getElementType()), 0));
  }
  FailureOr<Value> padded =
      parts.size() == 1
          ? FailureOr<Value>(parts.front())
          : valueOf(node.create<ConcatOp>(
                parts, {node.named("axis", node.b.getI64IntegerAttr(1))}));
  FailureOr<Value> sum = failure();
  for (int64_t k = 0; succeeded(padded) && k < size; ++k) {
    FailureOr<Value> window = node.sliceAlong(*padded, 1, k, k + channels);
    if (failed(window))
      return failure();
    sum = k == 0 ? window : valueOf(node.create<AddOp>({*sum, *window}));
    if (failed(sum))
      return failure();
  }
  if (failed(sum))
    return failure();
  auto scalar = [&](auto tag, Value v, double c) {
    using OpTy = decltype(tag);
    return valueOf(node.create<OpTy>(
        v, {node.named("scalar", node.b.getF64FloatAttr(c))}));
  };
  FailureOr<Value> scaled = scalar(ScalarMulOp(), *sum, alpha / size);
  FailureOr<Value> shifted =
      succeeded(scaled) ? scalar(ScalarAddOp(), *scaled, bias) : scaled;
  FailureOr<Value> denom =
      succeeded(shifted) ? scalar(ScalarPowOp(), *shifted, beta) : shifted;
  FailureOr<Value> y =
      succeeded(denom) ? valueOf(node.create<DivOp>({x, *denom})) : denom;
  if (failed(y))
    return failure();
  node.setOutput(0, *y);
  return success();
}

void mlir::oneflow::onnx_import::addStatisticsLowerings(
    llvm::StringMap<Lowering> &table) {
  table["GlobalMaxPool"] = mapGlobalMaxPool;
  table["InstanceNormalization"] = mapInstanceNormalization;
  table["LRN"] = mapLRN;
  table["MeanVarianceNormalization"] = mapMeanVarianceNormalization;
}
