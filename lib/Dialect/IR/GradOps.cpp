//===- GradOps.cpp - Backward ops of the gradient rules -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each backward op infers its result from the forward op's rule: the
// convolution and pool gradients rebuild the forward output type from the
// given input or weight shape and require `dy` to have it.
//
//===----------------------------------------------------------------------===//

#include "BatchStatistics.h"
#include "WindowShapes.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Fails unless `dy` has the forward op's output type `expected`.
static LogicalResult checkGradType(std::optional<Location> loc, StringRef name,
                                   Type dy, RankedTensorType expected) {
  auto type = cast<RankedTensorType>(dy);
  if (type.getElementType() != expected.getElementType() ||
      failed(verifyCompatibleShape(type.getShape(), expected.getShape())))
    return emitInferError(loc, name)
           << "dy " << stripEncoding(type) << " differs from the forward "
           << "result " << expected;
  return success();
}

/// Fails unless a normalization gradient's `mean` and `invVariance` have
/// type `stats` and its `gamma` type `params`; `perChannel`: the message
/// says what batch norm's shapes hold.
static LogicalResult checkStatistics(std::optional<Location> loc,
                                     StringRef name, Value mean,
                                     Value invVariance, RankedTensorType stats,
                                     Value gamma, RankedTensorType params,
                                     bool perChannel) {
  std::tuple<StringRef, Value, RankedTensorType> operands[] = {
      {"mean", mean, stats},
      {"inv_variance", invVariance, stats},
      {"gamma", gamma, params}};
  for (auto [what, value, want] : operands) {
    auto t = stripEncoding(value.getType());
    if (t.getElementType() != want.getElementType() ||
        failed(verifyCompatibleShape(t, want)))
      return emitInferError(loc, name)
             << what << " " << t << " must be " << want
             << (!perChannel           ? ""
                 : want.getRank() == 1 ? " (one value per channel)"
                                       : " (one value per group and channel)");
  }
  return success();
}

/// The 4-D shape attribute `what`, checked.
static FailureOr<RankedTensorType> shapeAttr(std::optional<Location> loc,
                                             StringRef name, StringRef what,
                                             ArrayRef<int64_t> shape,
                                             Type element) {
  if (shape.size() != 4 || llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitInferError(loc, name)
           << what << " needs 4 sizes of 0 or more, got " << shape.size()
           << " values";
  return RankedTensorType::get(shape, element);
}

LogicalResult Conv2DBackwardDataOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto dy = cast<RankedTensorType>(adaptor.getDy().getType());
  FailureOr<RankedTensorType> x = shapeAttr(
      loc, name, "input_shape", adaptor.getInputShape(), dy.getElementType());
  if (failed(x))
    return failure();
  FailureOr<RankedTensorType> y = inferConv(
      loc, name,
      {*x, stripEncoding(adaptor.getWeight().getType()), RankedTensorType(),
       adaptor.getStrides(), adaptor.getPads(), adaptor.getDilations(),
       static_cast<int64_t>(adaptor.getGroups())});
  if (failed(y) || failed(checkGradType(loc, name, dy, *y)))
    return failure();
  types.push_back(*x);
  return success();
}

LogicalResult Conv2DBackwardFilterOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto x = stripEncoding(adaptor.getX().getType());
  FailureOr<RankedTensorType> w = shapeAttr(
      loc, name, "weight_shape", adaptor.getWeightShape(), x.getElementType());
  if (failed(w))
    return failure();
  FailureOr<RankedTensorType> y = inferConv(
      loc, name,
      {x, *w, RankedTensorType(), adaptor.getStrides(), adaptor.getPads(),
       adaptor.getDilations(), static_cast<int64_t>(adaptor.getGroups())});
  if (failed(y) || failed(checkGradType(loc, name, adaptor.getDy().getType(), *y)))
    return failure();
  types.push_back(*w);
  return success();
}

/// A pool gradient's result: x's type, once dy has the pool's output type.
static LogicalResult inferPoolGrad(std::optional<Location> loc, StringRef name,
                                   Type xType, Type dy, const Window &window,
                                   SmallVectorImpl<Type> &types) {
  auto x = stripEncoding(xType);
  FailureOr<RankedTensorType> y = inferPool(loc, name, x, window);
  if (failed(y) || failed(checkGradType(loc, name, dy, *y)))
    return failure();
  types.push_back(x);
  return success();
}

LogicalResult MaxPool2DGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  Window window{adaptor.getKernelSize(), adaptor.getStrides(),
                adaptor.getPads(), adaptor.getDilations(),
                adaptor.getCeilMode()};
  return inferPoolGrad(loc, getOperationName(), adaptor.getX().getType(),
                       adaptor.getDy().getType(), window, types);
}

LogicalResult AvgPool2DGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  static const int64_t unitDilations[] = {1, 1};
  Window window{adaptor.getKernelSize(), adaptor.getStrides(),
                adaptor.getPads(), unitDilations, adaptor.getCeilMode()};
  return inferPoolGrad(loc, getOperationName(), adaptor.getX().getType(),
                       adaptor.getDy().getType(), window, types);
}

LogicalResult ResampleGradOp::inferReturnTypes(MLIRContext *,
                                               std::optional<Location> loc,
                                               Adaptor adaptor,
                                               SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto x = stripEncoding(adaptor.getX().getType());
  auto dy = stripEncoding(adaptor.getDy().getType());
  if (dy.getRank() != x.getRank())
    return emitInferError(loc, name)
           << "dy " << dy << " and x " << x << " differ in rank";
  FailureOr<RankedTensorType> y = inferResample(
      loc, name, x, dy.getShape().drop_front(2), adaptor.getMode());
  if (failed(y) || failed(checkGradType(loc, name, dy, *y)))
    return failure();
  types.push_back(x);
  return success();
}

LogicalResult BatchNormGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto x = stripEncoding(adaptor.getX().getType());
  if (x.getRank() < 2)
    return emitInferError(loc, name)
           << "needs an input of rank 2 or more, got rank " << x.getRank();
  if (failed(checkAxis(loc, name, "axis", adaptor.getAxis(), x.getRank())))
    return failure();
  if (failed(checkGradType(loc, name, adaptor.getDy().getType(), x)))
    return failure();
  if (adaptor.getEpsilon().convertToDouble() <= 0)
    return emitInferError(loc, name) << "epsilon must be positive";
  FailureOr<RankedTensorType> grouped = inferBatchStatistics(
      loc, name, x, normalizeAxis(adaptor.getAxis(), x.getRank()),
      adaptor.getStatisticsGroups(), /*training=*/true);
  if (failed(grouped))
    return failure();
  RankedTensorType stats = *grouped;
  auto perChannel =
      RankedTensorType::get(stats.getShape().take_back(), x.getElementType());
  if (failed(checkStatistics(loc, name, adaptor.getMean(),
                             adaptor.getInvVariance(), stats,
                             adaptor.getGamma(), perChannel,
                             /*perChannel=*/true)))
    return failure();
  types.push_back(x);
  types.push_back(perChannel);
  types.push_back(perChannel);
  return success();
}

LogicalResult LayerNormGradOp::inferReturnTypes(MLIRContext *,
                                                std::optional<Location> loc,
                                                Adaptor adaptor,
                                                SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto x = stripEncoding(adaptor.getX().getType());
  int64_t rank = x.getRank();
  if (failed(checkAxis(loc, name, "begin_norm_axis", adaptor.getBeginNormAxis(),
                       rank)) ||
      failed(checkGradType(loc, name, adaptor.getDy().getType(), x)))
    return failure();
  if (!(adaptor.getEpsilon().convertToDouble() >= 0))
    return emitInferError(loc, name) << "epsilon must not be negative";
  int64_t normAxis = normalizeAxis(adaptor.getBeginNormAxis(), rank);
  auto stats = RankedTensorType::get(x.getShape().take_front(normAxis),
                                     x.getElementType());
  auto params = RankedTensorType::get(x.getShape().drop_front(normAxis),
                                      x.getElementType());
  if (failed(checkStatistics(loc, name, adaptor.getMean(),
                             adaptor.getInvVariance(), stats,
                             adaptor.getGamma(), params,
                             /*perChannel=*/false)))
    return failure();
  types.push_back(x);
  types.push_back(params);
  types.push_back(params);
  return success();
}

LogicalResult SoftmaxGradOp::inferReturnTypes(MLIRContext *,
                                              std::optional<Location> loc,
                                              Adaptor adaptor,
                                              SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto y = stripEncoding(adaptor.getY().getType());
  if (failed(checkAxis(loc, name, "axis", adaptor.getAxis(), y.getRank())) ||
      failed(checkGradType(loc, name, adaptor.getDy().getType(), y)))
    return failure();
  types.push_back(y);
  return success();
}

LogicalResult GatherGradOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  auto dy = stripEncoding(adaptor.getDy().getType());
  auto indices = stripEncoding(adaptor.getIndices().getType());
  int64_t xRank = dy.getRank() - indices.getRank() + 1;
  if (xRank < 1)
    return emitInferError(loc, name)
           << "dy of rank " << dy.getRank() << " cannot hold indices of rank "
           << indices.getRank();
  if (failed(checkAxis(loc, name, "axis", adaptor.getAxis(), xRank)))
    return failure();
  int64_t axis = normalizeAxis(adaptor.getAxis(), xRank);
  ArrayRef<int64_t> indexAxes =
      dy.getShape().slice(axis, indices.getRank());
  if (failed(verifyCompatibleShape(indexAxes, indices.getShape())))
    return emitInferError(loc, name)
           << "dy " << dy << " does not hold the indices' shape "
           << indices << " at axis " << axis;
  int64_t dimSize = adaptor.getDimSizeAttr().getInt();
  if (dimSize < 0)
    return emitInferError(loc, name)
           << "dim_size must not be negative, got " << dimSize;
  SmallVector<int64_t> shape(dy.getShape().take_front(axis));
  shape.push_back(dimSize);
  llvm::append_range(shape, dy.getShape().drop_front(axis + indices.getRank()));
  types.push_back(RankedTensorType::get(shape, dy.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SBP signatures
//===----------------------------------------------------------------------===//

void Conv2DBackwardDataOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // (N, F) x (F, C) -> (N, C) per window: the batch is parallel, and with
  // one group the filters are summed over and the channels parallel.
  SbpDims dims(*this);
  int64_t batch = dims.addDim(SbpDimKind::parallel);
  dims.mapOperandAxis(0, 0, batch);
  dims.mapResultAxis(0, 0, batch);
  if (getGroups() == 1) {
    int64_t filters = dims.addDim(SbpDimKind::reduction);
    dims.mapOperandAxis(0, 1, filters);
    dims.mapOperandAxis(1, 0, filters);
    int64_t channels = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(1, 1, channels);
    dims.mapResultAxis(0, 1, channels);
  }
  dims.addPartials("PB,BP");
  dims.derive(meshAxisSize, signatures);
}

void Conv2DBackwardFilterOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // The batch is summed over; with one group the filters and channels are
  // parallel.
  SbpDims dims(*this);
  int64_t batch = dims.addDim(SbpDimKind::reduction);
  dims.mapOperandAxis(0, 0, batch);
  dims.mapOperandAxis(1, 0, batch);
  if (getGroups() == 1) {
    int64_t filters = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(1, 1, filters);
    dims.mapResultAxis(0, 0, filters);
    int64_t channels = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(0, 1, channels);
    dims.mapResultAxis(0, 1, channels);
  }
  dims.addPartials("PB,BP");
  dims.derive(meshAxisSize, signatures);
}

/// N and C are parallel on x, dy and dx; the pooled axes are never split.
static void derivePoolGradSbp(Operation *op, int64_t meshAxisSize,
                              SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(op);
  for (int64_t axis = 0; axis < 2; ++axis) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapOperandAxis(0, axis, dim);
    dims.mapOperandAxis(1, axis, dim);
    dims.mapResultAxis(0, axis, dim);
  }
  dims.derive(meshAxisSize, signatures);
}

void MaxPool2DGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolGradSbp(*this, meshAxisSize, signatures);
}

void AvgPool2DGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolGradSbp(*this, meshAxisSize, signatures);
}

void ResampleGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolGradSbp(*this, meshAxisSize, signatures);
}

void BatchNormGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // With statistics groups the batch may be split in whole groups: each
  // device's dgamma and dbeta then sum its samples only (partial).
  SbpDims dims(*this);
  int64_t rank = stripEncoding(getX().getType()).getRank();
  int64_t axis = normalizeAxis(getAxis(), rank);
  int64_t groups = getStatisticsGroups();
  bool grouped = groups > 1;
  if (grouped && groups % meshAxisSize == 0 && axis != 0) {
    int64_t batch = dims.addDim(SbpDimKind::reduction);
    for (unsigned i = 0; i < 4; ++i)
      dims.mapOperandAxis(i, 0, batch);
    dims.mapResultAxis(0, 0, batch);
  }
  int64_t channels = dims.addDim(SbpDimKind::parallel);
  dims.mapOperandAxis(0, axis, channels);
  dims.mapOperandAxis(1, axis, channels);
  dims.mapOperandAxis(2, grouped ? 1 : 0, channels);
  dims.mapOperandAxis(3, grouped ? 1 : 0, channels);
  dims.mapOperandAxis(4, 0, channels);
  dims.mapResultAxis(0, axis, channels);
  dims.mapResultAxis(1, 0, channels);
  dims.mapResultAxis(2, 0, channels);
  dims.derive(meshAxisSize, signatures);
}

void LayerNormGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // Rows (the axes before begin_norm_axis) are parallel in dx and summed
  // over in dgamma and dbeta; the normalized axes are never split.
  SbpDims dims(*this);
  int64_t rank = stripEncoding(getX().getType()).getRank();
  int64_t normAxis = normalizeAxis(getBeginNormAxis(), rank);
  for (int64_t axis = 0; axis < rank; ++axis) {
    bool row = axis < normAxis;
    int64_t dim =
        dims.addDim(row ? SbpDimKind::reduction : SbpDimKind::broadcastOnly);
    for (unsigned i : {0u, 1u})
      dims.mapOperandAxis(i, axis, dim);
    dims.mapResultAxis(0, axis, dim);
    if (row) {
      dims.mapOperandAxis(2, axis, dim);
      dims.mapOperandAxis(3, axis, dim);
    } else {
      dims.mapOperandAxis(4, axis - normAxis, dim);
      dims.mapResultAxis(1, axis - normAxis, dim);
      dims.mapResultAxis(2, axis - normAxis, dim);
    }
  }
  dims.addPartials("BPBBB");
  dims.derive(meshAxisSize, signatures);
}

void SoftmaxGradOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  // Rows are parallel; the softmax axis is summed over within a row, so
  // it is never split.
  SbpDims dims(*this);
  int64_t rank = stripEncoding(getY().getType()).getRank();
  int64_t softmaxAxis = normalizeAxis(getAxis(), rank);
  for (int64_t axis = 0; axis < rank; ++axis) {
    int64_t dim = dims.addDim(axis == softmaxAxis ? SbpDimKind::broadcastOnly
                                                  : SbpDimKind::parallel);
    dims.mapOperandAxis(0, axis, dim);
    dims.mapOperandAxis(1, axis, dim);
    dims.mapResultAxis(0, axis, dim);
  }
  dims.addPartials("BP");
  dims.derive(meshAxisSize, signatures);
}

void GatherGradOp::getSbpSignatures(int64_t meshAxisSize,
                                    SmallVectorImpl<SbpSignature> &signatures) {
  // The transpose of gather's rule: index positions are summed over (a
  // partial table), the table's rows are parallel in the result only (each
  // device adds the rows it holds), the other axes of x are parallel.
  SbpDims dims(*this);
  int64_t dyRank = stripEncoding(getDy().getType()).getRank();
  int64_t indexRank = stripEncoding(getIndices().getType()).getRank();
  int64_t xRank = dyRank - indexRank + 1;
  int64_t axis = normalizeAxis(getAxis(), xRank);
  for (int64_t i = 0; i < indexRank; ++i) {
    int64_t dim = dims.addDim(SbpDimKind::reduction);
    dims.mapOperandAxis(0, axis + i, dim);
    dims.mapOperandAxis(1, i, dim);
  }
  for (int64_t j = 0; j < xRank; ++j) {
    int64_t dim = dims.addDim(SbpDimKind::parallel);
    dims.mapResultAxis(0, j, dim);
    if (j != axis)
      dims.mapOperandAxis(0, j < axis ? j : j + indexRank - 1, dim);
  }
  dims.addPartials("PB");
  dims.derive(meshAxisSize, signatures);
}
