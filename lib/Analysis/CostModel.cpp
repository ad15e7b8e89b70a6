//===- CostModel.cpp - Alpha-beta cost of boxing and compute --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::oneflow;

//===----------------------------------------------------------------------===//
// Boxing steps
//===----------------------------------------------------------------------===//

/// The logical shape with unknown dimensions taken as 1.
static std::vector<int64_t> staticShape(RankedTensorType type) {
  std::vector<int64_t> shape;
  for (int64_t dim : type.getShape())
    shape.push_back(ShapedType::isDynamic(dim) ? 1 : dim);
  return shape;
}

static int64_t elementBytes(RankedTensorType type) {
  return std::max<int64_t>(1, type.getElementTypeBitWidth() / 8);
}

static int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  return n;
}

/// Bytes of the piece that the group of `axis` holds together under
/// `layout`: the tensor cut by the splits of every other mesh axis (the
/// largest such piece, that of the first group).
static int64_t groupBytes(RankedTensorType type, GlobalAttr layout,
                          int64_t axis) {
  ofsupport::TensorLayout support = toSupportLayout(layout);
  support.ndSbp[axis] = ofsupport::Sbp::broadcast();
  std::vector<int64_t> piece = ofsupport::localShape(staticShape(type), support,
                                                     /*parallelId=*/0);
  return numElements(piece) * elementBytes(type);
}

/// The link the groups of mesh axis `axis` of `placement` use: inter-node
/// as soon as one of them spans two nodes.
static const LinkDesc &axisLink(PlacementAttr placement, int64_t axis,
                                const ClusterDesc &cluster) {
  ArrayRef<int64_t> mesh = placement.getMesh();
  ArrayRef<int64_t> ranks = placement.getRanks();
  int64_t stride = 1;
  for (int64_t d = axis + 1, e = mesh.size(); d < e; ++d)
    stride *= mesh[d];
  // A group starts at every id whose coordinate on `axis` is 0.
  for (int64_t start = 0, e = ranks.size(); start < e; ++start) {
    if ((start / stride) % mesh[axis] != 0)
      continue;
    SmallVector<int64_t> group;
    for (int64_t i = 0; i < mesh[axis]; ++i)
      group.push_back(ranks[start + i * stride]);
    if (&cluster.linkFor(group) == &cluster.interNode)
      return cluster.interNode;
  }
  return cluster.intraNode;
}

/// The slot of `kind` among four collectives' figures.
static const std::optional<LinkDesc> *
slotOf(BoxingKind kind, const std::optional<LinkDesc> &allReduce,
       const std::optional<LinkDesc> &reduceScatter,
       const std::optional<LinkDesc> &allGather,
       const std::optional<LinkDesc> &allToAll) {
  switch (kind) {
  case BoxingKind::allReduce:
    return &allReduce;
  case BoxingKind::reduceScatter:
    return &reduceScatter;
  case BoxingKind::allGather:
    return &allGather;
  case BoxingKind::allToAll:
    return &allToAll;
  default:
    return nullptr;
  }
}

/// The measured figures of `step`'s collective: of its mesh axis when the
/// cluster has them for the placement's mesh over ranks 0 .. N-1 in order,
/// else of the node; null when neither was measured.
static const std::optional<LinkDesc> *
measuredFor(const BoxingStep &step, PlacementAttr placement,
            const ClusterDesc &cluster) {
  ArrayRef<int64_t> ranks = placement.getRanks();
  bool inOrder = llvm::all_of(llvm::enumerate(ranks), [](auto entry) {
    return entry.value() == static_cast<int64_t>(entry.index());
  });
  for (const ClusterDesc::MeshAxisFigures &figures : cluster.meshAxes) {
    if (!inOrder || figures.axis != step.meshAxis ||
        ArrayRef<int64_t>(figures.mesh) != placement.getMesh())
      continue;
    const std::optional<LinkDesc> *slot =
        slotOf(step.kind, figures.allReduce, figures.reduceScatter,
               figures.allGather, figures.allToAll);
    if (slot && *slot)
      return slot;
  }
  const std::optional<LinkDesc> *slot =
      slotOf(step.kind, cluster.allReduce, cluster.reduceScatter,
             cluster.allGather, cluster.allToAll);
  return slot && *slot ? slot : nullptr;
}

/// A transfer: every destination rank receives the parts of its piece it
/// does not hold, one message per distinct source piece (one replica of each
/// broadcast copy, every partial one); the busiest rank sets the time.
static StepCost priceTransfer(RankedTensorType type, const BoxingStep &step,
                              const ClusterDesc &cluster) {
  std::vector<int64_t> shape = staticShape(type);
  PlacementAttr src = step.from.getPlacement(), dst = step.to.getPlacement();
  ofsupport::TensorLayout srcLayout = toSupportLayout(step.from);
  ofsupport::TensorLayout dstLayout = toSupportLayout(step.to);

  // Distinct source pieces: slice plus coordinates on partial axes, with
  // the ranks that hold each.
  std::map<std::vector<int64_t>, SmallVector<int64_t>> pieces;
  std::map<std::vector<int64_t>, std::vector<ofsupport::Range>> slices;
  for (int64_t i = 0, e = src.getNumRanks(); i < e; ++i) {
    std::vector<ofsupport::Range> slice =
        ofsupport::localSlice(shape, srcLayout, i);
    std::vector<int64_t> key;
    for (const ofsupport::Range &range : slice) {
      key.push_back(range.begin);
      key.push_back(range.size);
    }
    std::vector<int64_t> coord = ofsupport::meshCoordinate(srcLayout.mesh, i);
    for (size_t d = 0; d < coord.size(); ++d)
      if (srcLayout.ndSbp[d].kind == ofsupport::SbpKind::Partial)
        key.push_back(coord[d]);
    pieces[key].push_back(src.getRanks()[i]);
    slices[key] = slice;
  }

  StepCost cost;
  int64_t bytesPerElement = elementBytes(type);
  for (int64_t j = 0, e = dst.getNumRanks(); j < e; ++j) {
    int64_t rank = dst.getRanks()[j];
    std::vector<ofsupport::Range> want =
        ofsupport::localSlice(shape, dstLayout, j);
    double seconds = 0;
    int64_t bytes = 0;
    for (const auto &[key, holders] : pieces) {
      if (llvm::is_contained(holders, rank))
        continue;
      int64_t elements = 1;
      for (auto [have, need] : llvm::zip(slices[key], want)) {
        int64_t lo = std::max(have.begin, need.begin);
        int64_t hi = std::min(have.begin + have.size, need.begin + need.size);
        elements *= std::max<int64_t>(0, hi - lo);
      }
      if (elements == 0)
        continue;
      const LinkDesc &link = cluster.linkFor({holders.front(), rank});
      int64_t messageBytes = elements * bytesPerElement;
      seconds += link.alpha + messageBytes / link.beta;
      bytes += messageBytes;
    }
    cost.seconds = std::max(cost.seconds, seconds);
    cost.bytesPerRank = std::max(cost.bytesPerRank, bytes);
  }
  return cost;
}

/// Whether oneflow-fuse-all-reduce puts an all-reduce of `type` laid out
/// as `from` in a bucket with others: every rank holds the whole tensor
/// (no mesh axis splits it) and it is at most the pass's default bucket.
static bool isBucketed(RankedTensorType type, GlobalAttr from) {
  constexpr int64_t kBucketBytes = 4 << 20; // bucket-bytes' default.
  if (!type.hasStaticShape() ||
      llvm::any_of(from.getNdSbp().getSbps(),
                   [](SbpAttr sbp) { return sbp.isSplit(); }))
    return false;
  return type.getNumElements() * elementBytes(type) <= kBucketBytes;
}

StepCost mlir::oneflow::priceBoxingStep(RankedTensorType type,
                                        const BoxingStep &step,
                                        const ClusterDesc &cluster) {
  if (step.kind == BoxingKind::transfer)
    return priceTransfer(type, step, cluster);

  PlacementAttr placement = step.from.getPlacement();
  int64_t p = placement.getMesh()[step.meshAxis];
  double n = groupBytes(type, step.from, step.meshAxis);
  const LinkDesc *link = &axisLink(placement, step.meshAxis, cluster);
  // Inside a node, a collective's own measured figures: those of this
  // mesh axis, else those of the whole node.
  if (link == &cluster.intraNode) {
    if (const std::optional<LinkDesc> *measured =
            measuredFor(step, placement, cluster))
      link = &**measured;
  }
  double share = double(p - 1) / p * n;
  StepCost cost;
  switch (step.kind) {
  case BoxingKind::allReduce:
    // Its actor's firing, and where oneflow-fuse-all-reduce buckets it (a
    // whole tensor on every rank), the reshape, slice and reshape around
    // it and its copies into and out of the bucket: a GPT's 29 gradients
    // became 88 more actors than ops (measured, 4 CPU ranks).
    cost.seconds = 2 * (p - 1) * link->alpha + 2 * share / link->beta +
                   cluster.opOverhead;
    // The copies read gradients written long before, once a step: at the
    // memory's bandwidth, not a cache-sized add's (the GPT example's bucket
    // concat and slices took 150 us a step on rank 0 of 4, 6 GB/s).
    if (isBucketed(type, step.from))
      cost.seconds += 2 * cluster.opOverhead + 2 * n / cluster.memoryBandwidth;
    cost.bytesPerRank = static_cast<int64_t>(2 * share);
    break;
  case BoxingKind::reduceScatter:
  case BoxingKind::allGather:
  case BoxingKind::allToAll:
    cost.seconds =
        (p - 1) * link->alpha + share / link->beta + cluster.opOverhead;
    cost.bytesPerRank = static_cast<int64_t>(share);
    break;
  case BoxingKind::localSlice:
    cost.seconds = cluster.opOverhead + n / p / cluster.memoryBandwidth;
    break;
  case BoxingKind::toPartial:
    cost.seconds = cluster.opOverhead + n / cluster.memoryBandwidth;
    break;
  case BoxingKind::transfer:
    llvm_unreachable("handled above");
  }
  return cost;
}

FailureOr<SmallVector<PricedStep>>
mlir::oneflow::priceBoxing(RankedTensorType type, GlobalAttr from,
                           GlobalAttr to, const ClusterDesc &cluster,
                           std::string &why) {
  RankedTensorType logical =
      RankedTensorType::get(type.getShape(), type.getElementType());
  FailureOr<SmallVector<BoxingStep>> route =
      planBoxing(logical, from, to, why);
  if (failed(route))
    return failure();
  SmallVector<PricedStep> priced;
  for (const BoxingStep &step : *route)
    priced.push_back({step, priceBoxingStep(logical, step, cluster)});
  return priced;
}

double mlir::oneflow::boxingCost(RankedTensorType type, GlobalAttr from,
                                 GlobalAttr to, const ClusterDesc &cluster) {
  if (from == to)
    return 0;
  std::string why;
  FailureOr<SmallVector<PricedStep>> priced =
      priceBoxing(type, from, to, cluster, why);
  if (failed(priced))
    return std::numeric_limits<double>::infinity();
  double seconds = 0;
  for (const PricedStep &step : *priced)
    seconds += step.cost.seconds;
  return seconds;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

/// Whether `op` is the maximum of a non-finite check and another check or
/// such a maximum: what the optimizer's step builds to combine its checks
/// (maximum(flag, check)), which oneflow-fuse-nonfinite-checks turns into
/// one check, the maximum of whose result with itself it removes.
static bool combinesChecks(Operation *op) {
  if (!isa<MaximumOp>(op))
    return false;
  auto isCheck = [](Value value) {
    return isa_and_nonnull<FindNonfiniteOp>(value.getDefiningOp());
  };
  auto isCheckOrCombined = [&](Value value) {
    return isCheck(value) || isa_and_nonnull<MaximumOp>(value.getDefiningOp());
  };
  return llvm::any_of(op->getOperands(), isCheck) &&
         llvm::all_of(op->getOperands(), isCheckOrCombined);
}

double mlir::oneflow::computeCost(Operation *op, int64_t pieces,
                                  const ClusterDesc &cluster) {
  auto cost = dyn_cast<CostInterface>(op);
  if (!cost || combinesChecks(op))
    return 0;
  double n = std::max<int64_t>(1, pieces);
  double flops = cost.getComputeFlops() / n;
  double bytes = cost.getMemoryBytes() / n;
  // The checks of a layout become one (oneflow-fuse-nonfinite-checks): each
  // reads its tensors, the firing is shared.
  if (isa<FindNonfiniteOp>(op))
    return bytes / cluster.bytesPerSecond(bytes);
  // An op whose own kernel was measured (a gelu, a layer_norm: more work
  // per byte than the add that gave the bandwidth) at its own rate.
  if (std::optional<double> rate =
          cluster.bytesPerSecondOf(op->getName().getStringRef(), bytes))
    return cluster.opOverhead + bytes / *rate;
  double seconds = std::max(flops / cluster.flopsPerSecond(flops),
                            bytes / cluster.bytesPerSecond(bytes));
  return cluster.opOverhead + seconds;
}

double mlir::oneflow::hiddenCommunicationCost(Operation *op,
                                              ArrayRef<NdSbpAttr> results,
                                              PlacementAttr placement,
                                              const ClusterDesc &cluster) {
  std::optional<int64_t> axis = getNormalizedAxis(op);
  if (!axis || results.empty())
    return 0;
  MLIRContext *context = op->getContext();
  SmallVector<SbpAttr> maxes, sums, whole;
  bool split = false;
  for (SbpAttr sbp : results.front()) {
    bool here = sbp.isSplit() && sbp.getAxis() == *axis;
    split |= here;
    maxes.push_back(here ? SbpAttr::getPartial(context, PartialReduction::max)
                         : sbp);
    sums.push_back(here ? SbpAttr::getPartial(context) : sbp);
    whole.push_back(here ? SbpAttr::getBroadcast(context) : sbp);
  }
  if (!split)
    return 0;
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[*axis] = 1;
  auto reduced = RankedTensorType::get(shape, type.getElementType());
  auto layout = [&](ArrayRef<SbpAttr> sbps) {
    return GlobalAttr::get(context, placement, NdSbpAttr::get(context, sbps));
  };
  return boxingCost(reduced, layout(maxes), layout(whole), cluster) +
         boxingCost(reduced, layout(sums), layout(whole), cluster);
}
