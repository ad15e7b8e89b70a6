//===- MicroBatchRanks.cpp - Per-rank layouts with micro-batches ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "MicroBatchRanks.h"

#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/RankLayout.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::actor;

/// Where the piece or box that `layout` places begins (null if it places
/// none).
static DenseI64ArrayAttr layoutBegin(Attribute layout) {
  if (auto sink = dyn_cast_or_null<SinkLayoutAttr>(layout))
    layout = sink.getPiece();
  if (auto piece = dyn_cast_or_null<PieceLayoutAttr>(layout))
    return piece.getBegin();
  if (auto box = dyn_cast_or_null<LocalBoxingLayoutAttr>(layout))
    return box.getBegin();
  return {};
}

/// `layout` (one that places a piece or box) moving by `stride` per
/// micro-batch.
static Attribute withMicroStride(Attribute layout, DenseI64ArrayAttr stride) {
  MLIRContext *context = layout.getContext();
  auto move = [&](PieceLayoutAttr piece) {
    return PieceLayoutAttr::get(context, piece.getLogicalShape(),
                                piece.getBegin(), stride, piece.getZero());
  };
  if (auto sink = dyn_cast<SinkLayoutAttr>(layout))
    return SinkLayoutAttr::get(context, move(sink.getPiece()),
                               sink.getPartial(), sink.getPrimary());
  if (auto piece = dyn_cast<PieceLayoutAttr>(layout))
    return move(piece);
  auto box = cast<LocalBoxingLayoutAttr>(layout);
  return LocalBoxingLayoutAttr::get(context, box.getBegin(), stride,
                                    box.getKeep());
}

LogicalResult mlir::oneflow::addMicroStride(Operation *op, int64_t rank,
                                            int64_t world, int64_t micro,
                                            Attribute &layout) {
  DenseI64ArrayAttr begin = layoutBegin(layout);
  if (!begin)
    return success();
  auto beginOf = [&](int64_t m) {
    NamedAttrList unused;
    return layoutBegin(getRankLayout(op, m * world + rank, {}, nullptr, unused))
        .asArrayRef();
  };
  ArrayRef<int64_t> first = begin.asArrayRef();
  SmallVector<int64_t> stride(first.size());
  ArrayRef<int64_t> second = beginOf(1);
  for (size_t d = 0; d < first.size(); ++d)
    stride[d] = second[d] - first[d];
  for (int64_t m = 2; m < micro; ++m) {
    ArrayRef<int64_t> at = beginOf(m);
    for (size_t d = 0; d < first.size(); ++d)
      if (at[d] != first[d] + m * stride[d])
        return op->emitOpError()
               << "has pieces that are not evenly spaced over the " << micro
               << " micro-batches of rank " << rank;
  }
  if (llvm::any_of(stride, [](int64_t s) { return s != 0; }))
    layout = withMicroStride(
        layout, DenseI64ArrayAttr::get(op->getContext(), stride));
  return success();
}

/// Whether two flat transfer record lists of `width` numbers per record
/// are the same but for their tags.
static bool sameButTags(ArrayRef<int64_t> a, ArrayRef<int64_t> b,
                        int64_t width) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (i % width != 1 && a[i] != b[i])
      return false;
  return true;
}

int64_t mlir::oneflow::recordWidth(Operation *op) {
  return 2 + 2 * cast<RankedTensorType>(op->getResult(0).getType()).getRank();
}

LogicalResult mlir::oneflow::foldTransfer(
    Operation *op, int64_t world, int64_t micro, bool perMicro,
    SmallVectorImpl<int64_t> &group,
    llvm::MapVector<int64_t, TransferRecords> &records) {
  int64_t width = recordWidth(op);
  SmallVector<int64_t> devices;
  for (int64_t rank : group)
    if (rank < world)
      devices.push_back(rank);
  // `flat` with peers as indices into `devices`, for micro-batch `m`.
  auto fold = [&](ArrayRef<int64_t> flat, int64_t m,
                  SmallVectorImpl<int64_t> &out) {
    out.clear();
    for (size_t i = 0; i + width <= flat.size(); i += width) {
      int64_t peer = group[flat[i]] - m * world;
      if (peer < 0 || peer >= world)
        return false;
      out.push_back(llvm::find(devices, peer) - devices.begin());
      out.append(flat.begin() + i + 1, flat.begin() + i + width);
    }
    return true;
  };
  llvm::MapVector<int64_t, TransferRecords> folded;
  for (int64_t rank : devices) {
    TransferRecords &mine = folded[rank];
    for (int64_t m = 0; m < (perMicro ? micro : 1); ++m) {
      TransferRecords given = records.lookup(m * world + rank), other;
      if (!fold(given.sends, m, other.sends) ||
          !fold(given.recvs, m, other.recvs))
        return op->emitOpError() << "moves data between micro-batches: rank "
                                 << rank << " exchanges micro-batch " << m
                                 << "'s piece with another micro-batch's rank";
      if (m == 0) {
        mine = std::move(other);
      } else if (!sameButTags(mine.sends, other.sends, width) ||
                 !sameButTags(mine.recvs, other.recvs, width)) {
        return op->emitOpError() << "moves micro-batch " << m << " of rank "
                                 << rank << " differently from micro-batch 0";
      }
    }
  }
  group.assign(devices.begin(), devices.end());
  records = std::move(folded);
  return success();
}

LogicalResult
mlir::oneflow::offsetTags(Operation *op, int64_t base, int64_t width,
                          llvm::MapVector<int64_t, TransferRecords> &records) {
  for (auto &entry : records)
    for (SmallVector<int64_t> *flat :
         {&entry.second.sends, &entry.second.recvs})
      for (size_t i = 1; i < flat->size(); i += width) {
        if ((*flat)[i] >= kTagsPerTransfer)
          return op->emitOpError()
                 << "sends more than " << kTagsPerTransfer
                 << " messages, the most a transfer between micro-batched "
                    "stages may";
        (*flat)[i] += base;
      }
  return success();
}

int64_t mlir::oneflow::pipelineDepth(func::FuncOp funcOp, int64_t rank,
                                     int64_t world, int64_t micro) {
  int64_t stages = getStages(funcOp);
  if (stages < 2 || micro < 2 || world % stages != 0)
    return 1;
  auto schedule = funcOp->getAttrOfType<StringAttr>(kPipelineScheduleAttrName);
  if (schedule && schedule.getValue() == "gpipe")
    return micro;
  int64_t stage = rank / (world / stages);
  return std::min(micro, stages - stage);
}
