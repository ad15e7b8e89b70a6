//===- LowerToActorGraph.cpp - Programs to rank plans of actors -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One actor per op per rank and one regst per op result per rank. A
// single-device program becomes the rank plan of rank 0; a program on global
// tensors (after oneflow-lower-boxing) one rank plan per rank, with local
// shapes and the typed layouts of docs/multi-rank-plans.md (what each op's
// RankLoweringInterface returns for the rank). Variables get one
// buffer whatever `regst-count` says: it holds their value across steps,
// which optimizer updates write in place. oneflow.input
// actors go on an "io" stream with double-buffered regsts, collectives and
// transfers on "collective", the others on "compute", in program order.
//
// A micro-batched program (oneflow.micro_batches = M) has M virtual ranks
// per device rank, one per micro-batch (mesh axis 0 is time); they fold
// into the firings of one actor. An op with a value that is split or
// partial over the micro-batches fires M times per step, with the layout
// of micro-batch 0 and, for sources, a micro stride by which its piece
// moves per micro-batch (MicroBatchRanks.h); an op whose values are whole
// per step fires once, in the step's first micro-batch, or in its last when
// it reads a sum over the micro-batches (oneflow.accumulate, which fires M
// times and writes once). Stream orders list one step's firings,
// micro-batch by micro-batch.
// A transfer between placements (pipeline stages) moves micro-batch 0's
// pieces between device ranks, and every other micro-batch's the same way.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/RankLayout.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "MicroBatchRanks.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
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
    // An op of another dialect (a plugin's) lowers when it has SBP rules;
    // its kernel comes from the runtime's registry like any other.
    if (!isa_and_nonnull<OneFlowDialect>(op.getDialect()) &&
        !isa<SbpInterface>(op))
      return op.emitOpError()
             << "is not a oneflow op and has no SBP rules (SbpInterface); only "
                "those lower to actors";
    if (isa<BoxingOp>(op))
      return op.emitOpError()
             << "is a layout change the runtime cannot run; run "
                "oneflow-lower-boxing first";
    if (std::optional<int64_t> axis = getSplitSoftmaxAxis(&op))
      return op.emitOpError()
             << "normalizes over axis " << *axis
             << ", which its layout splits; no kernel runs it per piece, run "
                "oneflow-expand-split-softmax first";
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
  if (isa<AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp, TransferOp>(
          op))
    return kCollectiveStream;
  return kComputeStream;
}

namespace {
/// An actor in its stream's order, before the order is unrolled into one
/// step's firings.
struct Listed {
  Attribute ref;
  int64_t firings;
  bool late; ///< Fires once, in the step's last micro-batch.
};

/// A rank plan being built: where its ops go and its stream orders.
struct RankState {
  RankPlanOp plan;
  llvm::StringMap<SmallVector<Listed>> orders;
  int64_t nextRegstId = 0, nextActorId = 0;
};
} // namespace

/// Times `op` fires per step in a program of `micro` micro-batches: every
/// micro-batch if a value it touches is split or partial over them (or it
/// sums them), else once.
static int64_t firingsOf(Operation *op, int64_t micro) {
  if (micro < 2 || isa<AccumulateOp>(op))
    return micro;
  for (Type type :
       llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
    if (GlobalAttr global = getGlobalEncoding(type);
        global && !global.getNdSbp()[0].isBroadcast())
      return micro;
  return 1;
}

namespace {
/// The ops of a program with the ranks each runs on, and how often each
/// fires per step.
struct ProgramOps {
  SmallVector<std::pair<Operation *, SmallVector<int64_t>>> ops;
  int64_t worldSize = 1;    ///< Device ranks.
  int64_t virtualWorld = 1; ///< Ranks with micro-batches' virtual ones.
  int64_t micro = 1;
  llvm::DenseMap<Operation *, int64_t> firings;
  /// Ops that fire once, in the step's last micro-batch (after a sum over
  /// the micro-batches).
  llvm::DenseSet<Operation *> late;
};
} // namespace

/// The ops of `funcOp` with their device ranks (virtual ranks m * world + r
/// of micro-batch m fold into rank r).
static FailureOr<ProgramOps> collectOps(func::FuncOp funcOp) {
  ProgramOps program;
  for (Operation &op : funcOp.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    FailureOr<SmallVector<int64_t>> ranks = getOpRanks(&op);
    if (failed(ranks))
      return failure();
    program.worldSize = std::max(program.worldSize, ranks->back() + 1);
    program.ops.emplace_back(&op, std::move(*ranks));
  }
  int64_t micro = program.micro = getMicroBatches(funcOp);
  if (micro < 1 || program.worldSize % micro != 0)
    return funcOp.emitOpError()
           << "has " << program.worldSize
           << " ranks, which do not divide into " << micro << " micro-batches";
  program.virtualWorld = program.worldSize;
  program.worldSize /= micro;
  for (auto &[op, ranks] : program.ops)
    llvm::erase_if(ranks,
                   [&](int64_t rank) { return rank >= program.worldSize; });
  return program;
}

/// Fills `program.firings` and `program.late`; fails where an op would read
/// a value made a number of times per step its own firings do not divide.
static LogicalResult countFirings(ProgramOps &program) {
  for (auto &[op, ranks] : program.ops) {
    int64_t n = firingsOf(op, program.micro);
    program.firings[op] = n;
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      int64_t values = isa_and_nonnull<AccumulateOp>(def) ? 1
                       : def ? program.firings[def]
                             : 1;
      if (n % values != 0)
        return op->emitOpError()
               << "fires " << n << " times per step but reads a value made "
               << values << " times per step";
      if (n == 1 && def &&
          (isa<AccumulateOp>(def) || program.late.contains(def)))
        program.late.insert(op);
    }
  }
  return success();
}

/// Each rank's device kind, from the placements it is in (none for a rank
/// in none); fails where two placements give a rank different kinds.
static FailureOr<SmallVector<std::optional<DeviceKind>>>
rankDeviceKinds(const ProgramOps &program) {
  SmallVector<std::optional<DeviceKind>> kinds(program.virtualWorld);
  for (auto &[op, ranks] : program.ops)
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
  return kinds;
}

namespace {
/// Builds the rank plans of one program, an op at a time.
class PlanBuilder {
public:
  PlanBuilder(func::FuncOp funcOp, const ProgramOps &program,
              int64_t regstCount)
      : funcOp(funcOp), program(program), regstCount(regstCount),
        builder(funcOp) {}

  /// Creates the (empty) rank plans before the function.
  void createPlans(ArrayRef<std::optional<DeviceKind>> kinds,
                   DeviceKind defaultKind) {
    for (int64_t rank = 0; rank < program.worldSize; ++rank)
      states.push_back({RankPlanOp::create(builder, funcOp.getLoc(), rank,
                                           kinds[rank].value_or(defaultKind)),
                        {}});
  }

  /// Adds the actors of `op` on `ranks`, and their regsts.
  LogicalResult lowerOp(Operation *op, ArrayRef<int64_t> ranks) {
    SmallVector<int64_t> group;
    llvm::MapVector<int64_t, TransferRecords> transfers;
    int64_t micro = program.micro, world = program.worldSize;
    if (isa<TransferOp>(op)) {
      computeTransfer(op, group, transfers, micro > 1 ? world : 0);
      if (micro > 1 &&
          (failed(foldTransfer(op, world, micro, program.firings.lookup(op) > 1,
                               group, transfers)) ||
           failed(offsetTags(op, kTagsPerTransfer * transferOrdinal++,
                             recordWidth(op), transfers))))
        return failure();
    }
    for (int64_t rank : ranks) {
      auto transfer = transfers.find(rank);
      if (failed(lowerOnRank(op, rank, group,
                             transfer == transfers.end() ? nullptr
                                                         : &transfer->second)))
        return failure();
    }
    return success();
  }

  /// Writes each rank's stream orders: one step's firings, micro-batch by
  /// micro-batch.
  void writeStreamOrders() {
    int64_t micro = program.micro;
    for (RankState &state : states) {
      builder.setInsertionPointToEnd(state.plan.getBody());
      for (StringRef stream : {kIoStream, kComputeStream, kCollectiveStream}) {
        auto it = state.orders.find(stream);
        if (it == state.orders.end() && stream != kComputeStream)
          continue;
        SmallVector<Attribute> order;
        for (int64_t m = 0; it != state.orders.end() && m < micro; ++m)
          for (const Listed &listed : it->second)
            if (listed.firings == micro ||
                (listed.firings == 1 && m == (listed.late ? micro - 1 : 0)))
              order.push_back(listed.ref);
        StreamOp::create(builder, funcOp.getLoc(), stream,
                         builder.getArrayAttr(order));
      }
    }
  }

private:
  /// The buffers of a regst `op` writes on `rank`.
  int64_t bufferCount(Operation *op, int64_t rank) const {
    // A variable has one buffer, which holds its value across steps, and so
    // does a sum over micro-batches.
    if (isa<VariableOp, AccumulateOp>(op))
      return 1;
    int64_t count = isa<InputOp>(op) ? std::max(regstCount, kInputRegstCount)
                                     : regstCount;
    // Pipeline stages: a value per micro-batch stays until the stage's
    // backward pass returns it.
    if (program.firings.lookup(op) > 1)
      count = std::max(count, pipelineDepth(funcOp, rank, program.worldSize,
                                            program.micro));
    return count;
  }

  /// What `op`'s actor on `rank` carries: the op's own attributes (some
  /// per rank) and its layout.
  struct ActorAttrs {
    NamedAttrList attrs;
    Attribute layout;
  };
  FailureOr<ActorAttrs> actorAttrs(Operation *op, int64_t rank,
                                   ArrayRef<int64_t> group,
                                   const TransferRecords *transfer) const {
    ActorAttrs actor{NamedAttrList(op->getAttrDictionary()), {}};
    // Actors list their inputs flat; kernels know the groups from the
    // op's other attributes (an update op's states from its kind).
    actor.attrs.erase("operandSegmentSizes");
    actor.attrs.erase(kStageAttrName);
    actor.attrs.erase(kPlacementAttrName);
    actor.layout = getRankLayout(op, rank, group, transfer, actor.attrs);
    DenseI64ArrayAttr members;
    if (auto moves = dyn_cast_or_null<TransferLayoutAttr>(actor.layout))
      members = moves.getGroup();
    else if (auto collective =
                 dyn_cast_or_null<CollectiveLayoutAttr>(actor.layout))
      members = collective.getGroup();
    int64_t world = program.worldSize;
    if (members && llvm::any_of(members.asArrayRef(), [&](int64_t member) {
          return member >= world;
        }))
      return op->emitOpError() << "moves data between micro-batches; run "
                                  "oneflow-accumulate-micro-batches first";
    if (program.firings.lookup(op) > 1 &&
        failed(addMicroStride(op, rank, world, program.micro, actor.layout)))
      return failure();
    return actor;
  }

  LogicalResult lowerOnRank(Operation *op, int64_t rank,
                            ArrayRef<int64_t> group,
                            const TransferRecords *transfer) {
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
      Value regst = RegstOp::create(builder, op->getLoc(), state.nextRegstId++,
                                    local, bufferCount(op, rank));
      regstOf[{result, rank}] = regst;
      outputs.push_back(regst);
    }
    FailureOr<ActorAttrs> attrs = actorAttrs(op, rank, group, transfer);
    if (failed(attrs))
      return failure();
    int64_t n = program.firings.lookup(op);
    int64_t id = state.nextActorId++;
    std::string name = actorName(op, id);
    DictionaryAttr dict = attrs->attrs.getDictionary(op->getContext());
    bool sums = isa<AccumulateOp>(op);
    StringRef stream = streamOf(op);
    ActorOp::create(builder, op->getLoc(), builder.getI64IntegerAttr(id),
                    builder.getStringAttr(name),
                    builder.getStringAttr(op->getName().getStringRef()),
                    builder.getStringAttr(stream), inputs, outputs,
                    dict.empty() ? DictionaryAttr() : dict, attrs->layout,
                    n > 1 ? builder.getI64IntegerAttr(n) : IntegerAttr(),
                    sums ? builder.getI64IntegerAttr(n) : IntegerAttr());
    state.orders[stream].push_back(
        {FlatSymbolRefAttr::get(builder.getContext(), name), n,
         program.late.contains(op)});
    return success();
  }

  func::FuncOp funcOp;
  const ProgramOps &program;
  int64_t regstCount;
  OpBuilder builder;
  SmallVector<RankState> states;
  llvm::DenseMap<std::pair<Value, int64_t>, Value> regstOf;
  int64_t transferOrdinal = 0;
};
} // namespace

/// Builds, before `funcOp`, one rank plan per rank from 0 to the highest
/// rank any op runs on.
static LogicalResult lowerProgram(func::FuncOp funcOp, int64_t regstCount,
                                  DeviceKind defaultKind) {
  FailureOr<ProgramOps> program = collectOps(funcOp);
  if (failed(program) || failed(countFirings(*program)))
    return failure();
  FailureOr<SmallVector<std::optional<DeviceKind>>> kinds =
      rankDeviceKinds(*program);
  if (failed(kinds))
    return failure();
  PlanBuilder plans(funcOp, *program, regstCount);
  plans.createPlans(*kinds, defaultKind);
  for (auto &[op, ranks] : program->ops)
    if (failed(plans.lowerOp(op, ranks)))
      return failure();
  plans.writeStreamOrders();
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
    std::optional<DeviceKind> kind = symbolizeDeviceKind(device);
    if (!kind) {
      module.emitError() << "oneflow-lower-to-actor-graph: device '" << device
                         << "' is not cpu or cuda";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> programs(module.getOps<func::FuncOp>());
    bool ok = true;
    for (func::FuncOp funcOp : programs)
      ok &= succeeded(checkProgram(funcOp));
    if (!ok)
      return signalPassFailure();
    for (func::FuncOp funcOp : programs) {
      if (failed(lowerProgram(funcOp, regstCount, *kind)))
        return signalPassFailure();
      funcOp.erase();
    }
  }
};
} // namespace
