//===- LowerToActorGraph.cpp - Programs to rank plans of actors -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One actor per op per rank and one regst per op result per rank. A
// single-device program becomes the rank plan of rank 0; a program on global
// tensors (after oneflow-lower-boxing) one rank plan per rank, with local
// shapes and the attributes of docs/multi-rank-plans.md. Variables get one
// buffer whatever `regst-count` says: it holds their value across steps,
// which optimizer updates write in place. oneflow.input
// actors go on an "io" stream with double-buffered regsts, collectives and
// transfers on "collective", the others on "compute", in program order.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"
#include "RankLayout.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

#define DEBUG_TYPE "oneflow-lower-to-actor-graph"

namespace mlir::oneflow {
#define GEN_PASS_DEF_LOWERTOACTORGRAPHPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::actor;

/// The stream the ops of a single-device program run on.
static constexpr llvm::StringLiteral kComputeStream = "compute";
/// The stream collectives and transfers between ranks run on, in program
/// order on every rank.
static constexpr llvm::StringLiteral kCollectiveStream = "collective";
/// The stream data sources run on, so that loading the next batch overlaps
/// computing on the current one.
static constexpr llvm::StringLiteral kIoStream = "io";
/// Buffers of an input's regst: at least two, one being filled while the
/// other is read.
static constexpr int64_t kInputRegstCount = 2;

//===----------------------------------------------------------------------===//
// Checks
//===----------------------------------------------------------------------===//

/// Checks that `funcOp` is a program this pass lowers: data in through
/// oneflow.input, out through oneflow.output, only oneflow ops with static
/// result shapes.
static LogicalResult checkProgram(func::FuncOp funcOp) {
  if (funcOp.isExternal())
    return funcOp.emitOpError()
           << "@" << funcOp.getSymName()
           << " has no body; only defined programs lower to actors";
  if (funcOp.getNumArguments() != 0)
    return funcOp.emitOpError()
           << "@" << funcOp.getSymName()
           << " takes arguments; programs take data through oneflow.input";
  if (!funcOp.getBody().hasOneBlock())
    return funcOp.emitOpError() << "@" << funcOp.getSymName()
                                << " has several blocks; programs have one";
  for (Operation &op : funcOp.getBody().front()) {
    if (auto ret = dyn_cast<func::ReturnOp>(op)) {
      if (ret.getNumOperands() != 0)
        return ret.emitOpError()
               << "returns values from @" << funcOp.getSymName()
               << "; programs give results through oneflow.output";
      continue;
    }
    if (!isa_and_nonnull<OneFlowDialect>(op.getDialect()))
      return op.emitOpError()
             << "is not a oneflow op; only oneflow ops lower to actors";
    if (op.getName().getStringRef() == "oneflow.boxing")
      return op.emitOpError()
             << "is a layout change the runtime cannot run; run "
                "oneflow-lower-boxing first";
    // An op that writes an operand in place (an optimizer update) must
    // write the variable's own buffer, not a copy that boxing made.
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
      for (OpOperand &operand : op.getOpOperands())
        if (effects.getEffectOnValue<MemoryEffects::Write>(operand.get()) &&
            !operand.get().getDefiningOp<VariableOp>())
          return op.emitOpError()
                 << "writes operand #" << operand.getOperandNumber()
                 << " in place, but it is not a oneflow.variable's value";
    for (OpResult result : op.getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!type || !type.hasStaticShape())
        return op.emitOpError()
               << "result #" << result.getResultNumber() << " of type "
               << result.getType()
               << " has unknown dimensions; run oneflow-infer-shapes first";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// The actor's name: the op's name within its dialect and the actor's id.
static std::string actorName(Operation *op, int64_t id) {
  return (op->getName().stripDialect() + "_" + Twine(id)).str();
}

/// The stream an op's actors run on.
static StringRef streamOf(Operation *op) {
  if (isa<InputOp>(op))
    return kIoStream;
  StringRef name = op->getName().getStringRef();
  if (name == "oneflow.all_reduce" || name == "oneflow.reduce_scatter" ||
      name == "oneflow.all_gather" || name == "oneflow.all_to_all" ||
      name == "oneflow.transfer")
    return kCollectiveStream;
  return kComputeStream;
}

namespace {
/// A rank plan being built: where its ops go and its stream orders.
struct RankState {
  RankPlanOp plan;
  llvm::StringMap<SmallVector<Attribute>> orders;
  int64_t nextRegstId = 0, nextActorId = 0;
};
} // namespace

/// Builds, before `funcOp`, one rank plan per rank from 0 to the highest
/// rank any op runs on.
static LogicalResult lowerProgram(func::FuncOp funcOp, int64_t regstCount) {
  SmallVector<std::pair<Operation *, SmallVector<int64_t>>> ops;
  int64_t worldSize = 1;
  for (Operation &op : funcOp.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    FailureOr<SmallVector<int64_t>> ranks = getOpRanks(&op);
    if (failed(ranks))
      return failure();
    worldSize = std::max(worldSize, ranks->back() + 1);
    ops.emplace_back(&op, std::move(*ranks));
  }

  // Each rank's device kind comes from the placements it is in (a program
  // without layouts runs on one CPU device).
  SmallVector<std::optional<DeviceKind>> kinds(worldSize);
  for (auto &[op, ranks] : ops)
    for (Type type : llvm::concat<Type>(op->getOperandTypes(),
                                        op->getResultTypes()))
      if (GlobalAttr global = getGlobalEncoding(type)) {
        PlacementAttr placement = global.getPlacement();
        for (int64_t rank : placement.getRanks()) {
          std::optional<DeviceKind> &kind = kinds[rank];
          if (kind && *kind != placement.getDevice())
            return op->emitOpError()
                   << "puts rank " << rank << " on a "
                   << stringifyDeviceKind(placement.getDevice())
                   << " device, but another placement puts it on a "
                   << stringifyDeviceKind(*kind)
                   << " device; a rank has one device";
          kind = placement.getDevice();
        }
      }

  OpBuilder builder(funcOp);
  SmallVector<RankState> states(worldSize);
  for (int64_t rank = 0; rank < worldSize; ++rank)
    states[rank].plan = RankPlanOp::create(
        builder, funcOp.getLoc(), rank, kinds[rank].value_or(DeviceKind::cpu));

  llvm::DenseMap<std::pair<Value, int64_t>, Value> regstOf;
  for (auto &[op, ranks] : ops) {
    bool isSource = isa<InputOp>(op);
    StringRef stream = streamOf(op);
    SmallVector<int64_t> group;
    llvm::MapVector<int64_t, TransferRecords> transfers;
    if (op->getName().getStringRef() == "oneflow.transfer")
      computeTransfer(op, group, transfers);
    for (int64_t rank : ranks) {
      RankState &state = states[rank];
      builder.setInsertionPointToEnd(state.plan.getBody());
      // A transfer rank outside one of the placements lacks that side.
      SmallVector<Value> inputs, outputs;
      for (Value operand : op->getOperands())
        if (Value regst = regstOf.lookup({operand, rank}))
          inputs.push_back(regst);
      for (OpResult result : op->getResults()) {
        RankedTensorType local = getLocalType(result.getType(), rank);
        if (!local)
          continue;
        // A variable has one buffer, which holds its value across steps.
        int64_t count = isa<VariableOp>(op) ? 1
                        : isSource ? std::max(regstCount, kInputRegstCount)
                                   : regstCount;
        Value regst = RegstOp::create(builder, op->getLoc(),
                                      state.nextRegstId++, local, count);
        regstOf[{result, rank}] = regst;
        outputs.push_back(regst);
      }
      NamedAttrList attrs(op->getAttrDictionary());
      // Actors list their inputs flat; kernels know the groups from the
      // op's other attributes (an update op's states from its kind).
      attrs.erase("operandSegmentSizes");
      auto transfer = transfers.find(rank);
      addRankAttrs(op, rank, group,
                   transfer == transfers.end() ? nullptr : &transfer->second,
                   attrs);
      int64_t id = state.nextActorId++;
      std::string name = actorName(op, id);
      DictionaryAttr dict = attrs.getDictionary(op->getContext());
      ActorOp::create(builder, op->getLoc(), builder.getI64IntegerAttr(id),
                      builder.getStringAttr(name),
                      builder.getStringAttr(op->getName().getStringRef()),
                      builder.getStringAttr(stream), inputs, outputs,
                      dict.empty() ? DictionaryAttr() : dict);
      state.orders[stream].push_back(
          FlatSymbolRefAttr::get(builder.getContext(), name));
    }
  }

  for (RankState &state : states) {
    builder.setInsertionPointToEnd(state.plan.getBody());
    for (StringRef stream : {kIoStream, kComputeStream, kCollectiveStream}) {
      auto it = state.orders.find(stream);
      if (it != state.orders.end() || stream == kComputeStream)
        StreamOp::create(builder, funcOp.getLoc(), stream,
                         builder.getArrayAttr(it == state.orders.end()
                                                  ? ArrayRef<Attribute>()
                                                  : ArrayRef(it->second)));
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
struct LowerToActorGraphPass
    : public mlir::oneflow::impl::LowerToActorGraphPassBase<
          LowerToActorGraphPass> {
  using LowerToActorGraphPassBase::LowerToActorGraphPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (regstCount < 1) {
      module.emitError() << "regst-count " << static_cast<int64_t>(regstCount)
                         << " is not at least 1";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> programs(module.getOps<func::FuncOp>());
    bool ok = true;
    for (func::FuncOp funcOp : programs)
      ok &= succeeded(checkProgram(funcOp));
    if (!ok)
      return signalPassFailure();
    for (func::FuncOp funcOp : programs) {
      if (failed(lowerProgram(funcOp, regstCount)))
        return signalPassFailure();
      funcOp.erase();
    }
  }
};
} // namespace
