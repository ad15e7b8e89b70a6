//===- CostModel.cpp - Alpha-beta cost of boxing and compute --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <limits>
#include <map>

using namespace mlir;
using namespace mlir::oneflow;

//===----------------------------------------------------------------------===//
// ClusterDesc
//===----------------------------------------------------------------------===//

// Measured on the 2-core build machine with `bench-collective-alpha-beta`
// (2 ranks as threads, Gloo over loopback TCP), best of three runs while
// other builds shared the cores: an 8-byte all-reduce took 265 to 540 us
// (2 alpha), a 64 MiB one 85 to 108 ms (2 alpha + n / beta); the fitted
// model then predicts a 64 MiB all-gather within 3 to 15%. Memory bandwidth
// is a single-thread memcpy of 64 MiB (1.0e10 to 1.7e10 B/s); flops are half
// the 370 GFLOP/s two-thread oneDNN matmul of bench/README.md (two ranks
// share the two cores).
static constexpr double kLoopbackAlpha = 1.3e-4;
static constexpr double kLoopbackBeta = 8.0e8;
static constexpr double kMemoryBandwidth = 1.7e10;
static constexpr double kFlops = 1.8e11;

ClusterDesc ClusterDesc::getDefault() {
  ClusterDesc desc;
  desc.ranksPerNode = std::numeric_limits<int32_t>::max();
  desc.intraNode = {kLoopbackAlpha, kLoopbackBeta};
  desc.interNode = {kLoopbackAlpha, kLoopbackBeta};
  desc.memoryBandwidth = kMemoryBandwidth;
  desc.flops = kFlops;
  return desc;
}

namespace {
/// Reads keys of one JSON object into fields, reporting the first problem
/// as "<source>: key '<path>' ...".
struct JsonReader {
  StringRef source;
  std::string &error;

  bool fail(const Twine &key, const Twine &what) {
    error = (source + ": key '" + key + "' " + what).str();
    return false;
  }

  bool positiveNumber(const llvm::json::Value &value, const Twine &key,
                      double &out, bool allowZero = false) {
    std::optional<double> number = value.getAsNumber();
    if (!number || *number < 0 || (!allowZero && *number == 0))
      return fail(key, allowZero ? "must be a number at least 0"
                                 : "must be a positive number");
    out = *number;
    return true;
  }

  bool link(const llvm::json::Value &value, StringRef key, LinkDesc &out) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail(key, "must be an object with 'alpha' and 'beta'");
    for (const auto &[name, field] : *object) {
      if (name == "alpha") {
        if (!positiveNumber(field, key + ".alpha", out.alpha,
                            /*allowZero=*/true))
          return false;
      } else if (name == "beta") {
        if (!positiveNumber(field, key + ".beta", out.beta))
          return false;
      } else {
        return fail(key + "." + name.str(), "is unknown (expected 'alpha' or "
                                            "'beta')");
      }
    }
    return true;
  }

  /// {"all_reduce": link, ...} into the four slots.
  bool collectives(const llvm::json::Value &value, const Twine &key,
                   std::optional<LinkDesc> &allReduce,
                   std::optional<LinkDesc> &reduceScatter,
                   std::optional<LinkDesc> &allGather,
                   std::optional<LinkDesc> &allToAll) {
    const llvm::json::Object *object = value.getAsObject();
    if (!object)
      return fail(key, "must be an object of collectives");
    for (const auto &[name, link] : *object) {
      std::optional<LinkDesc> *slot = name == "all_reduce" ? &allReduce
                                      : name == "reduce_scatter"
                                          ? &reduceScatter
                                      : name == "all_gather" ? &allGather
                                      : name == "all_to_all" ? &allToAll
                                                             : nullptr;
      std::string path = (key + "." + name.str()).str();
      if (!slot)
        return fail(path, "is unknown (expected all_reduce, reduce_scatter, "
                          "all_gather, all_to_all)");
      LinkDesc parsed;
      if (!this->link(link, path, parsed))
        return false;
      *slot = parsed;
    }
    return true;
  }

  /// [{"mesh": [d, ...], "axis": k, "collectives": {...}}, ...].
  bool meshAxes(const llvm::json::Value &value, StringRef key,
                std::vector<ClusterDesc::MeshAxisFigures> &out) {
    const llvm::json::Array *array = value.getAsArray();
    if (!array)
      return fail(key, "must be an array of {\"mesh\", \"axis\", "
                       "\"collectives\"} objects");
    for (size_t i = 0; i < array->size(); ++i) {
      std::string path = (key + "[" + Twine(i) + "]").str();
      const llvm::json::Object *object = (*array)[i].getAsObject();
      const llvm::json::Array *mesh =
          object ? object->getArray("mesh") : nullptr;
      std::optional<int64_t> axis =
          object ? object->getInteger("axis") : std::nullopt;
      const llvm::json::Value *collectives =
          object ? object->get("collectives") : nullptr;
      if (!mesh || !axis || !collectives || object->size() != 3)
        return fail(path, "must be {\"mesh\": [sizes], \"axis\": a mesh "
                          "axis, \"collectives\": {...}}");
      ClusterDesc::MeshAxisFigures figures;
      for (const llvm::json::Value &size : *mesh) {
        std::optional<int64_t> d = size.getAsInteger();
        if (!d || *d < 1)
          return fail(path + ".mesh", "must list sizes of at least 1");
        figures.mesh.push_back(*d);
      }
      if (figures.mesh.empty() || *axis < 0 ||
          *axis >= static_cast<int64_t>(figures.mesh.size()))
        return fail(path + ".axis", "must be an axis of the mesh");
      figures.axis = *axis;
      if (!this->collectives(*collectives, path + ".collectives",
                             figures.allReduce, figures.reduceScatter,
                             figures.allGather, figures.allToAll))
        return false;
      out.push_back(std::move(figures));
    }
    return true;
  }
};
} // namespace

FailureOr<ClusterDesc> ClusterDesc::parse(StringRef json, StringRef source,
                                          std::string &error) {
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value) {
    error = (source + ": invalid JSON: " + llvm::toString(value.takeError()))
                .str();
    return failure();
  }
  const llvm::json::Object *object = value->getAsObject();
  if (!object) {
    error = (source + ": the cluster description must be a JSON object").str();
    return failure();
  }
  ClusterDesc desc = getDefault();
  JsonReader reader{source, error};
  // Keys in sorted order, so that the first problem reported is stable.
  SmallVector<StringRef> keys;
  for (const auto &entry : *object)
    keys.push_back(entry.first);
  llvm::sort(keys);
  for (StringRef key : keys) {
    const llvm::json::Value &field = *object->get(key);
    bool ok = true;
    if (key == "ranks_per_node") {
      std::optional<int64_t> ranks = field.getAsInteger();
      ok = ranks && *ranks >= 1
               ? (desc.ranksPerNode = *ranks, true)
               : reader.fail(key, "must be an integer at least 1");
    } else if (key == "intra_node") {
      ok = reader.link(field, key, desc.intraNode);
    } else if (key == "inter_node") {
      ok = reader.link(field, key, desc.interNode);
    } else if (key == "collectives") {
      ok = reader.collectives(field, key, desc.allReduce, desc.reduceScatter,
                              desc.allGather, desc.allToAll);
    } else if (key == "mesh_axes") {
      ok = reader.meshAxes(field, key, desc.meshAxes);
    } else if (key == "memory_bandwidth") {
      ok = reader.positiveNumber(field, key, desc.memoryBandwidth);
    } else if (key == "op_overhead") {
      ok = reader.positiveNumber(field, key, desc.opOverhead,
                                 /*allowZero=*/true);
    } else if (key == "flops") {
      ok = reader.positiveNumber(field, key, desc.flops);
    } else {
      ok = reader.fail(key, "is unknown (expected ranks_per_node, "
                            "intra_node, inter_node, collectives, "
                            "mesh_axes, memory_bandwidth, flops, "
                            "op_overhead)");
    }
    if (!ok)
      return failure();
  }
  return desc;
}

FailureOr<ClusterDesc> ClusterDesc::load(StringRef path, std::string &error) {
  if (path.empty())
    return getDefault();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer) {
    error = (path + ": cannot read: " + buffer.getError().message()).str();
    return failure();
  }
  return parse((*buffer)->getBuffer(), path, error);
}

const LinkDesc &ClusterDesc::linkFor(ArrayRef<int64_t> ranks) const {
  if (ranks.empty())
    return intraNode;
  int64_t node = ranks.front() / ranksPerNode;
  for (int64_t rank : ranks)
    if (rank / ranksPerNode != node)
      return interNode;
  return intraNode;
}

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
    cost.seconds = 2 * (p - 1) * link->alpha + 2 * share / link->beta;
    cost.bytesPerRank = static_cast<int64_t>(2 * share);
    break;
  case BoxingKind::reduceScatter:
  case BoxingKind::allGather:
  case BoxingKind::allToAll:
    cost.seconds = (p - 1) * link->alpha + share / link->beta;
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

double mlir::oneflow::computeCost(Operation *op, int64_t pieces,
                                  const ClusterDesc &cluster) {
  auto cost = dyn_cast<CostInterface>(op);
  if (!cost)
    return 0;
  double seconds = std::max(cost.getComputeFlops() / cluster.flops,
                            cost.getMemoryBytes() / cluster.memoryBandwidth);
  return cluster.opOverhead + seconds / std::max<int64_t>(1, pieces);
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
