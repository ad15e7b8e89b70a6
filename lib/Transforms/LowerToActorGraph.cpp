//===- LowerToActorGraph.cpp - Programs to rank plans of actors -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One actor per op and one regst per op result, for a single device: every
// func.func becomes the rank plan of rank 0; oneflow.input actors go on an
// "io" stream with double-buffered regsts, the others on the stream
// "compute" in program order.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

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

/// `type` without its encoding: the buffer type of a single device.
static RankedTensorType physicalType(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  return RankedTensorType::get(tensor.getShape(), tensor.getElementType());
}

/// The actor's name: the op's name within its dialect and the actor's id.
static std::string actorName(Operation *op, int64_t id) {
  return (op->getName().stripDialect() + "_" + Twine(id)).str();
}

/// Builds, before `funcOp`, the rank plan that runs its body.
static RankPlanOp lowerProgram(func::FuncOp funcOp, int64_t regstCount) {
  OpBuilder builder(funcOp);
  auto plan =
      RankPlanOp::create(builder, funcOp.getLoc(), /*rank=*/0, DeviceKind::cpu);
  builder.setInsertionPointToStart(plan.getBody());

  llvm::DenseMap<Value, Value> regstOf;
  SmallVector<Attribute> order, ioOrder;
  int64_t nextRegstId = 0, nextActorId = 0;
  for (Operation &op : funcOp.getBody().front()) {
    if (isa<func::ReturnOp>(op))
      continue;
    bool isSource = isa<InputOp>(op);
    SmallVector<Value> inputs, outputs;
    for (Value operand : op.getOperands())
      inputs.push_back(regstOf.lookup(operand));
    for (OpResult result : op.getResults()) {
      Value regst = RegstOp::create(
          builder, op.getLoc(), nextRegstId++, physicalType(result.getType()),
          isSource ? std::max(regstCount, kInputRegstCount) : regstCount);
      regstOf[result] = regst;
      outputs.push_back(regst);
    }
    int64_t id = nextActorId++;
    std::string name = actorName(&op, id);
    DictionaryAttr attrs = op.getAttrDictionary();
    ActorOp::create(builder, op.getLoc(), builder.getI64IntegerAttr(id),
                    builder.getStringAttr(name),
                    builder.getStringAttr(op.getName().getStringRef()),
                    builder.getStringAttr(isSource ? kIoStream : kComputeStream),
                    inputs, outputs, attrs.empty() ? DictionaryAttr() : attrs);
    (isSource ? ioOrder : order)
        .push_back(FlatSymbolRefAttr::get(builder.getContext(), name));
  }
  if (!ioOrder.empty())
    StreamOp::create(builder, funcOp.getLoc(), kIoStream,
                     builder.getArrayAttr(ioOrder));
  StreamOp::create(builder, funcOp.getLoc(), kComputeStream,
                   builder.getArrayAttr(order));
  return plan;
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
      lowerProgram(funcOp, regstCount);
      funcOp.erase();
    }
  }
};
} // namespace
