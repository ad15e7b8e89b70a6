//===- PlanMemory.cpp - Regst offsets in one arena per rank ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Lifetimes come from the stream orders; offsets from the greedy-by-size
// offset calculation with best fit of Pisarchyk and Lee, "Efficient Memory
// Management for Deep Neural Net Inference" (2020).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

#define DEBUG_TYPE "oneflow-plan-memory"

namespace mlir::oneflow {
#define GEN_PASS_DEF_PLANMEMORYPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::actor;

/// Every buffer starts on this boundary and takes a multiple of it.
static constexpr int64_t kAlignment = 64;

//===----------------------------------------------------------------------===//
// Lifetimes
//===----------------------------------------------------------------------===//

namespace {
/// One regst to place: its bytes, and the stream whose actors alone use it
/// with the positions in that stream's order where it is live, [first,
/// last].
struct Interval {
  RegstOp regst;
  int64_t id;
  int64_t bytes;
  int64_t first;
  int64_t last;
  StringRef stream;
  int64_t offset = 0;

  /// Positions of different streams say nothing about time: streams run
  /// concurrently, so their regsts never share memory.
  bool overlaps(const Interval &other) const {
    return stream != other.stream ||
           (first <= other.last && other.first <= last);
  }
};

/// Where an actor runs: its stream and position in that stream's order.
struct Slot {
  StringRef stream;
  int64_t position;
};
} // namespace

/// The bytes of one buffer of `regst`, rounded up to the alignment.
static int64_t bufferBytes(RegstOp regst) {
  RankedTensorType type = regst.getBufferType();
  int64_t elementBytes =
      llvm::divideCeil(type.getElementType().getIntOrFloatBitWidth(), 8);
  return llvm::alignTo(type.getNumElements() * elementBytes, kAlignment);
}

/// The interval of `regst`; regsts that keep memory of their own (see the
/// pass description) are live at every position.
static Interval lifetime(RegstOp regst,
                         const llvm::DenseMap<Operation *, Slot> &slots) {
  constexpr int64_t kAlways = std::numeric_limits<int64_t>::max();
  auto count = static_cast<int64_t>(regst.getCount());
  Interval interval{regst, static_cast<int64_t>(regst.getId()),
                    bufferBytes(regst) * count, 0, kAlways};
  ActorOp producer = regst.getProducer();
  SmallVector<ActorOp> consumers = regst.getConsumers();
  if (count > 1 || producer.getOpName() == "oneflow.variable" ||
      llvm::any_of(consumers, [](ActorOp consumer) {
        return consumer.getOpName() == "oneflow.output";
      }))
    return interval;
  Slot def = slots.lookup(producer);
  int64_t last = def.position;
  for (ActorOp consumer : consumers) {
    Slot use = slots.lookup(consumer);
    if (use.stream != def.stream)
      return interval;
    last = std::max(last, use.position);
  }
  interval.first = def.position;
  interval.last = last;
  interval.stream = def.stream;
  return interval;
}

//===----------------------------------------------------------------------===//
// Placement
//===----------------------------------------------------------------------===//

/// Places `intervals` greedily by decreasing size, each into the smallest
/// gap that fits it among the placed intervals it overlaps; returns the
/// arena size.
static int64_t place(MutableArrayRef<Interval> intervals) {
  SmallVector<Interval *> bySize;
  for (Interval &interval : intervals)
    bySize.push_back(&interval);
  llvm::stable_sort(bySize, [](const Interval *a, const Interval *b) {
    return std::make_tuple(-a->bytes, a->first, a->id) <
           std::make_tuple(-b->bytes, b->first, b->id);
  });

  SmallVector<Interval *> placed;
  int64_t arena = 0;
  for (Interval *interval : bySize) {
    SmallVector<Interval *> live;
    for (Interval *other : placed)
      if (interval->overlaps(*other))
        live.push_back(other);
    llvm::sort(live, [](const Interval *a, const Interval *b) {
      return a->offset < b->offset;
    });
    int64_t best = -1, bestGap = std::numeric_limits<int64_t>::max();
    int64_t end = 0;
    for (Interval *other : live) {
      int64_t gap = other->offset - end;
      if (gap >= interval->bytes && gap < bestGap) {
        best = end;
        bestGap = gap;
      }
      end = std::max(end, other->offset + other->bytes);
    }
    interval->offset = best >= 0 ? best : end;
    arena = std::max(arena, interval->offset + interval->bytes);
    placed.push_back(interval);
  }
  return arena;
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct PlanMemoryPass
    : public mlir::oneflow::impl::PlanMemoryPassBase<PlanMemoryPass> {
  void runOnOperation() override {
    RankPlanOp plan = getOperation();
    SymbolTable actors(plan);
    llvm::DenseMap<Operation *, Slot> slots;
    for (StreamOp stream : plan.getStreams())
      for (auto [position, ref] :
           llvm::enumerate(stream.getActors().getAsRange<FlatSymbolRefAttr>()))
        slots[actors.lookup(ref.getValue())] = {stream.getName(),
                                                static_cast<int64_t>(position)};

    SmallVector<Interval> intervals;
    int64_t unplanned = 0;
    for (RegstOp regst : plan.getRegsts()) {
      intervals.push_back(lifetime(regst, slots));
      unplanned += intervals.back().bytes;
    }
    int64_t arena = place(intervals);

    Builder builder(plan.getContext());
    for (Interval &interval : intervals)
      interval.regst.setOffsetAttr(builder.getI64IntegerAttr(interval.offset));
    plan.setArenaBytesAttr(builder.getI64IntegerAttr(arena));
    plan.setUnplannedBytesAttr(builder.getI64IntegerAttr(unplanned));
  }
};
} // namespace
