//===- PlanMemory.cpp - Regst offsets in one arena per rank ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Lifetimes come from the stream orders, which list one step's firings (an
// actor that fires once per micro-batch is listed once per micro-batch, so
// a regst is live in one range per value it holds); offsets from the
// greedy-by-size
// offset calculation with best fit of Pisarchyk and Lee, "Efficient Memory
// Management for Deep Neural Net Inference" (2020).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
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
/// with the ranges of positions in that stream's order where it is live,
/// [first, last] each; none: live at every position.
struct Interval {
  RegstOp regst;
  int64_t id;
  int64_t bytes;
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  StringRef stream;
  int64_t offset = 0;
  /// The interval whose bytes this one takes (its own: -1).
  int64_t aliasOf = -1;

  int64_t first() const { return ranges.empty() ? 0 : ranges.front().first; }

  /// Positions of different streams say nothing about time: streams run
  /// concurrently, so their regsts never share memory.
  bool overlaps(const Interval &other) const {
    if (stream != other.stream || ranges.empty() || other.ranges.empty())
      return true;
    for (auto [first, last] : ranges)
      for (auto [otherFirst, otherLast] : other.ranges)
        if (first <= otherLast && otherFirst <= last)
          return true;
    return false;
  }
};

/// Where an actor runs: its stream and its positions in that stream's
/// order, one per firing.
struct Slot {
  StringRef stream;
  SmallVector<int64_t> positions;
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
  auto count = static_cast<int64_t>(regst.getCount());
  Interval interval{regst,
                    static_cast<int64_t>(regst.getId()),
                    bufferBytes(regst) * count,
                    {},
                    {}};
  ActorOp producer = regst.getProducer();
  SmallVector<ActorOp> consumers = regst.getConsumers();
  // Kept across firings: several buffers, a variable's value, what outputs
  // read after the run, a sum over micro-batches.
  if (count > 1 || producer.getOpName() == VariableOp::getOperationName() ||
      producer.getFiringsPerValue() > 1 ||
      llvm::any_of(consumers, [](ActorOp consumer) {
        return consumer.getOpName() == OutputOp::getOperationName();
      }))
    return interval;
  const Slot &def = slots.find(producer)->second;
  SmallVector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t position : def.positions)
    ranges.push_back({position, position});
  for (ActorOp consumer : consumers) {
    const Slot &use = slots.find(consumer)->second;
    // Another stream, or values read more than once (a value made once
    // per step and read in every micro-batch), live throughout.
    if (use.stream != def.stream ||
        use.positions.size() != def.positions.size())
      return interval;
    for (auto [range, position] : llvm::zip(ranges, use.positions)) {
      if (position < range.first)
        return interval;
      range.second = std::max(range.second, position);
    }
  }
  interval.ranges = std::move(ranges);
  interval.stream = def.stream;
  return interval;
}

//===----------------------------------------------------------------------===//
// Aliases
//===----------------------------------------------------------------------===//

/// Makes the result of each reshape or flatten take its operand's bytes
/// where they are bit for bit the same tensor: the operand is read by that
/// actor alone, and both are planned in one stream with one buffer. The
/// copy then finds its source and destination equal and skips itself, and
/// the operand's interval (`intervals`, in the plan's regst order) grows to
/// the result's last reader.
static void aliasReshapes(MutableArrayRef<Interval> intervals) {
  llvm::DenseMap<Operation *, int64_t> indexOf;
  for (auto [index, interval] : llvm::enumerate(intervals))
    indexOf[interval.regst] = static_cast<int64_t>(index);
  for (Interval &result : intervals) {
    ActorOp producer = result.regst.getProducer();
    if (!llvm::is_contained({ReshapeOp::getOperationName(),
                             FlattenOp::getOperationName()},
                            producer.getOpName()) ||
        producer.getInputs().size() != 1)
      continue;
    auto operand = producer.getInputs()[0].getDefiningOp<RegstOp>();
    if (!operand || operand.getConsumers().size() != 1)
      continue;
    int64_t root = indexOf.lookup(operand);
    while (intervals[root].aliasOf >= 0)
      root = intervals[root].aliasOf;
    Interval &into = intervals[root];
    if (into.ranges.empty() || result.ranges.empty() ||
        into.stream != result.stream || into.bytes != result.bytes ||
        into.ranges.size() != result.ranges.size())
      continue;
    for (auto [range, other] : llvm::zip(into.ranges, result.ranges))
      range = {std::min(range.first, other.first),
               std::max(range.second, other.second)};
    result.aliasOf = root;
  }
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
    if (interval.aliasOf < 0)
      bySize.push_back(&interval);
  llvm::stable_sort(bySize, [](const Interval *a, const Interval *b) {
    return std::make_tuple(-a->bytes, a->first(), a->id) <
           std::make_tuple(-b->bytes, b->first(), b->id);
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
      for (auto [position, ref] : llvm::enumerate(
               stream.getActors().getAsRange<FlatSymbolRefAttr>())) {
        Slot &slot = slots[actors.lookup(ref.getValue())];
        slot.stream = stream.getName();
        slot.positions.push_back(static_cast<int64_t>(position));
      }

    SmallVector<Interval> intervals;
    int64_t unplanned = 0;
    for (RegstOp regst : plan.getRegsts()) {
      intervals.push_back(lifetime(regst, slots));
      unplanned += intervals.back().bytes;
    }
    aliasReshapes(intervals);
    int64_t arena = place(intervals);
    for (Interval &interval : intervals) {
      int64_t root = interval.aliasOf;
      while (root >= 0 && intervals[root].aliasOf >= 0)
        root = intervals[root].aliasOf;
      if (root >= 0)
        interval.offset = intervals[root].offset;
    }

    Builder builder(plan.getContext());
    for (Interval &interval : intervals)
      interval.regst.setOffsetAttr(builder.getI64IntegerAttr(interval.offset));
    plan.setArenaBytesAttr(builder.getI64IntegerAttr(arena));
    plan.setUnplannedBytesAttr(builder.getI64IntegerAttr(unplanned));
  }
};
} // namespace
