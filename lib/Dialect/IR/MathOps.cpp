//===- MathOps.cpp - Element-wise ops -------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Binary, unary and scalar ops infer their types through their TableGen
// classes (OneFlowMathOps.td); this file holds the ops with their own rules.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

using namespace mlir;
using namespace mlir::oneflow;

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> loc,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &types) {
  auto cond = cast<RankedTensorType>(adaptor.getCondition().getType());
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  auto y = cast<RankedTensorType>(adaptor.getY().getType());
  if (x.getElementType() != y.getElementType())
    return emitInferError(loc, getOperationName())
           << "branches have different element types " << x.getElementType()
           << " and " << y.getElementType();
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, getOperationName(), {cond, x, y}, shape)))
    return failure();
  types.push_back(RankedTensorType::get(shape, x.getElementType()));
  return success();
}

LogicalResult MaskedFillOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> loc,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &types) {
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  auto mask = cast<RankedTensorType>(adaptor.getMask().getType());
  SmallVector<int64_t> shape;
  if (failed(broadcastShapes(loc, getOperationName(), {x, mask}, shape)))
    return failure();
  // The mask broadcasts to x; it may not grow x.
  if (failed(verifyCompatibleShape(shape, x.getShape())))
    return emitInferError(loc, getOperationName())
           << "mask " << mask << " does not broadcast to the shape of " << x;
  types.push_back(stripEncoding(x));
  return success();
}

LogicalResult CastOp::verify() {
  auto in = cast<RankedTensorType>(getX().getType());
  auto out = cast<RankedTensorType>(getType());
  if (failed(verifyCompatibleShape(in.getShape(), out.getShape())))
    return emitOpError() << "changes the shape from " << in << " to " << out;
  return success();
}

void CastOp::getSbpSignatures(int64_t meshAxisSize,
                              SmallVectorImpl<SbpSignature> &signatures) {
  auto dims = SbpDims::elementwise(getOperation());
  auto from = dyn_cast<FloatType>(getElementTypeOrSelf(getX().getType()));
  auto to = dyn_cast<FloatType>(getElementTypeOrSelf(getType()));
  if (from && to && from.getWidth() < to.getWidth())
    dims.addPartials("P");
  dims.derive(meshAxisSize, signatures);
}

LogicalResult BitShiftOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> loc,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  StringRef direction = adaptor.getDirection();
  if (direction != "left" && direction != "right")
    return emitInferError(loc, name)
           << "unknown direction '" << direction << "' (left or right)";
  int64_t width = adaptor.getWidth();
  if (!llvm::is_contained({8, 16, 32, 64}, width))
    return emitInferError(loc, name)
           << "width " << width << " is not 8, 16, 32 or 64";
  auto x = cast<RankedTensorType>(adaptor.getX().getType());
  if (x.getElementTypeBitWidth() < width)
    return emitInferError(loc, name)
           << "x's " << x.getElementType() << " cannot hold " << width
           << "-bit values";
  return inferBroadcastBinary(loc, name, x, adaptor.getShift().getType(),
                              /*isComparison=*/false, types);
}
