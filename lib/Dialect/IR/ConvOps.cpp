//===- ConvOps.cpp - Convolution and pooling ------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "WindowShapes.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Checks an attribute's length and that its values are at least `min`.
static LogicalResult checkList(std::optional<Location> loc, StringRef opName,
                               StringRef what, ArrayRef<int64_t> values,
                               size_t size, int64_t min) {
  if (values.size() != size)
    return emitInferError(loc, opName)
           << what << " needs " << size << " values, got " << values.size();
  for (int64_t v : values)
    if (v < min)
      return emitInferError(loc, opName)
             << what << " value " << v << " is below " << min;
  return success();
}

LogicalResult mlir::oneflow::inferSpatial(std::optional<Location> loc, StringRef opName,
                                  RankedTensorType x, const Window &w,
                                  SmallVectorImpl<int64_t> &outHW) {
  if (failed(checkList(loc, opName, "kernel_size", w.kernel, 2, 1)) ||
      failed(checkList(loc, opName, "strides", w.strides, 2, 1)) ||
      failed(checkList(loc, opName, "pads", w.pads, 4, 0)) ||
      failed(checkList(loc, opName, "dilations", w.dilations, 2, 1)))
    return failure();
  for (int i = 0; i < 2; ++i) {
    int64_t in = x.getDimSize(2 + i);
    if (ShapedType::isDynamic(in)) {
      outHW.push_back(ShapedType::kDynamic);
      continue;
    }
    int64_t padded = in + w.pads[i] + w.pads[i + 2];
    int64_t span = w.dilations[i] * (w.kernel[i] - 1) + 1;
    if (padded < span)
      return emitInferError(loc, opName)
             << "window of " << span << " does not fit the padded input of "
             << padded << " on spatial axis " << i;
    int64_t steps = padded - span;
    int64_t out = (w.ceilMode ? (steps + w.strides[i] - 1) / w.strides[i]
                              : steps / w.strides[i]) +
                  1;
    // With ceil_mode, the last window must start inside the input or the
    // leading padding.
    if (w.ceilMode && (out - 1) * w.strides[i] >= in + w.pads[i])
      --out;
    outHW.push_back(out);
  }
  return success();
}

LogicalResult mlir::oneflow::checkNCHW(std::optional<Location> loc, StringRef opName,
                               RankedTensorType x) {
  if (x.getRank() != 4)
    return emitInferError(loc, opName)
           << "input must be NCHW (rank 4), got rank " << x.getRank();
  return success();
}

FailureOr<RankedTensorType>
mlir::oneflow::inferConv(std::optional<Location> loc, StringRef name,
                         const ConvOperands &c) {
  RankedTensorType x = c.x, w = c.weight;
  if (failed(checkNCHW(loc, name, x)))
    return failure();
  if (w.getRank() != 4)
    return emitInferError(loc, name)
           << "weight must be (F, C/groups, KH, KW), got rank " << w.getRank();
  if (w.getElementType() != x.getElementType())
    return emitInferError(loc, name)
           << "weight element type " << w.getElementType()
           << " differs from input element type " << x.getElementType();
  if (c.groups < 1)
    return emitInferError(loc, name)
           << "groups must be positive, got " << c.groups;
  int64_t channels = x.getDimSize(1), filters = w.getDimSize(0);
  if (!ShapedType::isDynamic(channels) && channels % c.groups != 0)
    return emitInferError(loc, name)
           << "input channels " << channels << " are not divisible by groups "
           << c.groups;
  if (!ShapedType::isDynamic(filters) && filters % c.groups != 0)
    return emitInferError(loc, name)
           << "filters " << filters << " are not divisible by groups "
           << c.groups;
  if (!ShapedType::isDynamic(channels) && !w.isDynamicDim(1) &&
      w.getDimSize(1) * c.groups != channels)
    return emitInferError(loc, name)
           << "weight has " << w.getDimSize(1) << " channels per group but "
           << "the input has " << channels << " channels in " << c.groups
           << " groups";
  if (c.bias) {
    RankedTensorType b = c.bias;
    if (b.getRank() != 1 || b.getElementType() != x.getElementType() ||
        failed(verifyCompatibleShape(b.getShape(), {filters})))
      return emitInferError(loc, name)
             << "bias " << b << " must be 1-D with one value per filter ("
             << filters << ")";
  }
  Window window{w.getShape().drop_front(2), c.strides, c.pads, c.dilations,
                false};
  SmallVector<int64_t> shape = {x.getDimSize(0), filters};
  if (failed(inferSpatial(loc, name, x, window, shape)))
    return failure();
  return RankedTensorType::get(shape, x.getElementType());
}

LogicalResult Conv2DOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> loc,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> type = inferConv(
      loc, getOperationName(),
      {cast<RankedTensorType>(adaptor.getX().getType()),
       cast<RankedTensorType>(adaptor.getWeight().getType()),
       adaptor.getBias()
           ? cast<RankedTensorType>(adaptor.getBias().getType())
           : RankedTensorType(),
       adaptor.getStrides(), adaptor.getPads(), adaptor.getDilations(),
       static_cast<int64_t>(adaptor.getGroups())});
  if (failed(type))
    return failure();
  types.push_back(*type);
  return success();
}

LogicalResult Conv2DBnOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  FailureOr<RankedTensorType> type =
      inferConv(loc, name,
                {cast<RankedTensorType>(adaptor.getX().getType()),
                 cast<RankedTensorType>(adaptor.getWeight().getType()),
                 RankedTensorType(),
                 adaptor.getStrides(), adaptor.getPads(),
                 adaptor.getDilations(),
                 static_cast<int64_t>(adaptor.getGroups())});
  if (failed(type))
    return failure();
  int64_t filters = type->getDimSize(1);
  std::pair<StringRef, Value> params[] = {
      {"gamma", adaptor.getGamma()},
      {"beta", adaptor.getBeta()},
      {"moving_mean", adaptor.getMovingMean()},
      {"moving_variance", adaptor.getMovingVariance()}};
  for (auto [what, value] : params) {
    auto t = cast<RankedTensorType>(value.getType());
    if (t.getRank() != 1 || t.getElementType() != type->getElementType() ||
        failed(verifyCompatibleShape(t.getShape(), {filters})))
      return emitInferError(loc, name)
             << what << " " << t << " must be 1-D with one value per filter ("
             << filters << ")";
  }
  if (adaptor.getEpsilon().convertToDouble() <= 0)
    return emitInferError(loc, name) << "epsilon must be positive";
  // Blocked layouts (nChw16c, nChw8c) hold whole blocks of channels.
  int64_t channels = cast<RankedTensorType>(adaptor.getX().getType())
                         .getDimSize(1);
  if (adaptor.getBlockedX() && !ShapedType::isDynamic(channels) &&
      channels % 16 != 0)
    return emitInferError(loc, name)
           << "blocked_x needs channels in multiples of 16, got " << channels;
  if (adaptor.getBlockedResult() && !ShapedType::isDynamic(filters) &&
      filters % 16 != 0)
    return emitInferError(loc, name)
           << "blocked_result needs filters in multiples of 16, got "
           << filters;
  if (Value addend = adaptor.getAddend()) {
    auto t = cast<RankedTensorType>(addend.getType());
    if (t.getElementType() != type->getElementType() ||
        failed(verifyCompatibleShape(t.getShape(), type->getShape())))
      return emitInferError(loc, name)
             << "addend " << t << " must have the result's shape and type "
             << *type;
  }
  types.push_back(*type);
  return success();
}

FailureOr<RankedTensorType>
mlir::oneflow::inferPool(std::optional<Location> loc, StringRef name,
                         RankedTensorType x, const Window &w) {
  if (failed(checkNCHW(loc, name, x)))
    return failure();
  SmallVector<int64_t> shape = {x.getDimSize(0), x.getDimSize(1)};
  if (failed(inferSpatial(loc, name, x, w, shape)))
    return failure();
  return RankedTensorType::get(shape, x.getElementType());
}

LogicalResult MaxPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  Window window{adaptor.getKernelSize(), adaptor.getStrides(),
                adaptor.getPads(), adaptor.getDilations(),
                adaptor.getCeilMode()};
  FailureOr<RankedTensorType> type =
      inferPool(loc, getOperationName(),
                cast<RankedTensorType>(adaptor.getX().getType()), window);
  if (failed(type))
    return failure();
  types.push_back(*type);
  return success();
}

LogicalResult AvgPool2DOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> loc,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &types) {
  static const int64_t unitDilations[] = {1, 1};
  Window window{adaptor.getKernelSize(), adaptor.getStrides(),
                adaptor.getPads(), unitDilations, adaptor.getCeilMode()};
  FailureOr<RankedTensorType> type =
      inferPool(loc, getOperationName(),
                cast<RankedTensorType>(adaptor.getX().getType()), window);
  if (failed(type))
    return failure();
  types.push_back(*type);
  return success();
}

FailureOr<RankedTensorType>
mlir::oneflow::inferResample(std::optional<Location> loc, StringRef name,
                             RankedTensorType x, ArrayRef<int64_t> sizes,
                             StringRef mode) {
  if (mode != "linear" && mode != "nearest")
    return emitInferError(loc, name)
           << "unknown mode '" << mode << "' (linear or nearest)";
  if (x.getRank() < 3 || x.getRank() > 5)
    return emitInferError(loc, name)
           << "input must be N, C and 1 to 3 spatial axes (rank 3 to 5), got "
              "rank "
           << x.getRank();
  if (static_cast<int64_t>(sizes.size()) != x.getRank() - 2)
    return emitInferError(loc, name)
           << "sizes needs " << x.getRank() - 2 << " values (one per spatial "
           << "axis), got " << sizes.size();
  SmallVector<int64_t> shape{x.getDimSize(0), x.getDimSize(1)};
  for (int64_t size : sizes) {
    if (size < 1)
      return emitInferError(loc, name)
             << "sizes value " << size << " is below 1";
    shape.push_back(size);
  }
  return RankedTensorType::get(shape, x.getElementType());
}

LogicalResult ResampleOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> type = inferResample(
      loc, getOperationName(), stripEncoding(adaptor.getX().getType()),
      adaptor.getSizes(), adaptor.getMode());
  if (failed(type))
    return failure();
  types.push_back(*type);
  return success();
}

LogicalResult
GlobalAvgPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                    Adaptor adaptor,
                                    SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  if (failed(checkNCHW(loc, getOperationName(), x)))
    return failure();
  types.push_back(RankedTensorType::get(
      {x.getDimSize(0), x.getDimSize(1), 1, 1}, x.getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// SBP signatures
//===----------------------------------------------------------------------===//

void Conv2DOp::getSbpSignatures(int64_t meshAxisSize,
                                SmallVectorImpl<SbpSignature> &signatures) {
  // Data parallel only, as in OneFlow: x and the result S(0), weight and
  // bias B.
  SbpDims dims(*this);
  int64_t batch = dims.addDim(SbpDimKind::parallel);
  dims.mapOperandAxis(0, 0, batch);
  dims.mapResultAxis(0, 0, batch);
  dims.derive(meshAxisSize, signatures);
}

void Conv2DBnOp::getSbpSignatures(int64_t meshAxisSize,
                                  SmallVectorImpl<SbpSignature> &signatures) {
  // As conv2d: x, the addend and the result S(0), the parameters B (each
  // device normalizes by the moving statistics, as batch_norm does).
  SbpDims dims(*this);
  int64_t batch = dims.addDim(SbpDimKind::parallel);
  dims.mapOperandAxis(0, 0, batch);
  if (getAddend())
    dims.mapOperandAxis(getNumOperands() - 1, 0, batch);
  dims.mapResultAxis(0, 0, batch);
  dims.derive(meshAxisSize, signatures);
}

/// N and C are parallel; the pooled axes are never split.
static void derivePoolSbp(Operation *op, int64_t meshAxisSize,
                          SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims = SbpDims::elementwise(op);
  int64_t rank = cast<RankedTensorType>(op->getResult(0).getType()).getRank();
  for (int64_t axis = 2; axis < rank; ++axis)
    dims.setKind(axis, SbpDimKind::broadcastOnly);
  dims.derive(meshAxisSize, signatures);
}

void MaxPool2DOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolSbp(*this, meshAxisSize, signatures);
}

void AvgPool2DOp::getSbpSignatures(int64_t meshAxisSize,
                                   SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolSbp(*this, meshAxisSize, signatures);
}

void ResampleOp::getSbpSignatures(int64_t meshAxisSize,
                                  SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolSbp(*this, meshAxisSize, signatures);
}

void GlobalAvgPool2DOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  derivePoolSbp(*this, meshAxisSize, signatures);
}
