//===- BoxingSimulator.cpp - Reference semantics of boxing steps ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "BoxingSimulator.h"

#include "OneFlowDialect/IR/OneFlowAttrs.h"

using namespace boxingsim;
using mlir::oneflow::BoxingKind;
using mlir::oneflow::BoxingStep;
using ofsupport::Range;
using ofsupport::Reduction;
using ofsupport::Sbp;
using ofsupport::SbpKind;
using ofsupport::TensorLayout;

//===----------------------------------------------------------------------===//
// Regions
//===----------------------------------------------------------------------===//

static int64_t volume(const Region &region) {
  int64_t elements = 1;
  for (const Range &range : region)
    elements *= range.size;
  return elements;
}

static Region wholeRegion(const std::vector<int64_t> &shape) {
  Region region;
  for (int64_t dim : shape)
    region.push_back({0, dim});
  return region;
}

/// Calls `fn(index, position)` for every element of `region`, row-major:
/// its logical index and its position in the region's buffer.
template <typename Fn> static void forEach(const Region &region, Fn fn) {
  int64_t count = volume(region);
  std::vector<int64_t> index(region.size());
  for (int64_t position = 0; position < count; ++position) {
    int64_t rest = position;
    for (size_t axis = region.size(); axis-- > 0;) {
      index[axis] = region[axis].begin + rest % region[axis].size;
      rest /= region[axis].size;
    }
    fn(index, position);
  }
}

/// The position of logical `index` in the buffer of `region`, or -1.
static int64_t positionIn(const Region &region,
                          const std::vector<int64_t> &index) {
  int64_t position = 0;
  for (size_t axis = 0; axis < region.size(); ++axis) {
    int64_t offset = index[axis] - region[axis].begin;
    if (offset < 0 || offset >= region[axis].size)
      return -1;
    position = position * region[axis].size + offset;
  }
  return position;
}

/// The part of `piece` inside `sub`, which must lie within it.
static Piece cut(const Piece &piece, const Region &sub) {
  Piece out{sub, std::vector<int64_t>(volume(sub))};
  forEach(sub, [&](const std::vector<int64_t> &index, int64_t position) {
    out.values[position] = piece.values[positionIn(piece.region, index)];
  });
  return out;
}

/// Part `c` of `n` of `region` along tensor axis `axis`.
static Region part(Region region, int64_t axis, int64_t n, int64_t c) {
  Range range = ofsupport::balancedPart(region[axis].size, n, c);
  region[axis] = {region[axis].begin + range.begin, range.size};
  return region;
}

//===----------------------------------------------------------------------===//
// Axis groups
//===----------------------------------------------------------------------===//

static int64_t numRanks(const std::vector<int64_t> &mesh) {
  int64_t ranks = 1;
  for (int64_t size : mesh)
    ranks *= size;
  return ranks;
}

static int64_t idOf(const std::vector<int64_t> &mesh,
                    const std::vector<int64_t> &coord) {
  int64_t id = 0;
  for (size_t axis = 0; axis < mesh.size(); ++axis)
    id = id * mesh[axis] + coord[axis];
  return id;
}

/// The axis groups along `axis`: each lists its ranks by coordinate.
static std::vector<std::vector<int64_t>>
axisGroups(const std::vector<int64_t> &mesh, size_t axis) {
  std::vector<std::vector<int64_t>> groups;
  for (int64_t id = 0; id < numRanks(mesh); ++id) {
    std::vector<int64_t> coord = ofsupport::meshCoordinate(mesh, id);
    if (coord[axis] != 0)
      continue;
    std::vector<int64_t> group;
    for (int64_t c = 0; c < mesh[axis]; ++c) {
      coord[axis] = c;
      group.push_back(idOf(mesh, coord));
    }
    groups.push_back(group);
  }
  return groups;
}

/// Joins the pieces of `group` along tensor axis `axis`, in group order;
/// they must tile one range.
static std::string concat(const Pieces &pieces,
                          const std::vector<int64_t> &group, int64_t axis,
                          Piece &whole) {
  Region region = pieces[group.front()].region;
  int64_t end = region[axis].begin;
  for (int64_t id : group) {
    const Region &other = pieces[id].region;
    for (size_t a = 0; a < region.size(); ++a)
      if (static_cast<int64_t>(a) != axis && !(other[a] == region[a]))
        return "pieces of an axis group differ off the gathered axis";
    if (other[axis].begin != end)
      return "pieces of an axis group do not tile one range along axis " +
             std::to_string(axis);
    end += other[axis].size;
  }
  region[axis].size = end - region[axis].begin;
  whole = {region, std::vector<int64_t>(volume(region))};
  for (int64_t id : group)
    forEach(pieces[id].region,
            [&](const std::vector<int64_t> &index, int64_t position) {
              whole.values[positionIn(region, index)] =
                  pieces[id].values[position];
            });
  return "";
}

/// Checks that the pieces of `group` cover one region; with `same`, also
/// that they hold the same values (replicas).
static std::string sameRegion(const Pieces &pieces,
                              const std::vector<int64_t> &group, bool same) {
  for (int64_t id : group) {
    if (!(pieces[id].region == pieces[group.front()].region))
      return "pieces of an axis group cover different regions";
    if (same && pieces[id].values != pieces[group.front()].values)
      return "replicas of an axis group hold different values";
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Logical values
//===----------------------------------------------------------------------===//

std::vector<int64_t> boxingsim::iota(const std::vector<int64_t> &shape) {
  std::vector<int64_t> values(volume(wholeRegion(shape)));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<int64_t>(i) + 1;
  return values;
}

/// The index among combinations of P-axis coordinates of rank `id`.
static int64_t partialIndex(const TensorLayout &layout, int64_t id) {
  std::vector<int64_t> coord = ofsupport::meshCoordinate(layout.mesh, id);
  int64_t index = 0;
  for (size_t axis = 0; axis < layout.mesh.size(); ++axis)
    if (layout.ndSbp[axis].kind == SbpKind::Partial)
      index = index * layout.mesh[axis] + coord[axis];
  return index;
}

/// The reduction of the layout's partial axes (one per layout).
static Reduction reductionOf(const TensorLayout &layout) {
  for (const Sbp &sbp : layout.ndSbp)
    if (sbp.kind == SbpKind::Partial)
      return sbp.reduction;
  return Reduction::Sum;
}

/// a combined with b by `reduction`.
static int64_t combine(Reduction reduction, int64_t a, int64_t b) {
  switch (reduction) {
  case Reduction::Sum:
    return a + b;
  case Reduction::Max:
    return std::max(a, b);
  case Reduction::Min:
    return std::min(a, b);
  }
  return a;
}

Pieces boxingsim::distribute(const std::vector<int64_t> &shape,
                             const std::vector<int64_t> &logical,
                             const TensorLayout &layout, std::mt19937 &rng) {
  int64_t summands = 1;
  for (size_t axis = 0; axis < layout.mesh.size(); ++axis)
    if (layout.ndSbp[axis].kind == SbpKind::Partial)
      summands *= layout.mesh[axis];
  std::uniform_int_distribution<int64_t> noise(-50, 50);
  std::vector<std::vector<int64_t>> parts(summands, logical);
  Reduction reduction = reductionOf(layout);
  for (size_t i = 0; reduction != Reduction::Sum && i < logical.size(); ++i) {
    // One part (at random) holds the value, the others lie below it (a
    // max) or above it (a min).
    int64_t holder =
        std::uniform_int_distribution<int64_t>(0, summands - 1)(rng);
    for (int64_t k = 0; k < summands; ++k) {
      int64_t gap = k == holder ? 0 : 1 + std::abs(noise(rng));
      parts[k][i] += reduction == Reduction::Max ? -gap : gap;
    }
  }
  for (int64_t k = 0; reduction == Reduction::Sum && k + 1 < summands; ++k) {
    for (size_t i = 0; i < logical.size(); ++i) {
      int64_t share = noise(rng);
      parts[k][i] = share;
      parts[summands - 1][i] -= share;
    }
  }
  Region whole = wholeRegion(shape);
  Pieces pieces;
  for (int64_t id = 0; id < numRanks(layout.mesh); ++id)
    pieces.push_back(cut({whole, parts[partialIndex(layout, id)]},
                         ofsupport::localSlice(shape, layout, id)));
  return pieces;
}

/// The logical tensor that `pieces` hold under `layout`: the sum (maximum,
/// minimum) of the pieces of the ranks at coordinate 0 on every B axis.
static std::vector<int64_t> gather(const std::vector<int64_t> &shape,
                                   const TensorLayout &layout,
                                   const Pieces &pieces) {
  Region whole = wholeRegion(shape);
  Reduction reduction = reductionOf(layout);
  std::vector<int64_t> logical(volume(whole), 0);
  std::vector<char> seen(logical.size(), 0);
  for (int64_t id = 0; id < numRanks(layout.mesh); ++id) {
    std::vector<int64_t> coord = ofsupport::meshCoordinate(layout.mesh, id);
    bool primary = true;
    for (size_t axis = 0; axis < layout.mesh.size(); ++axis)
      if (layout.ndSbp[axis].kind == SbpKind::Broadcast && coord[axis] != 0)
        primary = false;
    if (!primary)
      continue;
    forEach(pieces[id].region, [&](const std::vector<int64_t> &index,
                                   int64_t position) {
      int64_t at = positionIn(whole, index);
      int64_t value = pieces[id].values[position];
      logical[at] = seen[at] ? combine(reduction, logical[at], value) : value;
      seen[at] = 1;
    });
  }
  return logical;
}

//===----------------------------------------------------------------------===//
// Steps
//===----------------------------------------------------------------------===//

static std::string applyTransfer(const std::vector<int64_t> &shape,
                                 const BoxingStep &step, Pieces &pieces) {
  TensorLayout from = mlir::oneflow::toSupportLayout(step.from);
  TensorLayout to = mlir::oneflow::toSupportLayout(step.to);
  for (Sbp sbp : to.ndSbp)
    if (sbp.kind == SbpKind::Partial)
      return "a transfer cannot produce P";
  if (reductionOf(from) != Reduction::Sum)
    return "a transfer sums its partial source; it cannot read " +
           from.ndSbp[0].str() + " or other max and min partials";
  Piece whole{wholeRegion(shape), gather(shape, from, pieces)};
  Pieces next;
  for (int64_t id = 0; id < numRanks(to.mesh); ++id)
    next.push_back(cut(whole, ofsupport::localSlice(shape, to, id)));
  pieces = std::move(next);
  return "";
}

/// The kind of step that turns `x` into `y` per the contract's table.
static std::optional<BoxingKind> kindOf(Sbp x, Sbp y) {
  bool xs = x.kind == SbpKind::Split, ys = y.kind == SbpKind::Split;
  if (xs && y.kind == SbpKind::Partial && y.reduction != Reduction::Sum)
    return std::nullopt; // The other parts would need max's identity.
  if (x.kind == SbpKind::Partial && y.kind == SbpKind::Broadcast)
    return BoxingKind::allReduce;
  if (x.kind == SbpKind::Partial && ys)
    return BoxingKind::reduceScatter;
  if (xs && y.kind == SbpKind::Broadcast)
    return BoxingKind::allGather;
  if (xs && ys && x.axis != y.axis)
    return BoxingKind::allToAll;
  if (x.kind == SbpKind::Broadcast && ys)
    return BoxingKind::localSlice;
  if ((xs || x.kind == SbpKind::Broadcast) && y.kind == SbpKind::Partial)
    return BoxingKind::toPartial;
  return std::nullopt;
}

std::string boxingsim::apply(const std::vector<int64_t> &shape,
                             const BoxingStep &step, Pieces &pieces) {
  if (step.kind == BoxingKind::transfer)
    return applyTransfer(shape, step, pieces);
  if (step.from.getPlacement() != step.to.getPlacement())
    return "a one-axis step changes the placement";
  TensorLayout from = mlir::oneflow::toSupportLayout(step.from);
  TensorLayout to = mlir::oneflow::toSupportLayout(step.to);
  if (step.meshAxis < 0 ||
      step.meshAxis >= static_cast<int64_t>(from.mesh.size()))
    return "mesh axis out of range";
  size_t a = step.meshAxis;
  for (size_t axis = 0; axis < from.mesh.size(); ++axis)
    if (axis != a && from.ndSbp[axis] != to.ndSbp[axis])
      return "the step changes another mesh axis than its own";
  Sbp x = from.ndSbp[a], y = to.ndSbp[a];
  if (kindOf(x, y) != step.kind)
    return "the step's kind does not match " + x.str() + " -> " + y.str();
  int64_t n = from.mesh[a];
  for (const std::vector<int64_t> &group : axisGroups(from.mesh, a)) {
    Piece whole;
    std::string error;
    switch (step.kind) {
    case BoxingKind::allReduce:
    case BoxingKind::reduceScatter:
      if (!(error = sameRegion(pieces, group, false)).empty())
        return error;
      whole = pieces[group.front()];
      for (size_t c = 1; c < group.size(); ++c)
        for (size_t i = 0; i < whole.values.size(); ++i)
          whole.values[i] =
              combine(x.reduction, whole.values[i], pieces[group[c]].values[i]);
      for (int64_t c = 0; c < n; ++c)
        pieces[group[c]] =
            step.kind == BoxingKind::allReduce
                ? whole
                : cut(whole, part(whole.region, y.axis, n, c));
      break;
    case BoxingKind::allGather:
    case BoxingKind::allToAll:
      if (!(error = concat(pieces, group, x.axis, whole)).empty())
        return error;
      for (int64_t c = 0; c < n; ++c)
        pieces[group[c]] = step.kind == BoxingKind::allGather
                               ? whole
                               : cut(whole, part(whole.region, y.axis, n, c));
      break;
    case BoxingKind::localSlice:
      if (!(error = sameRegion(pieces, group, true)).empty())
        return error;
      for (int64_t c = 0; c < n; ++c)
        pieces[group[c]] = cut(pieces[group[c]],
                               part(pieces[group[c]].region, y.axis, n, c));
      break;
    case BoxingKind::toPartial:
      if (x.kind == SbpKind::Broadcast) {
        if (!(error = sameRegion(pieces, group, true)).empty())
          return error;
        // Copies are a max or min of themselves; a sum keeps one.
        for (int64_t c = 1; y.reduction == Reduction::Sum && c < n; ++c)
          std::fill(pieces[group[c]].values.begin(),
                    pieces[group[c]].values.end(), 0);
        break;
      }
      if (!(error = concat(pieces, group, x.axis, whole)).empty())
        return error;
      for (int64_t c = 0; c < n; ++c) {
        Piece zeros{whole.region, std::vector<int64_t>(whole.values.size())};
        forEach(pieces[group[c]].region,
                [&](const std::vector<int64_t> &index, int64_t position) {
                  zeros.values[positionIn(zeros.region, index)] =
                      pieces[group[c]].values[position];
                });
        pieces[group[c]] = std::move(zeros);
      }
      break;
    case BoxingKind::transfer:
      break;
    }
  }
  return "";
}

std::string boxingsim::check(const std::vector<int64_t> &shape,
                             const std::vector<int64_t> &logical,
                             const TensorLayout &layout,
                             const Pieces &pieces) {
  if (static_cast<int64_t>(pieces.size()) != numRanks(layout.mesh))
    return "wrong number of pieces";
  for (int64_t id = 0; id < numRanks(layout.mesh); ++id) {
    if (!(pieces[id].region == ofsupport::localSlice(shape, layout, id)))
      return "rank " + std::to_string(id) + " holds the wrong region";
    std::vector<int64_t> coord = ofsupport::meshCoordinate(layout.mesh, id);
    for (size_t axis = 0; axis < layout.mesh.size(); ++axis)
      if (layout.ndSbp[axis].kind == SbpKind::Broadcast)
        coord[axis] = 0;
    if (pieces[id].values != pieces[idOf(layout.mesh, coord)].values)
      return "rank " + std::to_string(id) + " differs from its replica";
  }
  if (gather(shape, layout, pieces) != logical)
    return "the pieces do not add up to the logical tensor";
  return "";
}
