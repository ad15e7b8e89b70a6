//===- ActorOps.cpp - Rank plans, regsts, actors, streams -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each op verifies its own attributes; the rank plan verifies what involves
// several ops of its body (unique ids, one producer per regst, stream
// orders that list every actor once).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::actor;

/// Parses the device kind of a rank plan as a bare keyword: `cpu`, `cuda`.
static ParseResult parseDevice(OpAsmParser &parser, DeviceKindAttr &device) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<DeviceKind> kind = symbolizeDeviceKind(keyword);
  if (!kind)
    return parser.emitError(loc) << "unknown device kind '" << keyword << "'";
  device = DeviceKindAttr::get(parser.getContext(), *kind);
  return success();
}

static void printDevice(OpAsmPrinter &printer, Operation *,
                        DeviceKindAttr device) {
  printer << stringifyDeviceKind(device.getValue());
}

#define GET_OP_CLASSES
#include "OneFlowDialect/Actor/ActorOps.cpp.inc"

void OneFlowActorDialect::registerOps() {
  addOperations<
#define GET_OP_LIST
#include "OneFlowDialect/Actor/ActorOps.cpp.inc"
      >();
}

/// Names the regst `value` in diagnostics: "regst <id>".
static std::string describeRegst(Value value) {
  if (auto regst = value.getDefiningOp<RegstOp>())
    return ("regst " + Twine(regst.getId())).str();
  return "a regst";
}

//===----------------------------------------------------------------------===//
// RankPlanOp
//===----------------------------------------------------------------------===//

void RankPlanOp::build(OpBuilder &builder, OperationState &state, int64_t rank,
                       DeviceKind device) {
  state.getOrAddProperties<Properties>().rank = builder.getI64IntegerAttr(rank);
  state.getOrAddProperties<Properties>().device =
      DeviceKindAttr::get(builder.getContext(), device);
  state.addRegion()->emplaceBlock();
}

SmallVector<RegstOp, 8> RankPlanOp::getRegsts() {
  return llvm::to_vector<8>(getBody()->getOps<RegstOp>());
}

SmallVector<ActorOp, 8> RankPlanOp::getActors() {
  return llvm::to_vector<8>(getBody()->getOps<ActorOp>());
}

SmallVector<StreamOp, 1> RankPlanOp::getStreams() {
  return llvm::to_vector<1>(getBody()->getOps<StreamOp>());
}

LogicalResult RankPlanOp::verify() {
  // I64Attr getters are unsigned: check the attributes' signed values.
  if (getRankAttr().getInt() < 0)
    return emitOpError() << "rank " << getRankAttr().getInt() << " is negative";
  if (IntegerAttr arena = getArenaBytesAttr(); arena && arena.getInt() < 0)
    return emitOpError() << "arena size " << arena.getInt() << " is negative";
  if (IntegerAttr unplanned = getUnplannedBytesAttr();
      unplanned && unplanned.getInt() < 0)
    return emitOpError() << "unplanned size " << unplanned.getInt()
                         << " is negative";
  return success();
}

/// Checks that ids are unique and that each regst has exactly one producer.
static LogicalResult verifyRegstsAndActors(RankPlanOp plan) {
  llvm::DenseMap<int64_t, Operation *> regstIds, actorIds;
  for (RegstOp regst : plan.getRegsts())
    if (!regstIds.try_emplace(regst.getId(), regst).second)
      return regst.emitOpError()
             << "id " << regst.getId() << " is already the id of another regst";

  llvm::DenseMap<Value, ActorOp> producers;
  for (ActorOp actor : plan.getActors()) {
    if (!actorIds.try_emplace(actor.getId(), actor).second)
      return actor.emitOpError()
             << "id " << actor.getId() << " is already the id of another actor";
    for (Value output : actor.getOutputs()) {
      auto [it, inserted] = producers.try_emplace(output, actor);
      if (!inserted)
        return actor.emitOpError()
               << "writes " << describeRegst(output) << ", which actor @"
               << it->second.getSymName() << " already writes";
    }
  }
  for (RegstOp regst : plan.getRegsts())
    if (!producers.contains(regst.getResult()))
      return regst.emitOpError()
             << "regst " << regst.getId() << " is written by no actor";
  return success();
}

/// Checks that the stream orders list every actor as many times as it
/// fires per step, on the stream it runs on.
static LogicalResult verifyStreams(RankPlanOp plan) {
  // The SymbolTable trait has checked that actor names are unique.
  llvm::StringMap<ActorOp> actors;
  for (ActorOp actor : plan.getActors())
    actors[actor.getSymName()] = actor;

  llvm::StringSet<> streams;
  llvm::DenseMap<Operation *, int64_t> listed;
  for (StreamOp stream : plan.getStreams()) {
    if (!streams.insert(stream.getName()).second)
      return stream.emitOpError()
             << "orders stream \"" << stream.getName()
             << "\", which another stream op already orders";
    for (auto ref : stream.getActors().getAsRange<FlatSymbolRefAttr>()) {
      ActorOp actor = actors.lookup(ref.getValue());
      if (!actor)
        return stream.emitOpError()
               << "lists " << ref << ", which is not an actor of the plan";
      if (actor.getStream() != stream.getName())
        return stream.emitOpError()
               << "lists " << ref << ", which runs on stream \""
               << actor.getStream() << "\"";
      if (++listed[actor] > actor.getFirings())
        return stream.emitOpError()
               << "lists " << ref << " more often than the "
               << actor.getFirings() << " times it fires per step";
    }
  }
  for (ActorOp actor : plan.getActors()) {
    if (!listed.contains(actor))
      return actor.emitOpError()
             << "is in no order of stream \"" << actor.getStream() << "\"";
    if (listed.lookup(actor) != actor.getFirings())
      return actor.emitOpError()
             << "fires " << actor.getFirings()
             << " times per step but stream \"" << actor.getStream()
             << "\" lists it " << listed.lookup(actor) << " times";
    if (actor.getFirings() % actor.getFiringsPerValue() != 0)
      return actor.emitOpError() << "emits every " << actor.getFiringsPerValue()
                                 << " firings, which does not divide its "
                                 << actor.getFirings() << " firings per step";
  }
  return success();
}

LogicalResult RankPlanOp::verifyRegions() {
  for (Operation &op : *getBody())
    if (!isa<RegstOp, ActorOp, StreamOp>(op))
      return op.emitOpError()
             << "cannot be in a rank plan, which holds only regsts, actors "
                "and streams";
  if (failed(verifyRegstsAndActors(*this)))
    return failure();
  return verifyStreams(*this);
}

//===----------------------------------------------------------------------===//
// RegstOp
//===----------------------------------------------------------------------===//

void RegstOp::getAsmResultNames(OpAsmSetValueNameFn setNameFn) {
  setNameFn(getResult(), ("r" + Twine(getId())).str());
}

ActorOp RegstOp::getProducer() {
  for (OpOperand &use : getResult().getUses())
    if (auto actor = dyn_cast<ActorOp>(use.getOwner()))
      if (use.getOperandNumber() >= actor.getInputs().size())
        return actor;
  return nullptr;
}

SmallVector<ActorOp> RegstOp::getConsumers() {
  llvm::SmallPtrSet<Operation *, 4> seen;
  SmallVector<ActorOp> consumers;
  for (OpOperand &use : getResult().getUses())
    if (auto actor = dyn_cast<ActorOp>(use.getOwner()))
      if (use.getOperandNumber() < actor.getInputs().size() &&
          seen.insert(actor).second)
        consumers.push_back(actor);
  // Uses come in no particular order: return the consumers in body order.
  llvm::sort(consumers,
             [](ActorOp a, ActorOp b) { return a->isBeforeInBlock(b); });
  return consumers;
}

LogicalResult RegstOp::verify() {
  int64_t id = getIdAttr().getInt();
  if (id < 0)
    return emitOpError() << "id " << id << " is negative";
  if (getCountAttr().getInt() < 1)
    return emitOpError() << "count " << getCountAttr().getInt() << " of regst "
                         << id << " is not at least 1";
  if (IntegerAttr offset = getOffsetAttr(); offset && offset.getInt() < 0)
    return emitOpError() << "offset " << offset.getInt() << " of regst " << id
                         << " is negative";
  RankedTensorType type = getBufferType();
  if (!type.hasStaticShape())
    return emitOpError() << "type " << type << " of regst " << id
                         << " has unknown dimensions";
  if (type.getEncoding())
    return emitOpError() << "type " << type << " of regst " << id
                         << " has an encoding; regsts hold physical tensors";
  return success();
}

//===----------------------------------------------------------------------===//
// ActorOp
//===----------------------------------------------------------------------===//

LogicalResult ActorOp::verify() {
  if (getIdAttr().getInt() < 0)
    return emitOpError() << "id " << getIdAttr().getInt() << " is negative";
  if (getOpName().empty())
    return emitOpError() << "@" << getSymName() << " names no op";
  if (getStream().empty())
    return emitOpError() << "@" << getSymName() << " runs on no stream";
  llvm::SmallPtrSet<Value, 4> outputs;
  for (Value output : getOutputs())
    if (!outputs.insert(output).second)
      return emitOpError() << "@" << getSymName() << " writes "
                           << describeRegst(output) << " twice";
  for (Value input : getInputs())
    if (outputs.contains(input))
      return emitOpError() << "@" << getSymName() << " reads "
                           << describeRegst(input) << ", which it writes";
  return success();
}

//===----------------------------------------------------------------------===//
// StreamOp
//===----------------------------------------------------------------------===//

LogicalResult StreamOp::verify() {
  if (getName().empty())
    return emitOpError() << "needs a non-empty name";
  return success();
}
