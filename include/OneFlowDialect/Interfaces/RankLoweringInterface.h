//===- RankLoweringInterface.h - Per-rank actor layouts ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_H
#define ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_H

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OperationSupport.h"

namespace mlir::oneflow {

/// The rank an actor is lowered for, and what its op's lowering computed
/// for all ranks at once.
struct RankPosition {
  /// The rank (with micro-batches, the virtual rank).
  int64_t rank = 0;
  /// For oneflow.transfer: the sorted ranks of both placements, and this
  /// rank's flat send and receive records (docs/multi-rank-plans.md).
  ArrayRef<int64_t> group;
  ArrayRef<int64_t> sends, recvs;
};

} // namespace mlir::oneflow

#include "OneFlowDialect/Interfaces/RankLoweringInterface.h.inc"

#endif // ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_H
