//===- BoxingRoute.cpp - Routes between two tensor layouts ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// On one placement, routes are shortest paths over nd-SBPs: a node is one
// SBP per mesh axis, an edge changes one axis and is priced by the elements
// it moves (summed over all axis groups). Nodes that leave some rank an
// empty piece are left out, and so are edges that split or gather a tensor
// axis that a later mesh axis also splits (the pieces of an axis group
// would not tile one range). The search is Dijkstra's with ties broken by
// step count and then by the order nodes are found, so it is deterministic.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/BoxingRoute.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <limits>
#include <set>
#include <tuple>

using namespace mlir;
using namespace mlir::oneflow;

using ofsupport::Range;
using ofsupport::Sbp;
using Kind = ofsupport::SbpKind;
using ofsupport::TensorLayout;

StringRef mlir::oneflow::stringifyBoxingKind(BoxingKind kind) {
  switch (kind) {
  case BoxingKind::allReduce:
    return "all_reduce";
  case BoxingKind::reduceScatter:
    return "reduce_scatter";
  case BoxingKind::allGather:
    return "all_gather";
  case BoxingKind::allToAll:
    return "all_to_all";
  case BoxingKind::localSlice:
    return "local_slice";
  case BoxingKind::toPartial:
    return "to_partial";
  case BoxingKind::transfer:
    return "transfer";
  }
  llvm_unreachable("unknown boxing kind");
}

//===----------------------------------------------------------------------===//
// Layout helpers
//===----------------------------------------------------------------------===//

/// Why `layout` leaves some rank an empty piece of a tensor of `shape`, or
/// an empty string. Nested balanced splits of L into parts n1, n2, ... give
/// a smallest piece of floor(L / (n1 * n2 * ...)).
static std::string findEmptyPiece(const std::vector<int64_t> &shape,
                                  const TensorLayout &layout) {
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    int64_t parts = 1;
    for (auto [size, sbp] : llvm::zip(layout.mesh, layout.ndSbp))
      if (sbp.kind == Kind::Split && sbp.axis == static_cast<int64_t>(axis))
        parts *= size;
    if (shape[axis] < parts)
      return "tensor axis " + std::to_string(axis) + " of size " +
             std::to_string(shape[axis]) + " cannot be split into " +
             std::to_string(parts) + " non-empty parts";
  }
  return "";
}

/// The step kind that turns `from` into `to` on one mesh axis, or nullopt
/// when they are equal or no one step does it: between partials of two
/// reductions, and from a split to P(max) or P(min) (the other ranks' parts
/// would need the identity of max or min; the route goes through B).
static std::optional<BoxingKind> stepKind(Sbp from, Sbp to) {
  if (from == to)
    return std::nullopt;
  switch (from.kind) {
  case Kind::Partial:
    if (to.kind == Kind::Partial)
      return std::nullopt;
    return to.kind == Kind::Broadcast ? BoxingKind::allReduce
                                         : BoxingKind::reduceScatter;
  case Kind::Split:
    if (to.kind == Kind::Broadcast)
      return BoxingKind::allGather;
    if (to.kind == Kind::Partial && to.reduction != ofsupport::Reduction::Sum)
      return std::nullopt;
    return to.kind == Kind::Split ? BoxingKind::allToAll
                                     : BoxingKind::toPartial;
  case Kind::Broadcast:
    return to.kind == Kind::Split ? BoxingKind::localSlice
                                     : BoxingKind::toPartial;
  }
  llvm_unreachable("unknown SBP kind");
}

/// Whether changing mesh axis `axis` of `ndSbp` to `to` keeps every split
/// it touches outside the later mesh axes' splits.
static bool respectsNesting(const std::vector<Sbp> &ndSbp, size_t axis,
                            Sbp to) {
  for (Sbp sbp : {ndSbp[axis], to}) {
    if (sbp.kind != Kind::Split)
      continue;
    for (size_t later = axis + 1; later < ndSbp.size(); ++later)
      if (ndSbp[later] == sbp)
        return false;
  }
  return true;
}

static int64_t volume(const std::vector<Range> &ranges) {
  int64_t elements = 1;
  for (const Range &range : ranges)
    elements *= range.size;
  return elements;
}

static int64_t overlap(const std::vector<Range> &a,
                       const std::vector<Range> &b) {
  int64_t elements = 1;
  for (auto [x, y] : llvm::zip(a, b)) {
    int64_t begin = std::max(x.begin, y.begin);
    int64_t end = std::min(x.begin + x.size, y.begin + y.size);
    elements *= std::max<int64_t>(end - begin, 0);
  }
  return elements;
}

/// Elements that the step on `axis` from `layout` to `next` moves, summed
/// over every axis group: all-reduce 2(n-1)G, reduce-scatter and
/// all-gather (n-1)G for a group range of G elements, all-to-all what each
/// rank holds but does not keep, local slices and to_partial nothing.
static int64_t stepCost(const std::vector<int64_t> &shape,
                        const TensorLayout &layout, const TensorLayout &next,
                        size_t axis, BoxingKind kind) {
  if (kind == BoxingKind::localSlice || kind == BoxingKind::toPartial)
    return 0;
  TensorLayout group = layout;
  group.ndSbp[axis] = Sbp::broadcast();
  int64_t n = layout.mesh[axis];
  int64_t ranks = 1;
  for (int64_t size : layout.mesh)
    ranks *= size;
  int64_t cost = 0;
  for (int64_t id = 0; id < ranks; ++id) {
    std::vector<int64_t> coord = ofsupport::meshCoordinate(layout.mesh, id);
    if (kind == BoxingKind::allToAll) {
      std::vector<Range> in = ofsupport::localSlice(shape, layout, id);
      cost += volume(in) - overlap(in, ofsupport::localSlice(shape, next, id));
      continue;
    }
    if (coord[axis] != 0)
      continue;
    int64_t elements = volume(ofsupport::localSlice(shape, group, id));
    cost += (kind == BoxingKind::allReduce ? 2 : 1) * (n - 1) * elements;
  }
  return cost;
}

//===----------------------------------------------------------------------===//
// Search on one placement
//===----------------------------------------------------------------------===//

namespace {
/// One edge of the cheapest route found so far into a node.
struct Arrival {
  int64_t cost = std::numeric_limits<int64_t>::max();
  int64_t steps = 0;
  int64_t from = -1;
  size_t axis = 0;
  BoxingKind kind = BoxingKind::transfer;
};
} // namespace

/// The SBPs a route may use on a mesh axis: B, P if either end has a P,
/// and the splits either end uses.
static std::vector<Sbp> candidateSbps(const TensorLayout &from,
                                      const TensorLayout &to) {
  std::vector<Sbp> values = {Sbp::broadcast()};
  for (const TensorLayout *layout : {&from, &to})
    for (Sbp sbp : layout->ndSbp)
      if (!llvm::is_contained(values, sbp))
        values.push_back(sbp);
  // Splits in axis order after B and P, whatever order the ends list them.
  llvm::stable_sort(values, [](Sbp a, Sbp b) {
    return std::make_tuple(a.kind != Kind::Broadcast,
                           a.kind != Kind::Partial, a.axis) <
           std::make_tuple(b.kind != Kind::Broadcast,
                           b.kind != Kind::Partial, b.axis);
  });
  return values;
}

namespace {
/// Nodes of the search: one index into `values` per mesh axis, numbered in
/// mixed radix.
struct NodeSpace {
  std::vector<Sbp> values;
  size_t meshRank;

  int64_t size() const {
    int64_t count = 1;
    for (size_t i = 0; i < meshRank; ++i)
      count *= values.size();
    return count;
  }
  std::vector<Sbp> decode(int64_t node) const {
    std::vector<Sbp> ndSbp(meshRank);
    for (size_t i = meshRank; i-- > 0;) {
      ndSbp[i] = values[node % values.size()];
      node /= values.size();
    }
    return ndSbp;
  }
  int64_t encode(const std::vector<Sbp> &ndSbp) const {
    int64_t node = 0;
    for (Sbp sbp : ndSbp)
      node = node * values.size() + (llvm::find(values, sbp) - values.begin());
    return node;
  }
};

/// One step of a route on one placement.
struct AxisStep {
  BoxingKind kind;
  size_t axis;
  std::vector<Sbp> to;
};
} // namespace

/// The cheapest valid route from `from` to `to` (same mesh), or failure
/// when there is none.
static FailureOr<std::vector<AxisStep>>
searchRoute(const std::vector<int64_t> &shape, const TensorLayout &from,
            const TensorLayout &to) {
  NodeSpace space{candidateSbps(from, to), from.mesh.size()};
  int64_t count = space.size();
  std::vector<Arrival> best(count);
  std::vector<char> done(count, false);
  int64_t source = space.encode(from.ndSbp);
  int64_t target = space.encode(to.ndSbp);
  best[source].cost = 0;
  std::set<std::tuple<int64_t, int64_t, int64_t>> queue = {{0, 0, source}};
  while (!queue.empty()) {
    auto [cost, steps, node] = *queue.begin();
    queue.erase(queue.begin());
    if (done[node])
      continue;
    done[node] = true;
    if (node == target)
      break;
    TensorLayout layout{from.mesh, space.decode(node)};
    for (size_t axis = 0; axis < space.meshRank; ++axis) {
      for (Sbp value : space.values) {
        std::optional<BoxingKind> kind = stepKind(layout.ndSbp[axis], value);
        if (!kind || !respectsNesting(layout.ndSbp, axis, value))
          continue;
        TensorLayout next = layout;
        next.ndSbp[axis] = value;
        if (!findEmptyPiece(shape, next).empty() ||
            ofsupport::mixesReductions(next.ndSbp))
          continue;
        int64_t nextNode = space.encode(next.ndSbp);
        int64_t nextCost =
            cost + stepCost(shape, layout, next, axis, *kind);
        Arrival &arrival = best[nextNode];
        if (done[nextNode] || std::make_pair(nextCost, steps + 1) >=
                                  std::make_pair(arrival.cost, arrival.steps))
          continue;
        queue.erase({arrival.cost, arrival.steps, nextNode});
        arrival = {nextCost, steps + 1, node, axis, *kind};
        queue.insert({nextCost, steps + 1, nextNode});
      }
    }
  }
  if (!done[target])
    return failure();
  std::vector<AxisStep> route;
  for (int64_t node = target; node != source; node = best[node].from)
    route.push_back({best[node].kind, best[node].axis, space.decode(node)});
  std::reverse(route.begin(), route.end());
  return route;
}

//===----------------------------------------------------------------------===//
// planBoxing
//===----------------------------------------------------------------------===//

static SbpAttr toSbpAttr(MLIRContext *ctx, Sbp sbp) {
  switch (sbp.kind) {
  case Kind::Split:
    return SbpAttr::getSplit(ctx, sbp.axis);
  case Kind::Broadcast:
    return SbpAttr::getBroadcast(ctx);
  case Kind::Partial:
    return SbpAttr::getPartial(ctx, fromSupportReduction(sbp.reduction));
  }
  llvm_unreachable("unknown SBP kind");
}

static GlobalAttr makeGlobal(PlacementAttr placement,
                             const std::vector<Sbp> &ndSbp) {
  MLIRContext *ctx = placement.getContext();
  SmallVector<SbpAttr> sbps;
  for (Sbp sbp : ndSbp)
    sbps.push_back(toSbpAttr(ctx, sbp));
  return GlobalAttr::get(ctx, placement, NdSbpAttr::get(ctx, sbps));
}

FailureOr<SmallVector<BoxingStep>>
mlir::oneflow::planBoxing(RankedTensorType type, GlobalAttr from,
                          GlobalAttr to, std::string &why) {
  auto fail = [&](const Twine &reason) -> FailureOr<SmallVector<BoxingStep>> {
    why.clear();
    llvm::raw_string_ostream os(why);
    os << "cannot box " << RankedTensorType::get(type.getShape(),
                                                 type.getElementType())
       << " from " << from << " to " << to << ": " << reason;
    return failure();
  };
  if (!type.hasStaticShape())
    return fail("the shape is not static");
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());
  TensorLayout source = toSupportLayout(from);
  TensorLayout dest = toSupportLayout(to);
  for (auto [end, layout] : {std::make_pair("source", &source),
                             std::make_pair("destination", &dest)}) {
    if (std::optional<std::string> bad =
            ofsupport::validateLayout(shape, *layout))
      return fail(Twine("the ") + end + " layout is invalid: " + *bad);
    std::string empty = findEmptyPiece(shape, *layout);
    if (!empty.empty())
      return fail(Twine("the ") + end + " layout leaves a rank an empty " +
                  "piece: " + empty);
  }

  SmallVector<BoxingStep> steps;
  if (from == to)
    return steps;

  if (from.getPlacement() != to.getPlacement()) {
    // A transfer sums partial sources on the way; P(max) and P(min) axes
    // are reduced to B on the source placement first.
    GlobalAttr sent = from;
    TensorLayout reduced = source;
    for (Sbp &sbp : reduced.ndSbp)
      if (sbp.kind == Kind::Partial &&
          sbp.reduction != ofsupport::Reduction::Sum)
        sbp = Sbp::broadcast();
    if (reduced.ndSbp != source.ndSbp) {
      FailureOr<std::vector<AxisStep>> route =
          searchRoute(shape, source, reduced);
      if (failed(route))
        return fail("no sequence of valid one-axis steps reduces the source");
      for (const AxisStep &step : *route) {
        GlobalAttr next = makeGlobal(from.getPlacement(), step.to);
        steps.push_back(
            {step.kind, static_cast<int64_t>(step.axis), sent, next});
        sent = next;
      }
    }
    // A transfer to the destination without its P axes, then to_partial on
    // each of them.
    std::vector<Sbp> ndSbp = dest.ndSbp;
    for (Sbp &sbp : ndSbp)
      if (sbp.kind == Kind::Partial)
        sbp = Sbp::broadcast();
    GlobalAttr current = makeGlobal(to.getPlacement(), ndSbp);
    steps.push_back({BoxingKind::transfer, -1, sent, current});
    for (size_t axis = 0; axis < ndSbp.size(); ++axis) {
      if (dest.ndSbp[axis].kind != Kind::Partial)
        continue;
      ndSbp[axis] = dest.ndSbp[axis];
      GlobalAttr next = makeGlobal(to.getPlacement(), ndSbp);
      steps.push_back({BoxingKind::toPartial, static_cast<int64_t>(axis),
                       current, next});
      current = next;
    }
    return steps;
  }

  FailureOr<std::vector<AxisStep>> route = searchRoute(shape, source, dest);
  if (failed(route))
    return fail("no sequence of valid one-axis steps connects them");
  GlobalAttr current = from;
  for (const AxisStep &step : *route) {
    GlobalAttr next = makeGlobal(to.getPlacement(), step.to);
    steps.push_back(
        {step.kind, static_cast<int64_t>(step.axis), current, next});
    current = next;
  }
  return steps;
}
