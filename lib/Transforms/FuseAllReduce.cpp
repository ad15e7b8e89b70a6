//===- FuseAllReduce.cpp - Bucket small all-reduces into one --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each all-reduce first moves up to right after what it reduces, so that
// program order is the order gradients are made in. All-reduces of the same
// element type, operand layout and mesh axis are then gathered in program
// order into buckets of at most `bucket-bytes`; each
// bucket of two or more becomes reshape -> concat -> one all_reduce ->
// slice -> reshape. The ops are built after the bucket's last all-reduce
// and the block is sorted topologically, so users of earlier members move
// after them; buckets are fused one at a time (`fuseGroups`), as one may
// come to depend on another once that is fused.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "oneflow-fuse-all-reduce"

namespace mlir::oneflow {
#define GEN_PASS_DEF_FUSEALLREDUCEPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The bytes of `op`'s operand when every rank holds the whole tensor (B
/// or P on every mesh axis) with a static shape, else -1.
static int64_t wholeBytes(AllReduceOp op) {
  auto type = cast<RankedTensorType>(op.getX().getType());
  GlobalAttr global = getGlobalEncoding(type);
  if (!global || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat())
    return -1;
  for (SbpAttr sbp : global.getNdSbp())
    if (sbp.getKind() == SbpKind::split)
      return -1;
  return type.getNumElements() *
         llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
}

/// Moves `op` right after the op that defines its operand: an all-reduce
/// then follows what it reduces instead of what reads it, so gradients
/// reach the collective stream in the order the backward pass makes them
/// and go out while it goes on (boxing is inserted before the reader, the
/// optimizer at the end). Not when another user of the operand writes it in
/// place (or states no effects), nor for a block argument.
static void hoist(AllReduceOp op) {
  Value x = op.getX();
  Operation *def = x.getDefiningOp();
  if (!def || def->getBlock() != op->getBlock())
    return;
  for (Operation *user : x.getUsers()) {
    if (user == op.getOperation())
      continue;
    // An op that states no effects may write anything.
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    if (!effects || effects.getEffectOnValue<MemoryEffects::Write>(x))
      return;
  }
  op->moveAfter(def);
}

/// Moves `op` (pure) right before its first user in its block.
static void sinkToFirstUser(Operation *op) {
  Operation *first = nullptr;
  for (Operation *user : op->getUsers()) {
    user = op->getBlock()->findAncestorOpInBlock(*user);
    if (user && (!first || user->isBeforeInBlock(first)))
      first = user;
  }
  if (first && op->isBeforeInBlock(first))
    op->moveBefore(first);
}

/// Replaces the all-reduces of `bucket` (two or more, same element type,
/// operand and result encodings and mesh axis) by one; appends the slices
/// and reshapes that give the members' results back to `unpacked`, a slice
/// and its reshape per member.
static void fuse(ArrayRef<Operation *> members,
                 SmallVectorImpl<Operation *> &unpacked) {
  auto bucket = llvm::map_to_vector(
      members, [](Operation *op) { return cast<AllReduceOp>(op); });
  AllReduceOp last = bucket.back();
  OpBuilder b(last->getContext());
  b.setInsertionPointAfter(last);
  Location loc = b.getFusedLoc(llvm::map_to_vector(
      bucket, [](AllReduceOp op) { return op.getLoc(); }));
  auto operandType = cast<RankedTensorType>(last.getX().getType());
  auto resultType = cast<RankedTensorType>(last.getType());
  Type element = operandType.getElementType();
  auto flat = [&](int64_t n, RankedTensorType like) {
    return RankedTensorType::get({n}, element, like.getEncoding());
  };
  SmallVector<Value> pieces;
  SmallVector<int64_t> sizes;
  for (AllReduceOp op : bucket) {
    auto type = cast<RankedTensorType>(op.getX().getType());
    sizes.push_back(type.getNumElements());
    pieces.push_back(ReshapeOp::create(b, op.getLoc(),
                                       flat(sizes.back(), operandType),
                                       op.getX())
                         .getResult());
  }
  int64_t total = 0;
  for (int64_t n : sizes)
    total += n;
  Value joined = ConcatOp::create(b, loc, flat(total, operandType), pieces,
                                  /*axis=*/0)
                     .getResult();
  Value reduced = AllReduceOp::create(b, loc, flat(total, resultType), joined,
                                      last.getMeshAxis())
                      .getResult();
  int64_t start = 0;
  for (auto [index, n] : llvm::enumerate(sizes)) {
    AllReduceOp op = bucket[index];
    Value piece =
        SliceOp::create(b, op.getLoc(), flat(n, resultType), reduced,
                        b.getDenseI64ArrayAttr({start}),
                        b.getDenseI64ArrayAttr({start + n}),
                        b.getDenseI64ArrayAttr({1}))
            .getResult();
    start += n;
    Value result =
        ReshapeOp::create(b, op.getLoc(), op.getType(), piece).getResult();
    unpacked.push_back(piece.getDefiningOp());
    unpacked.push_back(result.getDefiningOp());
    op.getResult().replaceAllUsesWith(result);
  }
  for (AllReduceOp op : bucket)
    op.erase();
}

namespace {

struct FuseAllReducePass
    : public mlir::oneflow::impl::FuseAllReducePassBase<FuseAllReducePass> {
  using Base::Base;

  void runOnOperation() override {
    if (bucketBytes <= 0)
      return;
    for (Block &block : getOperation().getBody()) {
      for (AllReduceOp op : llvm::to_vector(block.getOps<AllReduceOp>()))
        hoist(op);
      // Open buckets by (element type, operand and result encodings, mesh
      // axis); a bucket closes when the next member would overflow it or
      // depends on one of its members.
      using Key = std::tuple<Type, Attribute, Attribute, uint64_t>;
      llvm::MapVector<Key, std::pair<SmallVector<Operation *>, int64_t>> open;
      SmallVector<SmallVector<Operation *>> buckets;
      for (auto op : block.getOps<AllReduceOp>()) {
        int64_t bytes = wholeBytes(op);
        if (bytes < 0 || bytes > bucketBytes)
          continue;
        auto operand = cast<RankedTensorType>(op.getX().getType());
        Key key{operand.getElementType(), operand.getEncoding(),
                cast<RankedTensorType>(op.getType()).getEncoding(),
                op.getMeshAxis()};
        auto &[members, used] = open[key];
        if (!members.empty() &&
            (used + bytes > bucketBytes || dependsOnAny(op, members))) {
          buckets.push_back(std::move(members));
          members.clear();
          used = 0;
        }
        members.push_back(op);
        used += bytes;
      }
      for (auto &entry : open)
        buckets.push_back(std::move(entry.second.first));
      SmallVector<Operation *> unpacked;
      fuseGroups(block, buckets, [&](ArrayRef<Operation *> bucket) {
        fuse(bucket, unpacked);
      });
      if (unpacked.empty())
        continue;
      // A stream runs its ops in program order: the slices that unpack a
      // bucket move down to their first reader, so that the compute stream
      // goes on with the backward pass while the bucket is reduced.
      for (size_t i = 0; i + 1 < unpacked.size(); i += 2) {
        Operation *slice = unpacked[i], *reshape = unpacked[i + 1];
        sinkToFirstUser(reshape);
        slice->moveBefore(reshape);
      }
    }
  }
};

} // namespace
