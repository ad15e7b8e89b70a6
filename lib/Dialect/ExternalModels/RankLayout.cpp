//===- RankLayout.cpp - Per-rank pieces and actor layouts -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/RankLayout.h"

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Interfaces/RankLoweringInterface.h"
#include "ofsupport/Layout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::oneflow;

static std::vector<int64_t> shapeOf(Type type) {
  ArrayRef<int64_t> shape = cast<RankedTensorType>(type).getShape();
  return {shape.begin(), shape.end()};
}

/// This rank's position in the placement of `global`.
static int64_t parallelIdOf(GlobalAttr global, int64_t rank) {
  return global.getPlacement().getParallelId(rank);
}

/// The piece of `type` that `rank` holds, one range per axis.
static std::vector<ofsupport::Range> sliceOf(Type type, int64_t rank) {
  GlobalAttr global = getGlobalEncoding(type);
  return ofsupport::localSlice(shapeOf(type), toSupportLayout(global),
                               parallelIdOf(global, rank));
}

static std::vector<int64_t> beginsOf(const std::vector<ofsupport::Range> &r) {
  std::vector<int64_t> begins;
  for (const ofsupport::Range &range : r)
    begins.push_back(range.begin);
  return begins;
}

RankedTensorType mlir::oneflow::getLocalType(Type type, int64_t rank) {
  auto tensor = cast<RankedTensorType>(type);
  GlobalAttr global = getGlobalEncoding(tensor);
  if (!global)
    return rank == 0 ? RankedTensorType::get(tensor.getShape(),
                                             tensor.getElementType())
                     : RankedTensorType();
  int64_t parallelId = parallelIdOf(global, rank);
  if (parallelId < 0)
    return {};
  std::vector<int64_t> local = ofsupport::localShape(
      shapeOf(tensor), toSupportLayout(global), parallelId);
  return RankedTensorType::get(local, tensor.getElementType());
}

SmallVector<int64_t> mlir::oneflow::getLocalBegin(Type type, int64_t rank) {
  auto tensor = cast<RankedTensorType>(type);
  GlobalAttr global = getGlobalEncoding(tensor);
  if (!global)
    return SmallVector<int64_t>(tensor.getRank(), 0);
  if (parallelIdOf(global, rank) < 0)
    return {};
  std::vector<int64_t> begins = beginsOf(sliceOf(type, rank));
  return SmallVector<int64_t>(begins.begin(), begins.end());
}

static bool isTransfer(Operation *op) { return isa<TransferOp>(op); }

FailureOr<SmallVector<int64_t>> mlir::oneflow::getOpRanks(Operation *op) {
  SmallVector<int64_t> ranks;
  auto addRanks = [&](PlacementAttr placement) {
    for (int64_t rank : placement.getRanks())
      if (!llvm::is_contained(ranks, rank))
        ranks.push_back(rank);
  };
  if (isTransfer(op)) {
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                        op->getResultTypes()))
      if (GlobalAttr global = getGlobalEncoding(type))
        addRanks(global.getPlacement());
    llvm::sort(ranks);
    return ranks;
  }
  // The op's placement: its results', else its first operand's.
  PlacementAttr placement;
  bool singleDevice = false;
  auto visit = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    if (!isa<RankedTensorType>(type))
      return success();
    GlobalAttr global = getGlobalEncoding(type);
    if (!global) {
      singleDevice = true;
    } else if (!placement) {
      placement = global.getPlacement();
    } else if (global.getPlacement() != placement) {
      return op->emitOpError()
             << what << " #" << index << " is on " << global.getPlacement()
             << " but the op runs on " << placement
             << "; run oneflow-insert-boxing and oneflow-lower-boxing first";
    }
    if (singleDevice && placement)
      return op->emitOpError()
             << "mixes single-device and global tensors; run "
                "oneflow-sbp-propagation first";
    return success();
  };
  for (OpResult result : op->getResults())
    if (failed(visit(result.getType(), "result", result.getResultNumber())))
      return failure();
  for (OpOperand &operand : op->getOpOperands())
    if (failed(visit(operand.get().getType(), "operand",
                     operand.getOperandNumber())))
      return failure();
  if (!placement)
    return SmallVector<int64_t>{0};
  addRanks(placement);
  llvm::sort(ranks);
  return ranks;
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

/// The first mesh axis whose SBP differs between `from` and `to`.
static int64_t changedMeshAxis(GlobalAttr from, GlobalAttr to) {
  NdSbpAttr a = from.getNdSbp(), b = to.getNdSbp();
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return i;
  return 0;
}

/// Ranks that agree with `parallelId` on every mesh coordinate but
/// `meshAxis`, in order of their coordinate on it.
static SmallVector<int64_t> axisGroup(PlacementAttr placement,
                                      int64_t parallelId, int64_t meshAxis) {
  std::vector<int64_t> mesh(placement.getMesh().begin(),
                            placement.getMesh().end());
  std::vector<int64_t> coord = ofsupport::meshCoordinate(mesh, parallelId);
  SmallVector<int64_t> group;
  for (int64_t k = 0; k < mesh[meshAxis]; ++k) {
    coord[meshAxis] = k;
    int64_t linear = 0;
    for (size_t i = 0; i < mesh.size(); ++i)
      linear = linear * mesh[i] + coord[i];
    group.push_back(placement.getRanks()[linear]);
  }
  return group;
}

//===----------------------------------------------------------------------===//
// Transfers
//===----------------------------------------------------------------------===//

namespace {
/// Source ranks holding the same piece (replicas along B axes).
struct SourceGroup {
  std::vector<ofsupport::Range> slice;
  SmallVector<int64_t> ranks;
};
} // namespace

/// Appends `[peer, tag, begins..., sizes...]` for `piece` relative to
/// `origin` (the slice of the rank's own local tensor).
static void appendRecord(SmallVectorImpl<int64_t> &records, int64_t peer,
                         int64_t tag,
                         const std::vector<ofsupport::Range> &piece,
                         const std::vector<ofsupport::Range> &origin) {
  records.push_back(peer);
  records.push_back(tag);
  for (size_t i = 0; i < piece.size(); ++i)
    records.push_back(piece[i].begin - origin[i].begin);
  for (const ofsupport::Range &range : piece)
    records.push_back(range.size);
}

void mlir::oneflow::computeTransfer(
    Operation *op, SmallVectorImpl<int64_t> &group,
    llvm::MapVector<int64_t, TransferRecords> &records, int64_t microWorld) {
  Type srcType = op->getOperand(0).getType();
  Type dstType = op->getResult(0).getType();
  GlobalAttr src = getGlobalEncoding(srcType), dst = getGlobalEncoding(dstType);
  group.assign(*getOpRanks(op));
  for (int64_t rank : group)
    records[rank];
  auto indexOf = [&](int64_t rank) {
    return llvm::find(group, rank) - group.begin();
  };

  // Source ranks grouped by piece; partial sources keep one group per
  // coordinate on their P axes, since all of those pieces are summed.
  std::vector<int64_t> srcMesh(src.getPlacement().getMesh().begin(),
                               src.getPlacement().getMesh().end());
  SmallVector<SourceGroup> sources;
  SmallVector<std::vector<int64_t>> sourceKeys;
  for (auto [parallelId, rank] : llvm::enumerate(src.getPlacement().getRanks())) {
    std::vector<ofsupport::Range> slice = sliceOf(srcType, rank);
    std::vector<int64_t> key;
    std::vector<int64_t> coord = ofsupport::meshCoordinate(srcMesh, parallelId);
    for (auto [axis, sbp] : llvm::enumerate(src.getNdSbp()))
      if (sbp.getKind() == SbpKind::partial)
        key.push_back(coord[axis]);
    for (const ofsupport::Range &range : slice) {
      key.push_back(range.begin);
      key.push_back(range.size);
    }
    auto it = llvm::find(sourceKeys, key);
    if (it == sourceKeys.end()) {
      sourceKeys.push_back(key);
      sources.push_back({slice, {rank}});
    } else {
      sources[it - sourceKeys.begin()].ranks.push_back(rank);
    }
  }

  // Each destination rank receives the intersection of its piece with every
  // source piece, from the source replica that is itself if it can, else
  // from replicas in turn; tags number the messages in one global order.
  int64_t tag = 0;
  for (auto [dstIndex, rank] : llvm::enumerate(dst.getPlacement().getRanks())) {
    std::vector<ofsupport::Range> want = sliceOf(dstType, rank);
    for (const SourceGroup &source : sources) {
      std::vector<ofsupport::Range> piece;
      bool empty = false;
      for (size_t i = 0; i < want.size(); ++i) {
        int64_t begin = std::max(want[i].begin, source.slice[i].begin);
        int64_t end = std::min(want[i].begin + want[i].size,
                               source.slice[i].begin + source.slice[i].size);
        empty |= end <= begin;
        piece.push_back({begin, std::max<int64_t>(end - begin, 0)});
      }
      if (empty)
        continue;
      SmallVector<int64_t> replicas(source.ranks);
      if (microWorld > 0) {
        SmallVector<int64_t> sameMicro;
        for (int64_t replica : replicas)
          if (replica / microWorld == rank / microWorld)
            sameMicro.push_back(replica);
        if (!sameMicro.empty())
          replicas = std::move(sameMicro);
      }
      // Replicas take turns by receiver (the same turn in every
      // micro-batch).
      int64_t turn = microWorld > 0 ? rank % microWorld : dstIndex;
      int64_t sender = llvm::is_contained(replicas, rank)
                           ? rank
                           : replicas[turn % replicas.size()];
      appendRecord(records[sender].sends, indexOf(rank), tag, piece,
                   source.slice);
      appendRecord(records[rank].recvs, indexOf(sender), tag, piece, want);
      ++tag;
    }
  }
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// `value` restricted to `rank`'s piece of `type`, or zeros.
static Attribute localElements(DenseElementsAttr value, Type type,
                               int64_t rank, bool zero) {
  RankedTensorType local = getLocalType(type, rank);
  if (zero)
    return DenseElementsAttr::get(
        local, Builder(type.getContext()).getZeroAttr(local.getElementType()));
  std::vector<ofsupport::Range> slice = sliceOf(type, rank);
  std::vector<int64_t> shape = shapeOf(type);
  SmallVector<Attribute> values(value.getValues<Attribute>());
  SmallVector<Attribute> out;
  int64_t count = local.getNumElements();
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t n = 0; n < count; ++n) {
    int64_t linear = 0;
    for (size_t i = 0; i < shape.size(); ++i)
      linear = linear * shape[i] + slice[i].begin + index[i];
    out.push_back(values[value.isSplat() ? 0 : linear]);
    for (int64_t i = shape.size() - 1; i >= 0; --i) {
      if (++index[i] < slice[i].size)
        break;
      index[i] = 0;
    }
  }
  return DenseElementsAttr::get(local, out);
}

/// Whether `rank` holds zeros of a P layout (its coordinate on some P axis
/// is not 0; P(max) and P(min) pieces are all copies of the value), or,
/// for `kind` B, whether it is a replica (B axis coordinate not 0).
static bool isSecondary(GlobalAttr global, int64_t rank, SbpKind kind) {
  PlacementAttr placement = global.getPlacement();
  std::vector<int64_t> mesh(placement.getMesh().begin(),
                            placement.getMesh().end());
  std::vector<int64_t> coord =
      ofsupport::meshCoordinate(mesh, placement.getParallelId(rank));
  for (auto [axis, sbp] : llvm::enumerate(global.getNdSbp()))
    if (sbp.getKind() == kind && coord[axis] != 0 &&
        (kind != SbpKind::partial || sbp.isPartialSum()))
      return true;
  return false;
}

/// Whether some axis of `global` is a partial sum.
static bool hasPartialSum(GlobalAttr global) {
  return llvm::any_of(global.getNdSbp(),
                      [](SbpAttr sbp) { return sbp.isPartialSum(); });
}

//===----------------------------------------------------------------------===//
// Per-rank layouts: RankLoweringInterface models of the oneflow ops
//===----------------------------------------------------------------------===//

static DenseI64ArrayAttr intsAttr(Operation *op, ArrayRef<int64_t> values) {
  return Builder(op->getContext()).getDenseI64ArrayAttr(values);
}

/// oneflow.transfer: its group and this rank's records.
static Attribute transferLayout(Operation *op, const RankPosition &where,
                                NamedAttrList &) {
  bool reduce = hasPartialSum(getGlobalEncoding(op->getOperand(0).getType()));
  return actor::TransferLayoutAttr::get(
      op->getContext(), intsAttr(op, where.group), intsAttr(op, where.sends),
      intsAttr(op, where.recvs), reduce);
}

/// Collectives on one placement: the group along the mesh axis that
/// changes, the axes, the reduction.
static Attribute collectiveLayout(Operation *op, const RankPosition &where,
                                  NamedAttrList &) {
  GlobalAttr in = getGlobalEncoding(op->getOperand(0).getType()),
             out = getGlobalEncoding(op->getResult(0).getType());
  if (!in || !out || in.getPlacement() != out.getPlacement() ||
      in.getNdSbp() == out.getNdSbp())
    return {};
  int64_t meshAxis = changedMeshAxis(in, out);
  SbpAttr from = in.getNdSbp()[meshAxis], to = out.getNdSbp()[meshAxis];
  DenseI64ArrayAttr group = intsAttr(
      op, axisGroup(in.getPlacement(), parallelIdOf(in, where.rank), meshAxis));
  int64_t axis = isa<ReduceScatterOp>(op) ? to.getAxis()
                 : isa<AllGatherOp>(op)   ? from.getAxis()
                                          : 0;
  bool allToAll = isa<AllToAllOp>(op);
  PartialReduction reduction =
      from.isPartial() ? from.getReduction() : PartialReduction::sum;
  return actor::CollectiveLayoutAttr::get(
      op->getContext(), group, axis, allToAll ? from.getAxis() : 0,
      allToAll ? to.getAxis() : 0, reduction);
}

/// local_slice and to_partial on one placement: the box in the larger of
/// operand and result.
static Attribute localBoxingLayout(Operation *op, const RankPosition &where,
                                   NamedAttrList &) {
  int64_t rank = where.rank;
  Type inType = op->getOperand(0).getType(),
       outType = op->getResult(0).getType();
  GlobalAttr in = getGlobalEncoding(inType), out = getGlobalEncoding(outType);
  if (!in || !out || in.getPlacement() != out.getPlacement() ||
      in.getNdSbp() == out.getNdSbp())
    return {};
  std::vector<int64_t> inBegin = beginsOf(sliceOf(inType, rank));
  std::vector<int64_t> outBegin = beginsOf(sliceOf(outType, rank));
  bool slice = isa<LocalSliceOp>(op);
  SmallVector<int64_t> delta(inBegin.size());
  for (size_t i = 0; i < delta.size(); ++i)
    delta[i] = slice ? outBegin[i] - inBegin[i] : inBegin[i] - outBegin[i];
  // A local_slice keeps its box. A to_partial from B: the group's first
  // rank keeps the value and the others hold zeros; a max or min of copies
  // is the value, so every rank keeps it.
  int64_t meshAxis = changedMeshAxis(in, out);
  SbpAttr from = in.getNdSbp()[meshAxis], to = out.getNdSbp()[meshAxis];
  int64_t first =
      axisGroup(in.getPlacement(), parallelIdOf(in, rank), meshAxis).front();
  bool keep = slice || from.getKind() != SbpKind::broadcast ||
              !to.isPartialSum() || first == rank;
  return actor::LocalBoxingLayoutAttr::get(
      op->getContext(), intsAttr(op, delta), DenseI64ArrayAttr(), keep);
}

/// Sources, sinks and random ops: where the rank's piece sits in the
/// logical tensor. A constant's elements become its piece's.
static Attribute pieceLayout(Operation *op, const RankPosition &where,
                             NamedAttrList &attrs) {
  Builder b(op->getContext());
  int64_t rank = where.rank;
  bool isSink = isa<OutputOp>(op);
  Type type = isSink ? op->getOperand(0).getType() : op->getResult(0).getType();
  GlobalAttr global = getGlobalEncoding(type);
  if (!global)
    return {};
  bool zero = isa<InputOp, VariableOp, ConstantOp, FillOp>(op) &&
              isSecondary(global, rank, SbpKind::partial);
  auto piece = actor::PieceLayoutAttr::get(
      op->getContext(), intsAttr(op, shapeOf(type)),
      intsAttr(op, beginsOf(sliceOf(type, rank))), DenseI64ArrayAttr(), zero);
  if (isSink)
    return actor::SinkLayoutAttr::get(
        op->getContext(), piece, hasPartialSum(global),
        !isSecondary(global, rank, SbpKind::broadcast));
  if (auto constant = dyn_cast<ConstantOp>(op)) {
    StringAttr name = constant.getValueAttrName();
    if (auto dense = dyn_cast_or_null<DenseElementsAttr>(attrs.get(name)))
      attrs.set(name, localElements(dense, type, rank, zero));
  } else if (auto fill = dyn_cast<FillOp>(op); fill && zero) {
    attrs.set(fill.getValueAttrName(), b.getF64FloatAttr(0));
  }
  return piece;
}

/// A piece of a table split along the gathered axis holds some rows only
/// (the operand of gather and gather_elements, the result of their
/// gradients).
static Attribute indexRangeLayout(Operation *op, const RankPosition &where,
                                  NamedAttrList &) {
  Type type = isa<GatherOp, GatherElementsOp>(op) ? op->getOperand(0).getType()
                                                  : op->getResult(0).getType();
  if (!getGlobalEncoding(type))
    return {};
  std::vector<int64_t> shape = shapeOf(type);
  auto axis = TypeSwitch<Operation *, int64_t>(op)
                  .Case<GatherOp, GatherGradOp, GatherElementsOp,
                        GatherElementsGradOp>([](auto gather) {
                    return static_cast<int64_t>(gather.getAxis());
                  })
                  .Default([](Operation *) { return int64_t(0); });
  if (axis < 0)
    axis += shape.size();
  return actor::IndexRangeLayoutAttr::get(
      op->getContext(), sliceOf(type, where.rank)[axis].begin, shape[axis]);
}

/// A mean over split axes divides by the logical count.
static Attribute divisorLayout(Operation *op, const RankPosition &,
                               NamedAttrList &) {
  auto mean = cast<ReduceMeanOp>(op);
  Type type = mean.getX().getType();
  if (!getGlobalEncoding(type))
    return {};
  int64_t divisor = 1;
  std::vector<int64_t> shape = shapeOf(type);
  for (int64_t axis : mean.getAxes())
    divisor *= shape[axis < 0 ? axis + shape.size() : axis];
  return actor::DivisorLayoutAttr::get(op->getContext(), divisor);
}

namespace {
using RankLayoutFn = Attribute (*)(Operation *, const RankPosition &,
                                   NamedAttrList &);

template <typename OpTy, RankLayoutFn Fn>
struct RankLoweringModel
    : public RankLoweringInterface::ExternalModel<RankLoweringModel<OpTy, Fn>,
                                                  OpTy> {
  Attribute getRankLayout(Operation *op, const RankPosition &where,
                          NamedAttrList &attrs) const {
    return Fn(op, where, attrs);
  }
};
} // namespace

template <RankLayoutFn Fn, typename... OpTys>
static void attachRankModels(MLIRContext &context) {
  (OpTys::template attachInterface<RankLoweringModel<OpTys, Fn>>(context), ...);
}

void mlir::oneflow::detail::attachRankLoweringModels(MLIRContext &context) {
  attachRankModels<transferLayout, ONEFLOW_TRANSFER_LAYOUT_OPS>(context);
  attachRankModels<collectiveLayout, ONEFLOW_COLLECTIVE_LAYOUT_OPS>(context);
  attachRankModels<localBoxingLayout, ONEFLOW_LOCAL_BOXING_LAYOUT_OPS>(context);
  attachRankModels<pieceLayout, ONEFLOW_PIECE_LAYOUT_OPS>(context);
  attachRankModels<indexRangeLayout, ONEFLOW_INDEX_RANGE_LAYOUT_OPS>(context);
  attachRankModels<divisorLayout, ONEFLOW_DIVISOR_LAYOUT_OPS>(context);
}

Attribute mlir::oneflow::getRankLayout(Operation *op, int64_t rank,
                                       ArrayRef<int64_t> group,
                                       const TransferRecords *transfer,
                                       NamedAttrList &attrs) {
  auto lowering = dyn_cast<RankLoweringInterface>(op);
  if (!lowering)
    return {};
  RankPosition where;
  where.rank = rank;
  where.group = group;
  if (transfer) {
    where.sends = transfer->sends;
    where.recvs = transfer->recvs;
  }
  return lowering.getRankLayout(where, attrs);
}
