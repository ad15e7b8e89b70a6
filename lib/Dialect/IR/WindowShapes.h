//===- WindowShapes.h - Shape rules of convolutions and pools ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The output-size rules that conv2d, conv2d_bn and the pools share with
// their backward ops (ConvOps.cpp, ConvGradOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_DIALECT_IR_WINDOWSHAPES_H
#define ONEFLOW_LIB_DIALECT_IR_WINDOWSHAPES_H

#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::oneflow {

/// The spatial attributes of a 2-D window op.
struct Window {
  ArrayRef<int64_t> kernel, strides, pads, dilations;
  bool ceilMode = false;
};

/// The operand types and attributes that conv2d, conv2d_bn and the
/// convolution gradients share; `bias` may be null.
struct ConvOperands {
  RankedTensorType x, weight, bias;
  ArrayRef<int64_t> strides, pads, dilations;
  int64_t groups;
};

/// Fails unless `x` is NCHW (rank 4).
LogicalResult checkNCHW(std::optional<Location> loc, StringRef opName,
                        RankedTensorType x);

/// Appends the output height and width of a window op over (N, C, H, W).
LogicalResult inferSpatial(std::optional<Location> loc, StringRef opName,
                           RankedTensorType x, const Window &w,
                           SmallVectorImpl<int64_t> &outHW);

/// Checks a convolution's operands and infers its (N, F, OH, OW) type.
FailureOr<RankedTensorType> inferConv(std::optional<Location> loc,
                                      StringRef name, const ConvOperands &c);

/// Checks a pool's input and infers its (N, C, OH, OW) type.
FailureOr<RankedTensorType> inferPool(std::optional<Location> loc,
                                      StringRef name, RankedTensorType x,
                                      const Window &w);

/// The result of resampling `x` (N, C, then 1 to 3 spatial axes) to the
/// spatial `sizes` in `mode` (linear or nearest).
FailureOr<RankedTensorType> inferResample(std::optional<Location> loc,
                                          StringRef name, RankedTensorType x,
                                          ArrayRef<int64_t> sizes,
                                          StringRef mode);

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_DIALECT_IR_WINDOWSHAPES_H
