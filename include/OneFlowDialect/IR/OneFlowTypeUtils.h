//===- OneFlowTypeUtils.h - Shape inference helpers -------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Helpers shared by the ops' inferReturnTypes. Each reports a problem at
// `loc` (when given), naming the op, and returns failure.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWTYPEUTILS_H
#define ONEFLOWDIALECT_IR_ONEFLOWTYPEUTILS_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/TypeRange.h"

#include <optional>
#include <string>

namespace mlir::oneflow {

/// `type` without its encoding (the logical type shape inference produces).
RankedTensorType stripEncoding(Type type);

/// Result types are compatible with inferred ones when element types are
/// equal and shapes agree wherever both dimensions are static. Encodings
/// (layouts) are not compared.
bool areCompatibleLogicalTypes(TypeRange inferred, TypeRange declared);

/// `value` in the shortest readable form ("0.5", "1e-05"), for messages.
std::string formatDouble(double value);

/// Emits "'<opName>' op <message>" at `loc` if a location is given.
InFlightDiagnostic emitInferError(std::optional<Location> loc,
                                  llvm::StringRef opName);

/// Checks that `axis` (negative counts from the end) indexes a tensor of
/// `rank` axes; `what` names the attribute in the error.
LogicalResult checkAxis(std::optional<Location> loc, llvm::StringRef opName,
                        llvm::StringRef what, int64_t axis, int64_t rank);

/// Normalizes a possibly negative axis into [0, rank).
inline int64_t normalizeAxis(int64_t axis, int64_t rank) {
  return axis < 0 ? axis + rank : axis;
}

/// The axis a softmax, log_softmax or sparse_softmax_cross_entropy (its
/// class axis) normalizes over, counted from 0; nullopt for other ops.
std::optional<int64_t> getNormalizedAxis(Operation *op);

/// Numpy broadcasting of `shapes`; dynamic dimensions broadcast to dynamic.
/// Fails (with an error naming both shapes) when two static dims differ and
/// neither is 1.
LogicalResult broadcastShapes(std::optional<Location> loc,
                              llvm::StringRef opName,
                              llvm::ArrayRef<RankedTensorType> types,
                              llvm::SmallVectorImpl<int64_t> &shape);

/// Result type of a broadcasting binary op: operands of one element type,
/// i1 results for comparisons.
LogicalResult inferBroadcastBinary(std::optional<Location> loc,
                                   llvm::StringRef opName, Type lhs, Type rhs,
                                   bool isComparison,
                                   llvm::SmallVectorImpl<Type> &types);

/// Result type of reduce_sum/mean/max.
LogicalResult inferReduce(std::optional<Location> loc, llvm::StringRef opName,
                          Type input, llvm::ArrayRef<int64_t> axes,
                          bool keepDims, llvm::SmallVectorImpl<Type> &types);

/// Result type of arg_max/arg_min: inferReduce's shape over `axis`, i64.
LogicalResult inferArgReduce(std::optional<Location> loc,
                             llvm::StringRef opName, Type input, int64_t axis,
                             bool keepDims, llvm::SmallVectorImpl<Type> &types);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_IR_ONEFLOWTYPEUTILS_H
