//===- NNOps.cpp - Losses, normalization, dropout -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "BatchStatistics.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

using namespace mlir;
using namespace mlir::oneflow;

LogicalResult SparseSoftmaxCrossEntropyOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  auto logits = cast<RankedTensorType>(adaptor.getLogits().getType());
  auto labels = cast<RankedTensorType>(adaptor.getLabels().getType());
  if (logits.getRank() < 1 || labels.getRank() != logits.getRank() - 1)
    return emitInferError(loc, getOperationName())
           << "labels must have one axis fewer than logits (the class "
              "axis), got ranks "
           << labels.getRank() << " and " << logits.getRank();
  if (failed(verifyCompatibleShape(labels.getShape(),
                                   logits.getShape().drop_back())))
    return emitInferError(loc, getOperationName())
           << "labels " << labels << " do not match the batch axes of logits "
           << logits;
  types.push_back(stripEncoding(logits));
  types.push_back(RankedTensorType::get(logits.getShape().drop_back(),
                                        logits.getElementType()));
  return success();
}

/// Checks that a normalization parameter has `shape` and `element` type.
static LogicalResult checkParam(std::optional<Location> loc, StringRef opName,
                                StringRef what, Type param,
                                ArrayRef<int64_t> shape, Type element) {
  auto type = cast<RankedTensorType>(param);
  if (type.getElementType() != element ||
      failed(verifyCompatibleShape(type.getShape(), shape))) {
    auto diag = emitInferError(loc, opName)
                << what << " has type " << type << " but needs shape [";
    llvm::interleaveComma(shape, diag);
    return diag << "] of " << element;
  }
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  int64_t rank = x.getRank();
  StringRef name = getOperationName();
  if (failed(checkAxis(loc, name, "begin_norm_axis", adaptor.getBeginNormAxis(),
                       rank)) ||
      failed(checkAxis(loc, name, "begin_params_axis",
                       adaptor.getBeginParamsAxis(), rank)))
    return failure();
  int64_t normAxis = normalizeAxis(adaptor.getBeginNormAxis(), rank);
  int64_t paramsAxis = normalizeAxis(adaptor.getBeginParamsAxis(), rank);
  ArrayRef<int64_t> paramShape = x.getShape().drop_front(paramsAxis);
  if (failed(checkParam(loc, name, "gamma", adaptor.getGamma().getType(),
                        paramShape, x.getElementType())) ||
      failed(checkParam(loc, name, "beta", adaptor.getBeta().getType(),
                        paramShape, x.getElementType())))
    return failure();
  auto stats = RankedTensorType::get(x.getShape().take_front(normAxis),
                                     x.getElementType());
  types.push_back(stripEncoding(x));
  types.push_back(stats);
  types.push_back(stats);
  return success();
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  StringRef name = getOperationName();
  if (x.getRank() < 2)
    return emitInferError(loc, name)
           << "needs an input of rank 2 or more, got rank " << x.getRank();
  if (failed(checkAxis(loc, name, "axis", adaptor.getAxis(), x.getRank())))
    return failure();
  int64_t axis = normalizeAxis(adaptor.getAxis(), x.getRank());
  SmallVector<int64_t> channels = {x.getDimSize(axis)};
  Type element = x.getElementType();
  if (failed(checkParam(loc, name, "gamma", adaptor.getGamma().getType(),
                        channels, element)) ||
      failed(checkParam(loc, name, "beta", adaptor.getBeta().getType(),
                        channels, element)) ||
      failed(checkParam(loc, name, "moving_mean",
                        adaptor.getMovingMean().getType(), channels,
                        element)) ||
      failed(checkParam(loc, name, "moving_variance",
                        adaptor.getMovingVariance().getType(), channels,
                        element)))
    return failure();
  double momentum = adaptor.getMomentum().convertToDouble();
  if (momentum < 0 || momentum > 1)
    return emitInferError(loc, name)
           << "momentum " << formatDouble(momentum) << " is outside [0, 1]";
  if (adaptor.getEpsilon().convertToDouble() <= 0)
    return emitInferError(loc, name) << "epsilon must be positive";
  FailureOr<RankedTensorType> stats = inferBatchStatistics(
      loc, name, x, axis, adaptor.getStatisticsGroups(), adaptor.getTraining());
  if (failed(stats))
    return failure();
  types.push_back(stripEncoding(x));
  types.push_back(*stats);
  types.push_back(*stats);
  return success();
}

LogicalResult DropoutOp::inferReturnTypes(MLIRContext *ctx,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  double rate = adaptor.getRate().convertToDouble();
  if (rate < 0 || rate >= 1)
    return emitInferError(loc, getOperationName())
           << "rate " << formatDouble(rate) << " is outside [0, 1)";
  types.push_back(stripEncoding(x));
  types.push_back(
      RankedTensorType::get(x.getShape(), IntegerType::get(ctx, 1)));
  return success();
}

std::optional<int64_t> mlir::oneflow::getNormalizedAxis(Operation *op) {
  int64_t axis;
  if (auto softmax = dyn_cast<SoftmaxOp>(op))
    axis = softmax.getAxis();
  else if (auto logSoftmax = dyn_cast<LogSoftmaxOp>(op))
    axis = logSoftmax.getAxis();
  else if (isa<SparseSoftmaxCrossEntropyOp>(op))
    axis = -1;
  else
    return std::nullopt;
  return normalizeAxis(
      axis, cast<RankedTensorType>(op->getResult(0).getType()).getRank());
}

//===----------------------------------------------------------------------===//
// SBP signatures
//===----------------------------------------------------------------------===//

/// Every axis is parallel, the normalized one too: oneflow-expand-split-
/// softmax runs a split normalized axis as max and sum reductions with an
/// all-reduce each (Megatron's vocabulary-parallel softmax).
static void deriveSoftmaxSbp(Operation *op, int64_t axis, int64_t meshAxisSize,
                             SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims = SbpDims::elementwise(op);
  dims.derive(meshAxisSize, signatures);
}

void SoftmaxOp::getSbpSignatures(int64_t meshAxisSize,
                                 SmallVectorImpl<SbpSignature> &signatures) {
  deriveSoftmaxSbp(*this, getAxis(), meshAxisSize, signatures);
}

void LogSoftmaxOp::getSbpSignatures(int64_t meshAxisSize,
                                    SmallVectorImpl<SbpSignature> &signatures) {
  deriveSoftmaxSbp(*this, getAxis(), meshAxisSize, signatures);
}

void SparseSoftmaxCrossEntropyOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // Sample axes are parallel. A split class axis gives split probabilities
  // and a partial loss, with the labels whole (OneFlow's model-split
  // variant); oneflow-expand-split-softmax runs it as max and sum
  // reductions and a pick of each label's logit from the piece holding it.
  SbpDims dims(*this);
  int64_t rank = cast<RankedTensorType>(getLogits().getType()).getRank();
  for (int64_t axis = 0; axis + 1 < rank; ++axis) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(0, axis, dim);
    dims.mapOperandAxis(1, axis, dim);
    dims.mapResultAxis(0, axis, dim);
    dims.mapResultAxis(1, axis, dim);
  }
  int64_t classes = dims.addDim(SbpDimKind::reduction);
  dims.mapOperandAxis(0, rank - 1, classes);
  dims.mapResultAxis(0, rank - 1, classes);
  dims.derive(meshAxisSize, signatures);
}

void LayerNormOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  // Axes before both begin axes are parallel; gamma and beta index the axes
  // from begin_params_axis, mean and inv_variance those before
  // begin_norm_axis.
  SbpDims dims(*this);
  int64_t rank = cast<RankedTensorType>(getX().getType()).getRank();
  int64_t normAxis = normalizeAxis(getBeginNormAxis(), rank);
  int64_t paramsAxis = normalizeAxis(getBeginParamsAxis(), rank);
  for (int64_t axis = 0; axis < rank; ++axis) {
    bool parallel = axis < normAxis && axis < paramsAxis;
    int64_t dim = dims.addDim(parallel ? SbpDimKind::parallel
                                       : SbpDimKind::broadcastOnly);
    dims.mapOperandAxis(0, axis, dim);
    dims.mapResultAxis(0, axis, dim);
    if (axis < normAxis) {
      dims.mapResultAxis(1, axis, dim);
      dims.mapResultAxis(2, axis, dim);
    }
  }
  dims.derive(meshAxisSize, signatures);
}

void BatchNormOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  // The channels are parallel: x, y S(axis), the parameters and statistics
  // S(0). In inference the batch is parallel too (x and y S(0), the rest
  // B); in training it is not, since the batch statistics cover the whole
  // batch (a shard's statistics would differ from one device's).
  // With statistics groups the batch is parallel in training too, in whole
  // groups: each group's statistics are its own (G x C, split with x).
  SbpDims dims(*this);
  int64_t rank = cast<RankedTensorType>(getX().getType()).getRank();
  if (rank == 0)
    return;
  int64_t axis = normalizeAxis(getAxis(), rank);
  int64_t groups = getStatisticsGroups();
  bool grouped = getTraining() && groups > 1;
  if ((!getTraining() || (grouped && groups % meshAxisSize == 0)) &&
      axis != 0) {
    int64_t batch = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(0, 0, batch);
    dims.mapResultAxis(0, 0, batch);
    if (grouped) {
      dims.mapResultAxis(1, 0, batch);
      dims.mapResultAxis(2, 0, batch);
    }
  }
  int64_t channels = dims.addDim(SbpDimKind::parallel);
  dims.mapOperandAxis(0, axis, channels);
  dims.mapResultAxis(0, axis, channels);
  for (unsigned i = 1; i < 5; ++i)
    dims.mapOperandAxis(i, 0, channels);
  dims.mapResultAxis(1, grouped ? 1 : 0, channels);
  dims.mapResultAxis(2, grouped ? 1 : 0, channels);
  dims.derive(meshAxisSize, signatures);
}
