//===- SbpPropagation.cpp - Give every tensor a layout --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <limits>
#include <tuple>

#define DEBUG_TYPE "oneflow-sbp-propagation"

namespace mlir::oneflow {
#define GEN_PASS_DEF_SBPPROPAGATIONPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The cost of a layout change that cannot happen (across micro-batches):
/// above any real cost, finite so that candidates still compare.
static constexpr double kImpossible = 1e30;

/// Whether `op` handles tensors, and so needs an SBP rule.
static bool hasTensors(Operation *op) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

/// The first placement a layout in `func` states, in program order
/// (arguments first), or null if it states none.
static PlacementAttr findFirstPlacement(func::FuncOp func) {
  for (Type type : func.getArgumentTypes())
    if (GlobalAttr global = getGlobalEncoding(type))
      return global.getPlacement();
  PlacementAttr found;
  func.walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (GlobalAttr global = getGlobalEncoding(type)) {
        found = global.getPlacement();
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

/// `value`'s type with the encoding `layout`.
static void setLayout(Value value, GlobalAttr layout) {
  auto type = cast<RankedTensorType>(value.getType());
  value.setType(RankedTensorType::get(type.getShape(), type.getElementType(),
                                      layout));
}

/// A data source's layout: `S(0)` on every mesh axis where the batch left
/// by the axes before still gives each device a row, `B` elsewhere.
static NdSbpAttr batchSplit(RankedTensorType type, ArrayRef<int64_t> mesh) {
  MLIRContext *context = type.getContext();
  SmallVector<SbpAttr> sbps;
  int64_t rows = type.getRank() > 0 ? type.getDimSize(0) : 0;
  for (int64_t size : mesh) {
    if (type.getRank() > 0 && (ShapedType::isDynamic(rows) || rows >= size)) {
      sbps.push_back(SbpAttr::getSplit(context, 0));
      if (!ShapedType::isDynamic(rows))
        rows /= size;
    } else {
      sbps.push_back(SbpAttr::getBroadcast(context));
    }
  }
  return NdSbpAttr::get(context, sbps);
}

static NdSbpAttr allBroadcast(MLIRContext *context, size_t meshRank) {
  return NdSbpAttr::get(context, SmallVector<SbpAttr>(
                                     meshRank, SbpAttr::getBroadcast(context)));
}

namespace {

struct SbpPropagationPass
    : public mlir::oneflow::impl::SbpPropagationPassBase<SbpPropagationPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  LogicalResult propagate(Operation *op, PlacementAttr defaultPlacement);
  LogicalResult placeSource(Operation *op, PlacementAttr defaultPlacement);
  /// Chooses among `candidates` of `op` on `placement` (none matches the
  /// producers' layouts): the cheapest.
  const NdSbpSignature *
  chooseCheapest(Operation *op, PlacementAttr placement,
                 ArrayRef<GlobalAttr> producers,
                 ArrayRef<NdSbpSignature> candidates);
  /// Whether `op` with `candidate` runs per micro-batch (a value it reads
  /// or writes is not B over the micro-batches).
  bool runsPerMicroBatch(Operation *op, PlacementAttr placement,
                         const NdSbpSignature &candidate) const;
  double cachedBoxingCost(RankedTensorType type, GlobalAttr from,
                          GlobalAttr to);
  /// What making an operand partial that was not costs later: as in
  /// OneFlow (`Penalty4PartialInConsumer`), a partial the op creates must
  /// be reduced again, priced as an all-reduce of the operand on each mesh
  /// axis where `to` is P and `from` is not.
  double partialPenalty(RankedTensorType type, GlobalAttr from,
                        GlobalAttr to);

  ClusterDesc clusterDesc;
  /// Mesh axis 0 is micro-batches (time), not devices.
  bool microBatched = false;
  /// In a micro-batched program: values that exist only once a step's
  /// micro-batches are summed (B on mesh axis 0, computed from a sum over
  /// them). No op that runs per micro-batch can read one in that step.
  DenseSet<Value> late;
  /// Boxing costs already computed, by (logical type, from, to).
  DenseMap<std::tuple<Type, Attribute, Attribute>, double> boxingCosts;
};

} // namespace

double SbpPropagationPass::cachedBoxingCost(RankedTensorType type,
                                            GlobalAttr from, GlobalAttr to) {
  if (from == to)
    return 0;
  // Across micro-batches a value can only be summed (P -> B, an
  // accumulation) or sliced from a value whole per step (B -> S(i)).
  // Between placements (pipeline stages) a value moves micro-batch by
  // micro-batch as it is, or once, summed or whole and then sliced.
  if (microBatched) {
    SbpAttr before = from.getNdSbp()[0], after = to.getNdSbp()[0];
    bool possible = (before == after && !before.isPartial()) ||
                    (before.isPartialSum() && after.isBroadcast()) ||
                    (before.isBroadcast() && after.isSplit());
    if (from.getPlacement() == to.getPlacement())
      possible |= before == after;
    if (!possible)
      return kImpossible;
  }
  auto logical = RankedTensorType::get(type.getShape(), type.getElementType());
  auto [it, inserted] =
      boxingCosts.try_emplace(std::make_tuple(Type(logical), from, to), 0.0);
  if (inserted)
    it->second = boxingCost(logical, from, to, clusterDesc);
  return it->second;
}

double SbpPropagationPass::partialPenalty(RankedTensorType type,
                                          GlobalAttr from, GlobalAttr to) {
  double penalty = 0;
  NdSbpAttr need = to.getNdSbp();
  for (int64_t axis = 0, e = need.size(); axis < e; ++axis) {
    if (!need[axis].isPartial())
      continue;
    if (from.getPlacement() == to.getPlacement() &&
        from.getNdSbp()[axis] == need[axis])
      continue;
    SmallVector<SbpAttr> reduced(need.getSbps());
    reduced[axis] = SbpAttr::getBroadcast(type.getContext());
    BoxingStep allReduce{
        BoxingKind::allReduce, axis, to,
        GlobalAttr::get(type.getContext(), to.getPlacement(),
                        NdSbpAttr::get(type.getContext(), reduced))};
    penalty += priceBoxingStep(type, allReduce, clusterDesc).seconds;
  }
  return penalty;
}

LogicalResult SbpPropagationPass::placeSource(Operation *op,
                                              PlacementAttr defaultPlacement) {
  for (Value result : op->getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    if (GlobalAttr stated = getGlobalEncoding(type)) {
      if (!fitsShape(type, stated.getNdSbp(), stated.getPlacement().getMesh()))
        return op->emitError()
               << "layout " << stringifyNdSbp(stated.getNdSbp()) << " of "
               << type << " leaves some device an empty piece";
      continue;
    }
    PlacementAttr placement =
        op->getAttrOfType<PlacementAttr>(kPlacementAttrName);
    if (!placement)
      placement = defaultPlacement;
    ArrayRef<int64_t> mesh = placement.getMesh();
    NdSbpAttr ndSbp = isa<InputOp>(op)
                          ? batchSplit(type, mesh)
                          : allBroadcast(op->getContext(), mesh.size());
    setLayout(result, GlobalAttr::get(op->getContext(), placement, ndSbp));
  }
  return success();
}

/// The layout operand `i` must have for `candidate` on `placement`.
static GlobalAttr requiredLayout(PlacementAttr placement,
                                 const NdSbpSignature &candidate, unsigned i) {
  return GlobalAttr::get(placement.getContext(), placement,
                         candidate.operands[i]);
}

/// An output keeps what it is given, except that a partial scalar (a loss)
/// is summed: every rank then holds the value, for logging and progress, at
/// the cost of one tiny all-reduce. P(max) and P(min), which an output
/// cannot assemble, are all-reduced too.
static void layOutOutput(OutputOp op, GlobalAttr global) {
  MLIRContext *context = op->getContext();
  SmallVector<Attribute> layouts{global};
  auto type = cast<RankedTensorType>(op->getOperand(0).getType());
  if (global && (!hasOnlyPartialSums(global) ||
                 (type.getRank() == 0 &&
                  llvm::any_of(global.getNdSbp(),
                               [](SbpAttr sbp) { return sbp.isPartial(); }))))
    layouts[0] = GlobalAttr::get(
        context, global.getPlacement(),
        allBroadcast(context, global.getNdSbp().size()));
  operandLayoutsAttr(context).setAttr(op, ArrayAttr::get(context, layouts));
}

/// OneFlow's rule: the first candidate whose operands all match the
/// producers' layouts, or null.
static const NdSbpSignature *
firstMatching(PlacementAttr placement, ArrayRef<GlobalAttr> producers,
              ArrayRef<NdSbpSignature> candidates) {
  for (const NdSbpSignature &candidate : candidates) {
    bool matches = true;
    for (unsigned i = 0, e = producers.size(); i < e && matches; ++i)
      matches = producers[i] == requiredLayout(placement, candidate, i);
    if (matches)
      return &candidate;
  }
  return nullptr;
}

bool SbpPropagationPass::runsPerMicroBatch(
    Operation *op, PlacementAttr placement,
    const NdSbpSignature &candidate) const {
  if (!microBatched)
    return false;
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    if (!requiredLayout(placement, candidate, i).getNdSbp()[0].isBroadcast())
      return true;
  return llvm::any_of(candidate.results,
                      [](NdSbpAttr sbp) { return !sbp[0].isBroadcast(); });
}

const NdSbpSignature *SbpPropagationPass::chooseCheapest(
    Operation *op, PlacementAttr placement, ArrayRef<GlobalAttr> producers,
    ArrayRef<NdSbpSignature> candidates) {
  ArrayRef<int64_t> mesh = placement.getMesh();
  // On ties, the one that boxes the fewest variables (or casts of them,
  // bf16 weights): a parameter keeps the layout it was given
  // (tensor-parallel weights stay split, the activations move) where that
  // costs no more. Then the earlier one.
  auto boxedVariables = [&](const NdSbpSignature &candidate) {
    unsigned count = 0;
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      count += getCastVariable(operand) &&
               producers[i] != requiredLayout(placement, candidate, i);
    return count;
  };
  bool readsLate = llvm::any_of(
      op->getOperands(), [&](Value operand) { return late.contains(operand); });
  const NdSbpSignature *chosen = nullptr;
  double best = std::numeric_limits<double>::infinity();
  unsigned bestBoxed = 0;
  for (const NdSbpSignature &candidate : candidates) {
    double cost = computeCost(op, candidate.countPieces(mesh), clusterDesc) +
                  hiddenCommunicationCost(op, candidate.results, placement,
                                          clusterDesc);
    // A sum over the step's micro-batches (P -> B on mesh axis 0) is late
    // too.
    bool sumsOperand = false;
    for (unsigned i = 0, e = producers.size(); i < e; ++i)
      sumsOperand |=
          microBatched && producers[i] &&
          producers[i].getNdSbp()[0].isPartialSum() &&
          requiredLayout(placement, candidate, i).getNdSbp()[0].isBroadcast();
    if ((readsLate || sumsOperand) &&
        runsPerMicroBatch(op, placement, candidate))
      cost += kImpossible;
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      auto type = cast<RankedTensorType>(operand.getType());
      GlobalAttr need = requiredLayout(placement, candidate, i);
      cost += cachedBoxingCost(type, producers[i], need) +
              partialPenalty(type, producers[i], need);
    }
    unsigned boxed = boxedVariables(candidate);
    // Costs within a relative 1e-9 tie (sums of the same terms in another
    // order).
    bool tie = chosen && std::abs(cost - best) <= 1e-9 * std::abs(best);
    if (!chosen || (!tie && cost < best) || (tie && boxed < bestBoxed)) {
      best = cost;
      bestBoxed = boxed;
      chosen = &candidate;
    }
  }
  return chosen;
}

LogicalResult SbpPropagationPass::propagate(Operation *op,
                                            PlacementAttr defaultPlacement) {
  MLIRContext *context = op->getContext();
  auto sbpOp = dyn_cast<SbpInterface>(op);
  // Layout ops (boxing and its lowered steps) state every layout already.
  auto laidOut = [](Type type) { return bool(getGlobalEncoding(type)); };
  if (!sbpOp && llvm::all_of(op->getOperandTypes(), laidOut) &&
      llvm::all_of(op->getResultTypes(), laidOut))
    return success();
  if (!sbpOp)
    return op->emitError() << "op '" << op->getName()
                           << "' has no SBP rule (SbpInterface)";
  // Signatures are chosen by cost: an op that cannot say what it costs
  // would be priced as free.
  if (!isa<CostInterface>(op))
    return op->emitError() << "op '" << op->getName()
                           << "' has no cost rule (CostInterface)";
  if (op->getNumOperands() == 0)
    return placeSource(op, defaultPlacement);

  // A signature pinned by hand (operand layouts stated, every result laid
  // out) is kept as it is; oneflow-insert-boxing checks the attribute.
  if (op->hasAttr(kOperandLayoutsAttrName) &&
      llvm::all_of(op->getResultTypes(),
                   [](Type type) { return getGlobalEncoding(type); }))
    return success();

  SmallVector<GlobalAttr> producers;
  for (Value operand : op->getOperands())
    producers.push_back(getGlobalEncoding(operand.getType()));

  if (auto output = dyn_cast<OutputOp>(op)) {
    layOutOutput(output, producers[0]);
    return success();
  }

  // Where it runs and what it may choose there (the analysis library's
  // legality, shared with oneflow-auto-parallel).
  std::string error;
  FailureOr<PlacementAttr> placed =
      getOpPlacement(op, producers.front().getPlacement(), error);
  if (failed(placed))
    return op->emitError() << error;
  PlacementAttr placement = *placed;
  FailureOr<SmallVector<NdSbpSignature>> legal =
      getLegalSignatures(sbpOp, placement, producers, error);
  if (failed(legal))
    return op->emitError() << error;
  const NdSbpSignature *chosen = firstMatching(placement, producers, *legal);
  if (!chosen)
    chosen = chooseCheapest(op, placement, producers, *legal);

  for (auto [result, ndSbp] : llvm::zip(op->getResults(), chosen->results))
    setLayout(result, GlobalAttr::get(context, placement, ndSbp));
  // In a micro-batched program, what reads a late value or sums over the
  // micro-batches, once per step, is late.
  bool readsLate = llvm::any_of(
      op->getOperands(), [&](Value operand) { return late.contains(operand); });
  if (microBatched && !runsPerMicroBatch(op, placement, *chosen)) {
    bool sums = llvm::any_of(producers, [](GlobalAttr producer) {
      return producer && producer.getNdSbp()[0].isPartialSum();
    });
    if (readsLate || sums)
      for (Value result : op->getResults())
        late.insert(result);
  }
  SmallVector<Attribute> layouts;
  for (unsigned i = 0, e = producers.size(); i < e; ++i)
    layouts.push_back(requiredLayout(placement, *chosen, i));
  operandLayoutsAttr(context).setAttr(op, ArrayAttr::get(context, layouts));
  return success();
}

void SbpPropagationPass::runOnOperation() {
  func::FuncOp func = getOperation();
  PlacementAttr defaultPlacement = findFirstPlacement(func);
  if (!defaultPlacement)
    return;

  std::string error;
  FailureOr<ClusterDesc> loaded = ClusterDesc::load(cluster, error);
  if (failed(loaded)) {
    func.emitError() << error;
    return signalPassFailure();
  }
  clusterDesc = *loaded;
  boxingCosts.clear();
  late.clear();
  microBatched = getMicroBatches(func) > 1;

  // Arguments without a layout are data, like inputs.
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<RankedTensorType>(arg.getType());
    if (type && !getGlobalEncoding(type))
      setLayout(arg, GlobalAttr::get(&getContext(), defaultPlacement,
                                     batchSplit(type, defaultPlacement.getMesh())));
  }

  for (Block &block : func.getBody()) {
    for (Operation &op : block) {
      if (isa<func::ReturnOp>(op) || !hasTensors(&op))
        continue;
      if (failed(propagate(&op, defaultPlacement)))
        return signalPassFailure();
    }
  }

  SmallVector<Type> results;
  if (!func.getBody().empty())
    llvm::append_range(results,
                       func.getBody().back().getTerminator()->getOperandTypes());
  func.setFunctionType(FunctionType::get(
      &getContext(), func.getBody().getArgumentTypes(), results));
}
