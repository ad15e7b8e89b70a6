//===- ActivationCheckpointing.cpp - Recompute activations in backward ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Trades compute for memory after oneflow-autodiff: the forward ops (those
// the loss depends on) are cut, in program order, into segments of
// `segment-ops` ops (about the square root of their number by default). A
// value a segment computes that the backward pass reads but no later
// segment does is not kept: right before the first backward op that needs
// one of them, the segment's ops that lead to them run again (clones that
// keep every attribute, so dropout draws the same mask), and the backward
// ops read the clones. Values read by later segments (the segments'
// outputs), sources and variables stay as they are. A strategy file's
// "recompute" rules make segments by layer instead: the ops that read the
// variables a rule matches, and those that follow from them until another
// rule's variables, are one segment.
//
//===----------------------------------------------------------------------===//

#include "Strategy.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

#include <cmath>

#define DEBUG_TYPE "oneflow-activation-checkpointing"

namespace mlir::oneflow {
#define GEN_PASS_DEF_ACTIVATIONCHECKPOINTINGPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

namespace {
struct ActivationCheckpointingPass
    : public mlir::oneflow::impl::ActivationCheckpointingPassBase<
          ActivationCheckpointingPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (segmentOps < 0) {
      func.emitError() << "oneflow-activation-checkpointing: segment-ops is "
                       << static_cast<int64_t>(segmentOps)
                       << "; it must be at least 0 (0: automatic)";
      return signalPassFailure();
    }
    Block &body = func.getBody().front();
    OutputOp lossOutput = findLoss(body);
    if (!lossOutput) {
      func.emitError() << "oneflow-activation-checkpointing: @"
                       << func.getSymName() << " has no output named '" << loss
                       << "'";
      return signalPassFailure();
    }
    Program program = collectForward(body, lossOutput);
    if (program.ops.empty())
      return;
    std::string error;
    std::optional<SmallVector<std::string>> rules =
        parseRecomputeRules(strategy, error);
    if (!rules) {
      func.emitError() << error;
      return signalPassFailure();
    }
    if (!rules->empty()) {
      if (failed(segmentByLayers(body, program, *rules)))
        return signalPassFailure();
    } else {
      segmentEvenly(program);
    }
    OpBuilder builder(func.getContext());
    for (ArrayRef<Operation *> segment : program.segments)
      if (!segment.empty())
        recompute(builder, program, segment);
  }

private:
  /// The forward pass and its cut into segments.
  struct Program {
    /// Everything the loss depends on.
    llvm::SetVector<Operation *> forward;
    /// Those that compute (sources and outputs stay), in program order.
    SmallVector<Operation *> ops;
    /// Every op's place in the block.
    DenseMap<Operation *, int64_t> position;
    DenseMap<Operation *, int64_t> segmentOf;
    SmallVector<SmallVector<Operation *>> segments;

    bool isBackward(Operation *user) const {
      return !forward.contains(user) && !isa<OutputOp>(user);
    }
  };

  OutputOp findLoss(Block &body) {
    OutputOp lossOutput;
    for (Operation &op : body)
      if (auto output = dyn_cast<OutputOp>(op);
          output && output.getName() == loss)
        lossOutput = output;
    return lossOutput;
  }

  static Program collectForward(Block &body, OutputOp lossOutput) {
    Program program;
    SmallVector<Operation *> worklist{lossOutput};
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      if (!program.forward.insert(op))
        continue;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          worklist.push_back(def);
    }
    for (Operation &op : body) {
      program.position[&op] = program.position.size();
      if (program.forward.contains(&op) && op.getNumOperands() != 0 &&
          !isa<OutputOp>(op))
        program.ops.push_back(&op);
    }
    return program;
  }

  /// Segments of `segment-ops` ops (0: about the square root of their
  /// number), in program order.
  void segmentEvenly(Program &program) {
    int64_t size =
        segmentOps > 0
            ? static_cast<int64_t>(segmentOps)
            : std::max<int64_t>(1, static_cast<int64_t>(std::ceil(std::sqrt(
                                       static_cast<double>(program.ops.size())))));
    for (auto [index, op] : llvm::enumerate(program.ops)) {
      program.segmentOf[op] = static_cast<int64_t>(index) / size;
      if (static_cast<int64_t>(index) % size == 0)
        program.segments.emplace_back();
      program.segments.back().push_back(op);
    }
  }

  /// Values only `segment` reads in the forward pass, but the backward
  /// pass reads too.
  static llvm::SetVector<Value> recomputedValues(const Program &program,
                                                 ArrayRef<Operation *> segment) {
    int64_t s = program.segmentOf.lookup(segment.front());
    llvm::SetVector<Value> recomputed;
    for (Operation *op : segment)
      for (Value result : op->getResults()) {
        bool laterForward = false, backward = false;
        for (Operation *user : result.getUsers()) {
          if (program.isBackward(user))
            backward = true;
          else if (auto it = program.segmentOf.find(user);
                   it == program.segmentOf.end() || it->second != s)
            laterForward = true;
        }
        if (backward && !laterForward)
          recomputed.insert(result);
      }
    return recomputed;
  }

  /// Clones the segment's ops that lead to its recomputed values right
  /// before their earliest backward reader, and has the backward ops read
  /// the clones.
  static void recompute(OpBuilder &builder, const Program &program,
                        ArrayRef<Operation *> segment) {
    llvm::SetVector<Value> recomputed = recomputedValues(program, segment);
    if (recomputed.empty())
      return;
    Operation *firstUse = nullptr;
    for (Value value : recomputed)
      for (Operation *user : value.getUsers())
        if (program.isBackward(user) &&
            (!firstUse || program.position.lookup(user) <
                              program.position.lookup(firstUse)))
          firstUse = user;
    DenseSet<Operation *> needed;
    for (Operation *op : llvm::reverse(segment)) {
      bool leads = llvm::any_of(op->getResults(), [&](Value result) {
        return recomputed.contains(result) ||
               llvm::any_of(result.getUsers(), [&](Operation *user) {
                 return needed.contains(user);
               });
      });
      if (leads)
        needed.insert(op);
    }
    IRMapping mapping;
    builder.setInsertionPoint(firstUse);
    for (Operation *op : segment)
      if (needed.contains(op))
        builder.clone(*op, mapping);
    for (Value value : recomputed)
      value.replaceUsesWithIf(mapping.lookup(value), [&](OpOperand &use) {
        return program.isBackward(use.getOwner());
      });
  }

  /// Segments by the strategy file's rules: variables the loss reads take
  /// the index of the first rule that matches their name; each forward op
  /// the latest index of its operands (none: kept). Fails, naming the
  /// rule, when a rule matches no such variable.
  LogicalResult segmentByLayers(Block &body, Program &program,
                                ArrayRef<std::string> rules) {
    DenseMap<Operation *, int64_t> mark;
    SmallVector<bool> used(rules.size(), false);
    for (Operation &op : body) {
      auto variable = dyn_cast<VariableOp>(op);
      if (!variable || !program.forward.contains(&op))
        continue;
      for (auto [i, rule] : llvm::enumerate(rules))
        if (StageRule{rule, 0}.matches(variable.getName())) {
          mark[&op] = i;
          used[i] = true;
          break;
        }
    }
    for (auto [i, rule] : llvm::enumerate(rules))
      if (!used[i]) {
        body.getParentOp()->emitError()
            << "strategy file '" << strategy << "' key \"recompute[" << i
            << "].match\": '" << rule
            << "' matches no variable that the output '" << loss << "' reads";
        return failure();
      }
    program.segments.resize(rules.size());
    for (Operation *op : program.ops) {
      int64_t latest = -1;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (auto it = mark.find(def); it != mark.end())
            latest = std::max(latest, it->second);
      if (latest < 0)
        continue;
      mark[op] = latest;
      program.segmentOf[op] = latest;
      program.segments[latest].push_back(op);
    }
    return success();
  }
};
} // namespace
