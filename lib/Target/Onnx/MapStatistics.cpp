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

static LogicalResult mapInstanceNormalization(NodeContext &node) {
  if (failed(node.checkArity(3, 3, 1)))
    return failure();
  auto in = spatialInput(node);
  FailureOr<Value> scale = node.input(1), bias = node.input(2);
  if (failed(in) || failed(scale) || failed(bias))
    return failure();
  Value x = in->first;
  RankedTensorType type = stripEncoding(NodeContext::typeOf(x));
  llvm::SmallVector<NamedAttribute> attrs{
      node.named("axes", node.b.getDenseI64ArrayAttr(in->second)),
      node.named("keepdims", node.b.getUnitAttr())};
  double eps = node.getFloat("epsilon", 1e-5);
  FailureOr<Value> mean = valueOf(node.create<ReduceMeanOp>(x, attrs));
  FailureOr<Value> centered =
      succeeded(mean) ? valueOf(node.create<SubOp>({x, *mean})) : mean;
  FailureOr<Value> square =
      succeeded(centered) ? valueOf(node.create<MulOp>({*centered, *centered}))
                          : centered;
  FailureOr<Value> var =
      succeeded(square) ? valueOf(node.create<ReduceMeanOp>(*square, attrs))
                        : square;
  FailureOr<Value> shifted =
      succeeded(var)
          ? valueOf(node.create<ScalarAddOp>(
                *var, {node.named("scalar", node.b.getF64FloatAttr(eps))}))
          : var;
  FailureOr<Value> inv =
      succeeded(shifted) ? valueOf(node.create<RsqrtOp>(*shifted)) : shifted;
  FailureOr<Value> normed =
      succeeded(inv) ? valueOf(node.create<MulOp>({*centered, *inv})) : inv;
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

void mlir::oneflow::onnx_import::addStatisticsLowerings(
    llvm::StringMap<Lowering> &table) {
  table["GlobalMaxPool"] = mapGlobalMaxPool;
  table["InstanceNormalization"] = mapInstanceNormalization;
}
