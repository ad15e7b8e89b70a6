//===- RankLayout.h - Per-rank pieces and actor layouts ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What the lowering to actors needs to turn one op on global tensors into an
// actor per rank: the ranks an op runs on, each rank's local tensor type,
// and the typed layout the runtime reads (docs/multi-rank-plans.md). In
// OneFlowExternalModels (lib/Dialect/ExternalModels/RankLayout.cpp), next to
// the RankLoweringInterface models that share its arithmetic;
// oneflow-lower-to-actor-graph calls it.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_RANKLAYOUT_H
#define ONEFLOWDIALECT_INTERFACES_RANKLAYOUT_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::oneflow {

/// The ranks an op runs on, in increasing order: those of its results'
/// placement (of its operand's for ops without results); for
/// oneflow.transfer the union of both placements. Single-device ops run on
/// rank 0. Fails, at the op, when its tensors sit on different placements.
FailureOr<SmallVector<int64_t>> getOpRanks(Operation *op);

/// The buffer type of `type` on `rank`: its local piece, no encoding. Null
/// when `rank` is not in the placement.
RankedTensorType getLocalType(Type type, int64_t rank);

/// Where `rank`'s piece of `type` begins in the logical tensor, one offset
/// per axis (zeros for a tensor on one device). Empty when `rank` is not
/// in the placement. For the RankLoweringInterface models of other
/// dialects' ops (examples/plugin).
SmallVector<int64_t> getLocalBegin(Type type, int64_t rank);

/// The sends and recvs of one rank in a oneflow.transfer (flat records, see
/// docs/multi-rank-plans.md).
struct TransferRecords {
  SmallVector<int64_t> sends, recvs;
};

/// The records of every rank taking part in `op` (a oneflow.transfer), by
/// rank, plus `group`: the sorted ranks of both placements. With
/// `microWorld` (the device ranks of a micro-batched program), a piece is
/// sent from a replica in the receiver's micro-batch where one holds it.
void computeTransfer(Operation *op, SmallVectorImpl<int64_t> &group,
                     llvm::MapVector<int64_t, TransferRecords> &records,
                     int64_t microWorld = 0);

/// The layout of `op`'s actor on `rank`: what its RankLoweringInterface
/// returns (a #oneflow_actor layout; null for an op without the interface
/// or one that needs none). `attrs` holds the op's own attributes, which
/// the interface may rewrite per rank; `transfer` the records of a
/// oneflow.transfer (ignored for other ops).
Attribute getRankLayout(Operation *op, int64_t rank, ArrayRef<int64_t> group,
                        const TransferRecords *transfer, NamedAttrList &attrs);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_INTERFACES_RANKLAYOUT_H
