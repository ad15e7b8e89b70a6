//===- AssignStages.cpp - Cut a one-device program into pipeline stages ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Marks every op of a one-device forward program with the pipeline stage it
// runs in (oneflow.stage). The ops that compute, in program order, are cut
// into `stages` contiguous runs of about equal predicted compute time (the
// cost model's, on one device) for the forward and the backward pass: each
// op weighs its own cost and that of the gradient ops oneflow-autodiff
// builds for it (found by differentiating a scratch copy of the function,
// whose ops carry their index where the stage goes, since autodiff gives
// gradient ops their op's stage). An op goes to the stage its weight's
// midpoint falls in. Layers are not recognized as such; cuts fall between ops,
// and values that cross a cut move to the next stage's devices. Ops already
// marked keep their stage (a hand-written cut, or a strategy file's
// "stages" rules, which mark variables by name), and then unmarked ops take
// the latest stage of their operands. Ops made of weights alone (a weight's
// cast to bf16) then move to their earliest reader's stage, sources take the
// earliest stage of their readers, outputs their operand's.
//
//===----------------------------------------------------------------------===//

#include "ScratchCopy.h"
#include "Strategy.h"

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Debug.h"

#include <cmath>

#define DEBUG_TYPE "oneflow-assign-stages"

namespace mlir::oneflow {
#define GEN_PASS_DEF_ASSIGNSTAGESPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

static void setStage(Operation *op, int64_t stage) {
  op->setAttr(kStageAttrName,
              IntegerAttr::get(IntegerType::get(op->getContext(), 64), stage));
}

/// Whether `op` is one that computes (not a source, an output or the
/// terminator).
static bool computes(Operation *op) {
  return op->getNumOperands() != 0 && !isa<OutputOp, func::ReturnOp>(op);
}

namespace {
struct AssignStagesPass
    : public mlir::oneflow::impl::AssignStagesPassBase<AssignStagesPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    if (stages < 1) {
      func.emitError() << "oneflow-assign-stages: stages is "
                       << static_cast<int64_t>(stages)
                       << "; it must be at least 1";
      return signalPassFailure();
    }
    // A strategy file's "stages" rules put variables, and the ops that
    // read them, on stages.
    std::string error;
    std::optional<SmallVector<StageRule>> rules =
        parseStageRules(strategy, error);
    if (!rules) {
      func.emitError() << error;
      return signalPassFailure();
    }
    bool marked = false;
    for (auto [i, rule] : llvm::enumerate(*rules))
      if (rule.stage >= stages) {
        func.emitError() << "strategy file '" << strategy << "' key \"stages["
                         << i << "].stage\": " << rule.stage
                         << " is not a stage of "
                         << static_cast<int64_t>(stages);
        return signalPassFailure();
      }
    func.walk([&](VariableOp variable) {
      for (const StageRule &rule : *rules)
        if (rule.matches(variable.getName())) {
          setStage(variable, rule.stage);
          marked = true;
          break;
        }
    });
    SmallVector<Operation *> work;
    llvm::SmallPtrSet<Operation *, 8> handMarked;
    for (Operation &op : func.getBody().front()) {
      if (!computes(&op))
        continue;
      work.push_back(&op);
      if (std::optional<int64_t> stage = getStage(&op)) {
        handMarked.insert(&op);
        marked = true;
        if (*stage < 0 || *stage >= stages) {
          op.emitOpError() << "is marked for stage " << *stage
                           << ", but the program has "
                           << static_cast<int64_t>(stages) << " stages";
          return signalPassFailure();
        }
      }
    }
    if (marked)
      completeMarks(work);
    else if (failed(cut(func, work)))
      return signalPassFailure();
    sinkWeightOps(func, handMarked);
    markSourcesAndOutputs(func);
  }

private:
  /// Unmarked ops take the latest stage of their operands' producers.
  void completeMarks(ArrayRef<Operation *> work) {
    for (Operation *op : work) {
      if (getStage(op))
        continue;
      int64_t stage = 0;
      for (Value operand : op->getOperands())
        if (Operation *def = operand.getDefiningOp())
          stage = std::max(stage, getStage(def).value_or(0));
      setStage(op, stage);
    }
  }

  /// Per op of `work`: the predicted time of the op and of its gradient
  /// ops; the op's alone when the function cannot be differentiated from
  /// the output `loss`.
  SmallVector<double> weigh(func::FuncOp func, ArrayRef<Operation *> work,
                            const ClusterDesc &cluster) {
    SmallVector<double> costs;
    for (Operation *op : work)
      costs.push_back(std::max(0.0, computeCost(op, 1, cluster)));
    bool hasLoss = false;
    func.walk([&](OutputOp output) { hasLoss |= output.getName() == loss; });
    if (!hasLoss)
      return costs;
    MLIRContext *context = func.getContext();
    ScratchCopy scratch(func);
    func::FuncOp copy = scratch.func;
    // The copy's ops in the same order: mark the work by index.
    DenseMap<Operation *, int64_t> index;
    for (auto [i, op] : llvm::enumerate(work))
      index[op] = i;
    DenseSet<Operation *> forward;
    for (auto [original, cloned] :
         llvm::zip(func.getBody().front(), copy.getBody().front()))
      if (auto it = index.find(&original); it != index.end()) {
        setStage(&cloned, it->second);
        forward.insert(&cloned);
      }
    PassManager pm(context, ModuleOp::getOperationName());
    AutodiffPassOptions options;
    options.loss = loss;
    pm.nest<func::FuncOp>().addPass(createAutodiffPass(options));
    // A program autodiff refuses (an op without a gradient rule) is cut by
    // its forward cost; the training pipeline's own autodiff reports the
    // refusal.
    LogicalResult differentiated = scratch.run(pm);
    if (failed(differentiated))
      return costs;
    // Every other op with a mark is a gradient op of the marked op.
    for (Operation &op : copy.getBody().front()) {
      std::optional<int64_t> i = getStage(&op);
      if (i && *i >= 0 && *i < static_cast<int64_t>(work.size()) &&
          !forward.contains(&op))
        costs[*i] += std::max(0.0, computeCost(&op, 1, cluster));
    }
    return costs;
  }

  /// Cuts `work` into runs of about equal predicted time.
  LogicalResult cut(func::FuncOp func, ArrayRef<Operation *> work) {
    ClusterDesc cluster = ClusterDesc::getDefault();
    SmallVector<double> costs = weigh(func, work, cluster);
    double total = 0;
    for (double cost : costs)
      total += cost;
    // Without predicted costs every op counts the same.
    if (!(total > 0)) {
      costs.assign(work.size(), 1.0);
      total = work.size();
    }
    SmallVector<double> stageCost(stages, 0.0);
    SmallVector<int64_t> stageOps(stages, 0);
    double before = 0;
    for (auto [op, cost] : llvm::zip(work, costs)) {
      double middle = (before + cost / 2) / total;
      int64_t stage = std::min<int64_t>(
          stages - 1, static_cast<int64_t>(std::floor(middle * stages)));
      setStage(op, stage);
      stageCost[stage] += cost;
      ++stageOps[stage];
      before += cost;
    }
    for (int64_t s = 0; s < stages; ++s)
      if (stageOps[s] == 0)
        return func.emitError()
               << "oneflow-assign-stages: cannot cut @" << func.getSymName()
               << " into " << static_cast<int64_t>(stages)
               << " stages of about equal cost: stage " << s
               << " gets no op (the program has " << work.size()
               << " ops that compute; one op costs more than a stage)";
    LLVM_DEBUG({
      for (int64_t s = 0; s < stages; ++s)
        llvm::dbgs() << "stage " << s << ": " << stageOps[s] << " ops, "
                     << stageCost[s] << " s\n";
    });
    return success();
  }

  /// Ops that read only variables and constants (or such ops), a weight's
  /// cast to bf16 for one, move to the earliest stage that reads them when that
  /// is later than theirs (unless marked by hand): the weight crosses the cut
  /// rather than what was made of it, so that its gradient, made where its
  /// reader is, is accumulated over micro-batches in the weight's own type.
  void sinkWeightOps(func::FuncOp func,
                     const llvm::SmallPtrSetImpl<Operation *> &handMarked) {
    llvm::SmallPtrSet<Operation *, 16> weightOps;
    Block &body = func.getBody().front();
    for (Operation &op : body) {
      if (!computes(&op))
        continue;
      bool fromWeights = llvm::all_of(op.getOperands(), [&](Value operand) {
        Operation *def = operand.getDefiningOp();
        return def &&
               (isa<VariableOp, ConstantOp>(def) || weightOps.contains(def));
      });
      if (fromWeights)
        weightOps.insert(&op);
    }
    for (Operation &op : llvm::reverse(body)) {
      if (!weightOps.contains(&op) || handMarked.contains(&op))
        continue;
      std::optional<int64_t> earliest;
      for (Operation *user : op.getUsers())
        if (std::optional<int64_t> stage = getStage(user))
          earliest = std::min(earliest.value_or(*stage), *stage);
      if (earliest && *earliest > getStage(&op).value_or(0))
        setStage(&op, *earliest);
    }
  }

  /// Sources go to the earliest stage that reads them, outputs to their
  /// operand's.
  void markSourcesAndOutputs(func::FuncOp func) {
    Block &body = func.getBody().front();
    for (Operation &op : body) {
      if (op.getNumOperands() != 0 || op.getNumResults() == 0 || getStage(&op))
        continue;
      std::optional<int64_t> earliest;
      for (Operation *user : op.getUsers())
        if (std::optional<int64_t> stage = getStage(user))
          earliest = std::min(earliest.value_or(*stage), *stage);
      setStage(&op, earliest.value_or(0));
    }
    for (Operation &op : body)
      if (auto output = dyn_cast<OutputOp>(op); output && !getStage(&op))
        if (Operation *def = output->getOperand(0).getDefiningOp())
          setStage(&op, getStage(def).value_or(0));
  }
};
} // namespace
