//===- MicroBatchRanks.h - Per-rank layouts with micro-batches --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What oneflow-lower-to-actor-graph does to per-rank layouts in a
// micro-batched program, whose M virtual ranks per device rank (one per
// micro-batch) fold into the firings of one actor: a piece that moves
// between micro-batches gets a micro stride, a transfer's records fold into
// those of the device ranks, transfers get tags of their own, and regsts
// between pipeline stages get the buffers the schedule keeps alive.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_LIB_TRANSFORMS_MICROBATCHRANKS_H
#define ONEFLOWDIALECT_LIB_TRANSFORMS_MICROBATCHRANKS_H

#include "OneFlowDialect/Interfaces/RankLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::oneflow {

/// Gives `layout` (that of `op` on `rank` in micro-batch 0) a micro stride
/// when its piece or box moves between micro-batches; fails if the pieces
/// are not evenly spaced.
LogicalResult addMicroStride(Operation *op, int64_t rank, int64_t world,
                             int64_t micro, Attribute &layout);

/// Numbers per transfer record of `op`: [peer, tag, begins..., sizes...].
int64_t recordWidth(Operation *op);

/// Folds the records of a transfer in a micro-batched program (over the
/// virtual ranks m * world + r of `group`) into those of the device ranks:
/// micro-batch 0's, whose peers must be in micro-batch 0. When the
/// transfer fires per micro-batch (`perMicro`), every micro-batch must
/// repeat them.
LogicalResult foldTransfer(Operation *op, int64_t world, int64_t micro,
                           bool perMicro, SmallVectorImpl<int64_t> &group,
                           llvm::MapVector<int64_t, TransferRecords> &records);

/// Tags each transfer of a micro-batched program may use: transfers
/// between pipeline stages can run concurrently (on threads of their own),
/// so no two share a tag.
inline constexpr int64_t kTagsPerTransfer = 4096;

/// Moves the tags of `records` (flat, `width` numbers per record) up by
/// `base`; fails when a transfer has more messages than its share.
LogicalResult offsetTags(Operation *op, int64_t base, int64_t width,
                         llvm::MapVector<int64_t, TransferRecords> &records);

/// Buffers of a regst written once per micro-batch on device rank `rank`:
/// with 1F1B counts, stage s of S keeps up to S - s micro-batches alive
/// (each later stage holds one more back before its gradient returns);
/// with GPipe counts, all of them.
int64_t pipelineDepth(func::FuncOp funcOp, int64_t rank, int64_t world,
                      int64_t micro);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_LIB_TRANSFORMS_MICROBATCHRANKS_H
