//===- ApplyStrategy.cpp - Lay out a one-device program -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Gives every input and variable of a program written for one device a
// layout on `devices` CPU ranks, from a built-in strategy (dp, tp, hybrid,
// zero) or a strategy file, and leaves every other layout to
// oneflow-sbp-propagation. Optimizer states take their parameter's layout.
// With pipeline stages, each stage's ranks get the strategy and every op
// the placement of its stage.
//
//===----------------------------------------------------------------------===//

#include "Strategy.h"

#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#define DEBUG_TYPE "oneflow-apply-strategy"

namespace mlir::oneflow {
#define GEN_PASS_DEF_APPLYSTRATEGYPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// `value`'s type without a layout, or with `layout`.
static void setLayout(Value value, GlobalAttr layout) {
  auto type = cast<RankedTensorType>(value.getType());
  value.setType(RankedTensorType::get(type.getShape(), type.getElementType(),
                                      layout));
}

/// Whether `op` changes layouts (boxing or one of its lowered steps).
static bool isLayoutChange(Operation *op) {
  return isa<BoxingOp, AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp,
             LocalSliceOp, ToPartialOp, TransferOp>(op);
}

/// The variable an update op writes (its parameter) and its states.
static std::pair<Value, OperandRange> getUpdated(Operation *op) {
  if (auto sgd = dyn_cast<SgdUpdateOp>(op))
    return {sgd.getParam(), sgd.getStates()};
  auto adam = cast<AdamUpdateOp>(op);
  return {adam.getParam(), adam.getStates()};
}

/// Each op's pipeline stage: its `oneflow.stage` mark, else for an
/// optimizer update its parameter's, for a source the earliest of its
/// readers', for any other op the latest of its operands'.
static FailureOr<DenseMap<Operation *, int64_t>> assignStages(func::FuncOp func,
                                                              int64_t stages) {
  DenseMap<Operation *, int64_t> stageOf;
  SmallVector<Operation *> sources, updates;
  for (Operation &op : func.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    if (std::optional<int64_t> stage = getStage(&op)) {
      if (*stage < 0 || *stage >= stages)
        return op.emitOpError()
               << "is marked for stage " << *stage << ", but the strategy has "
               << stages << " stages";
      stageOf[&op] = *stage;
    } else if (isa<SgdUpdateOp, AdamUpdateOp>(op)) {
      updates.push_back(&op);
    } else if (op.getNumOperands() == 0) {
      sources.push_back(&op);
    } else {
      int64_t stage = 0;
      for (Value operand : op.getOperands())
        if (auto it = stageOf.find(operand.getDefiningOp());
            it != stageOf.end())
          stage = std::max(stage, it->second);
      stageOf[&op] = stage;
    }
  }
  for (Operation *source : sources) {
    std::optional<int64_t> earliest;
    for (Operation *user : source->getUsers())
      if (auto it = stageOf.find(user); it != stageOf.end())
        earliest = std::min(earliest.value_or(it->second), it->second);
    stageOf[source] = earliest.value_or(0);
  }
  for (Operation *update : updates)
    stageOf[update] = stageOf.lookup(getUpdated(update).first.getDefiningOp());
  return stageOf;
}

namespace {

/// A source's nd-SBP and where it came from, for errors.
struct Choice {
  SmallVector<SbpAttr> sbps;
  std::string origin;
};

struct ApplyStrategyPass
    : public mlir::oneflow::impl::ApplyStrategyPassBase<ApplyStrategyPass> {
  using Base::Base;

  void runOnOperation() override;

private:
  /// What laying out the sources needs: the strategy, each stage's
  /// placement, each op's stage, the tensor-parallel axes' layouts, and
  /// the variables ZeRO shards (filled as they are laid out).
  struct SourceLayouts {
    Strategy strategy;
    SmallVector<PlacementAttr> placements;
    DenseMap<Operation *, int64_t> stageOf;
    SmallVector<DenseMap<Operation *, SbpAttr>> tensorAxes;
    SmallVector<VariableOp> sharded;
    int64_t stageDevices = 1;
  };

  /// The options and the program, checked before anything changes.
  LogicalResult checkOptions(func::FuncOp func);
  /// Micro-batches as the leading mesh axis of virtual ranks.
  void addMicroBatchAxis(func::FuncOp func, Strategy &strategy,
                         int64_t stageDevices);
  /// Stage s's placement: its ranks s * stageDevices onwards, in every
  /// micro-batch.
  SmallVector<PlacementAttr> stagePlacements(const Strategy &strategy,
                                             DeviceKind kind,
                                             int64_t stageDevices);
  /// Each op's pipeline stage (none without stages), marked on `func`.
  FailureOr<DenseMap<Operation *, int64_t>> markStages(func::FuncOp func);
  /// Clears the stale layouts (propagation derives them again) and places
  /// each op on its stage.
  void clearLayouts(func::FuncOp func, const SourceLayouts &layouts);
  /// Lays out input or variable `op` named `name`.
  LogicalResult layOut(Operation *op, StringRef name, SourceLayouts &layouts);
  Choice choose(Operation *source, StringRef name, const Strategy &strategy,
                ArrayRef<DenseMap<Operation *, SbpAttr>> tensorAxes);
  void shardForZero(func::FuncOp func, ArrayRef<VariableOp> sharded);
};

} // namespace

Choice ApplyStrategyPass::choose(
    Operation *source, StringRef name, const Strategy &strategy,
    ArrayRef<DenseMap<Operation *, SbpAttr>> tensorAxes) {
  MLIRContext *context = source->getContext();
  bool isInput = isa<InputOp>(source);
  if (!strategy.isBuiltin()) {
    const auto &rules = isInput ? strategy.inputs : strategy.variables;
    std::string key = isInput ? "inputs" : "variables";
    // Micro-batches: a leading time axis, S(0) for inputs, B otherwise.
    SmallVector<SbpAttr> time;
    if (microBatches > 1)
      time.push_back(isInput ? SbpAttr::getSplit(context, 0)
                             : SbpAttr::getBroadcast(context));
    auto withTime = [&](ArrayRef<SbpAttr> sbps) {
      SmallVector<SbpAttr> all(time);
      llvm::append_range(all, sbps);
      return all;
    };
    for (auto [i, rule] : llvm::enumerate(rules))
      if (rule.matches(name))
        return {withTime(rule.sbp), "strategy file '" + strategy.name +
                                        "' key \"" + key + "[" +
                                        std::to_string(i) + "]\""};
    return {
        withTime(isInput ? strategy.defaultInput : strategy.defaultVariable),
        "strategy file '" + strategy.name + "' key \"default_" +
            (isInput ? "input" : "variable") + "\""};
  }
  auto type = cast<RankedTensorType>(source->getResult(0).getType());
  Choice choice{{}, "strategy '" + strategy.name + "'"};
  for (auto [axis, role] : llvm::enumerate(strategy.roles)) {
    SbpAttr sbp = SbpAttr::getBroadcast(context);
    int64_t size = strategy.mesh[axis];
    if (role == MeshAxisRole::micro) {
      if (isInput)
        sbp = SbpAttr::getSplit(context, 0);
    } else if (role == MeshAxisRole::data) {
      if (isInput)
        sbp = SbpAttr::getSplit(context, 0);
      else if (strategy.shardVariables && type.getRank() > 0 &&
               type.getDimSize(0) % size == 0)
        sbp = SbpAttr::getSplit(context, 0);
    } else if (!isInput) {
      if (SbpAttr split = tensorAxes[axis].lookup(source))
        sbp = split;
    }
    choice.sbps.push_back(sbp);
  }
  return choice;
}

void ApplyStrategyPass::shardForZero(func::FuncOp func,
                                     ArrayRef<VariableOp> sharded) {
  MLIRContext *context = func.getContext();
  OpBuilder builder(context);
  for (VariableOp variable : sharded) {
    auto type = cast<RankedTensorType>(variable.getType());
    GlobalAttr layout = getGlobalEncoding(type);
    auto whole = RankedTensorType::get(
        type.getShape(), type.getElementType(),
        GlobalAttr::get(context, layout.getPlacement(),
                        NdSbpAttr::get(context,
                                       SmallVector<SbpAttr>(
                                           layout.getNdSbp().size(),
                                           SbpAttr::getBroadcast(context)))));
    builder.setInsertionPointAfter(variable);
    auto gathered =
        BoxingOp::create(builder, variable.getLoc(), whole, variable);
    variable.getResult().replaceUsesWithIf(gathered, [&](OpOperand &use) {
      Operation *user = use.getOwner();
      return user != gathered && !isa<SgdUpdateOp, AdamUpdateOp>(user);
    });
  }
}

LogicalResult ApplyStrategyPass::checkOptions(func::FuncOp func) {
  Operation *changed = nullptr;
  func.walk([&](Operation *op) {
    if (isLayoutChange(op) && !changed)
      changed = op;
  });
  if (changed)
    return changed->emitError()
           << "oneflow-apply-strategy lays out a program written for one "
              "device, but this program changes layouts already ('"
           << changed->getName() << "')";
  if (stages < 1 || devices % stages != 0)
    return func.emitError()
           << "oneflow-apply-strategy: " << static_cast<int64_t>(devices)
           << " devices do not divide into " << static_cast<int64_t>(stages)
           << " pipeline stages of equal size";
  if (microBatches < 1)
    return func.emitError() << "oneflow-apply-strategy: micro-batches is "
                            << static_cast<int64_t>(microBatches)
                            << "; it must be at least 1";
  // Every (micro-batch, device) pair is a virtual rank listed in the
  // placements: bound their count before anything is allocated (2^32
  // micro-batches ran out of memory).
  constexpr int64_t kMaxVirtualRanks = int64_t(1) << 20;
  if (microBatches > kMaxVirtualRanks / std::max<int64_t>(devices, 1))
    return func.emitError()
           << "oneflow-apply-strategy: " << static_cast<int64_t>(microBatches)
           << " micro-batches on " << static_cast<int64_t>(devices)
           << " devices are over the limit of " << kMaxVirtualRanks
           << " virtual ranks (micro-batches x devices)";
  if (!symbolizeDeviceKind(device))
    return func.emitError() << "oneflow-apply-strategy: device '" << device
                            << "' is not cpu or cuda";
  if (schedule != "1f1b" && schedule != "gpipe")
    return func.emitError() << "oneflow-apply-strategy: pipeline-schedule '"
                            << schedule << "' is not 1f1b or gpipe";
  return success();
}

void ApplyStrategyPass::addMicroBatchAxis(func::FuncOp func,
                                          Strategy &strategy,
                                          int64_t stageDevices) {
  // Micro-batch m of rank r is virtual rank m * devices + r. One device
  // needs no device axis.
  if (microBatches == 1) {
    func->removeAttr(kMicroBatchesAttrName);
    return;
  }
  bool noDeviceAxis = strategy.mesh.empty();
  if (stageDevices == 1 && strategy.isBuiltin()) {
    strategy.mesh.clear();
    strategy.roles.clear();
    strategy.shardVariables = false;
    noDeviceAxis = true;
  }
  strategy.mesh.insert(strategy.mesh.begin(), microBatches);
  if (strategy.isBuiltin() || noDeviceAxis)
    strategy.roles.insert(strategy.roles.begin(), MeshAxisRole::micro);
  func->setAttr(kMicroBatchesAttrName,
                IntegerAttr::get(IntegerType::get(&getContext(), 64),
                                 microBatches));
}

SmallVector<PlacementAttr>
ApplyStrategyPass::stagePlacements(const Strategy &strategy, DeviceKind kind,
                                   int64_t stageDevices) {
  SmallVector<PlacementAttr> placements;
  for (int64_t s = 0; s < stages; ++s) {
    SmallVector<int64_t> ranks;
    for (int64_t m = 0; m < microBatches; ++m)
      for (int64_t r = 0; r < stageDevices; ++r)
        ranks.push_back(m * devices + s * stageDevices + r);
    placements.push_back(
        PlacementAttr::get(&getContext(), kind, ranks, strategy.mesh));
  }
  return placements;
}

FailureOr<DenseMap<Operation *, int64_t>>
ApplyStrategyPass::markStages(func::FuncOp func) {
  func->removeAttr(kStagesAttrName);
  func->removeAttr(kPipelineScheduleAttrName);
  if (stages == 1)
    return DenseMap<Operation *, int64_t>();
  MLIRContext *context = &getContext();
  func->setAttr(kStagesAttrName,
                IntegerAttr::get(IntegerType::get(context, 64), stages));
  func->setAttr(kPipelineScheduleAttrName, StringAttr::get(context, schedule));
  return assignStages(func, stages);
}

void ApplyStrategyPass::clearLayouts(func::FuncOp func,
                                     const SourceLayouts &layouts) {
  for (BlockArgument arg : func.getArguments())
    if (isa<RankedTensorType>(arg.getType()))
      setLayout(arg, nullptr);
  func.walk([&](Operation *op) {
    op->removeAttr(kOperandLayoutsAttrName);
    op->removeAttr(kPlacementAttrName);
    if (stages > 1 && !isa<func::FuncOp, func::ReturnOp>(op))
      op->setAttr(kPlacementAttrName,
                  layouts.placements[layouts.stageOf.lookup(op)]);
    for (Value result : op->getResults())
      if (isa<RankedTensorType>(result.getType()))
        setLayout(result, nullptr);
  });
}

LogicalResult ApplyStrategyPass::layOut(Operation *op, StringRef name,
                                        SourceLayouts &layouts) {
  const Strategy &strategy = layouts.strategy;
  PlacementAttr placement = layouts.placements[layouts.stageOf.lookup(op)];
  Choice choice = choose(op, name, strategy, layouts.tensorAxes);
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (microBatches > 1 && isa<InputOp>(op) &&
      (type.getRank() == 0 || type.getDimSize(0) % microBatches != 0))
    return op->emitError()
           << "input '" << name << "' of type " << type
           << " has no batch axis that divides into "
           << static_cast<int64_t>(microBatches)
           << " micro-batches (dimension 0 must be a multiple of it)";
  for (SbpAttr sbp : choice.sbps)
    if (sbp.isSplit() && sbp.getAxis() >= type.getRank())
      return op->emitError()
             << choice.origin << " splits '" << name << "' on axis "
             << sbp.getAxis() << " but " << type << " has rank "
             << type.getRank();
  auto ndSbp = NdSbpAttr::get(&getContext(), choice.sbps);
  if (!fitsShape(type, ndSbp, strategy.mesh)) {
    InFlightDiagnostic error =
        op->emitError() << choice.origin << " gives '" << name
                        << "' the layout " << stringifyNdSbp(ndSbp)
                        << ", which does not fit " << type << " on mesh "
                        << placement << ": some rank would get an empty "
                        << "piece";
    if (microBatches > 1)
      error << " (mesh axis 0 is the " << static_cast<int64_t>(microBatches)
            << " micro-batches, the others the " << layouts.stageDevices
            << " devices: a micro-batch has "
            << (type.getRank() > 0 ? type.getDimSize(0) / microBatches : 0)
            << " rows)";
    return error;
  }
  setLayout(op->getResult(0), GlobalAttr::get(&getContext(), placement, ndSbp));
  auto variable = dyn_cast<VariableOp>(op);
  if (variable && strategy.shardVariables &&
      llvm::any_of(choice.sbps, [](SbpAttr sbp) { return sbp.isSplit(); }))
    layouts.sharded.push_back(variable);
  return success();
}

/// Optimizer states, each with the parameter whose layout it follows.
static DenseMap<Operation *, Operation *> optimizerStates(func::FuncOp func) {
  DenseMap<Operation *, Operation *> stateOf;
  func.walk([&](Operation *op) {
    if (!isa<SgdUpdateOp, AdamUpdateOp>(op))
      return;
    auto [param, states] = getUpdated(op);
    auto owner = param.getDefiningOp<VariableOp>();
    for (Value state : states)
      if (auto def = state.getDefiningOp<VariableOp>(); def && owner)
        stateOf[def] = owner;
  });
  return stateOf;
}

void ApplyStrategyPass::runOnOperation() {
  func::FuncOp func = getOperation();
  MLIRContext *context = &getContext();
  if (failed(checkOptions(func)))
    return signalPassFailure();
  // The strategy lays out each stage's devices.
  SourceLayouts layouts;
  layouts.stageDevices = devices / stages;
  std::string error, spec = this->strategy;
  std::optional<Strategy> strategy =
      parseStrategy(context, spec, layouts.stageDevices, error);
  if (!strategy) {
    InFlightDiagnostic diag = func.emitError() << error;
    if (stages > 1)
      diag << " (the strategy lays out each of the "
           << static_cast<int64_t>(stages) << " pipeline stages, which have "
           << layouts.stageDevices << " devices each)";
    return signalPassFailure();
  }
  layouts.strategy = std::move(*strategy);
  addMicroBatchAxis(func, layouts.strategy, layouts.stageDevices);
  layouts.placements = stagePlacements(
      layouts.strategy, *symbolizeDeviceKind(device), layouts.stageDevices);
  FailureOr<DenseMap<Operation *, int64_t>> stageOf = markStages(func);
  if (failed(stageOf))
    return signalPassFailure();
  layouts.stageOf = std::move(*stageOf);
  clearLayouts(func, layouts);

  DenseMap<Operation *, Operation *> stateOf = optimizerStates(func);
  layouts.tensorAxes.resize(layouts.strategy.mesh.size());
  for (auto [axis, role] : llvm::enumerate(layouts.strategy.roles))
    if (role == MeshAxisRole::tensor)
      layouts.tensorAxes[axis] =
          deriveTensorParallel(func, layouts.strategy.mesh[axis]);
  WalkResult walked = func.walk([&](Operation *op) {
    LogicalResult result = success();
    if (auto input = dyn_cast<InputOp>(op))
      result = layOut(op, input.getName(), layouts);
    else if (auto variable = dyn_cast<VariableOp>(op);
             variable && !stateOf.count(op))
      result = layOut(op, variable.getName(), layouts);
    return failed(result) ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return signalPassFailure();
  for (auto [state, param] : stateOf)
    setLayout(state->getResult(0),
              getGlobalEncoding(param->getResult(0).getType()));
  if (layouts.strategy.shardVariables)
    shardForZero(func, layouts.sharded);

  SmallVector<Type> results;
  if (!func.getBody().empty())
    llvm::append_range(
        results, func.getBody().back().getTerminator()->getOperandTypes());
  func.setFunctionType(FunctionType::get(
      context, func.getBody().getArgumentTypes(), results));
}
