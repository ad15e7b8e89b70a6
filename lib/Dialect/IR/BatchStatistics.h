//===- BatchStatistics.h - batch_norm's statistics shape --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The shape of the batch statistics batch_norm returns and batch_norm_grad
// reads: one value per channel, per group of samples with
// `statistics_groups` > 1 (NNOps.cpp, GradOps.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_DIALECT_IR_BATCHSTATISTICS_H
#define ONEFLOW_LIB_DIALECT_IR_BATCHSTATISTICS_H

#include "OneFlowDialect/IR/OneFlowTypeUtils.h"

#include "mlir/IR/BuiltinTypes.h"

namespace mlir::oneflow {

/// [C], or [G, C] for G > 1 groups along axis 0 of `x`, whose channels are
/// on `axis` (normalized). Groups need training (`training`), a batch axis
/// other than the channel axis and a batch they divide.
inline FailureOr<RankedTensorType>
inferBatchStatistics(std::optional<Location> loc, StringRef name,
                     RankedTensorType x, int64_t axis, int64_t groups,
                     bool training) {
  int64_t channels = x.getDimSize(axis);
  if (groups == 1)
    return RankedTensorType::get({channels}, x.getElementType());
  if (groups < 1)
    return emitInferError(loc, name)
           << "statistics_groups " << groups << " is not at least 1";
  if (!training)
    return emitInferError(loc, name)
           << "statistics_groups " << groups
           << " groups batch statistics, which only training computes";
  if (axis == 0)
    return emitInferError(loc, name)
           << "statistics_groups " << groups
           << " groups axis 0, which holds the channels";
  int64_t batch = x.getDimSize(0);
  if (!ShapedType::isDynamic(batch) && batch % groups != 0)
    return emitInferError(loc, name)
           << "statistics_groups " << groups << " does not divide the batch of "
           << batch;
  return RankedTensorType::get({groups, channels}, x.getElementType());
}

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_DIALECT_IR_BATCHSTATISTICS_H
