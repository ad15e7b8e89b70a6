//===- Autodiff.cpp - Gradients of a scalar loss --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Reverse-mode differentiation of the logical graph. The ops that need a
// gradient are those both reachable from a trainable variable and reaching
// the loss; they are visited in reverse program order, each building the
// gradients of its operands through GradientInterface at the end of the
// function. Backward ops that turn out unused (gradients of operands that
// depend on no variable) are erased again.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

#define DEBUG_TYPE "oneflow-autodiff"

namespace mlir::oneflow {
#define GEN_PASS_DEF_AUTODIFFPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// A float tensor: only these carry gradients.
bool isDifferentiable(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

bool isTrainable(VariableOp variable) {
  return !variable->hasAttr("frozen") &&
         stripEncoding(variable.getType()).getElementType().isF32();
}

struct AutodiffPass
    : public mlir::oneflow::impl::AutodiffPassBase<AutodiffPass> {
  using AutodiffPassBase::AutodiffPassBase;

  void runOnOperation() override;

private:
  /// The output named `loss`, checked; null after an error.
  OutputOp findLoss(func::FuncOp func);
};

} // namespace

OutputOp AutodiffPass::findLoss(func::FuncOp func) {
  OutputOp found;
  func.walk([&](OutputOp output) {
    if (output.getName() == loss && !found)
      found = output;
  });
  if (!found) {
    func.emitError() << "has no output named '" << loss
                     << "' to differentiate";
    return {};
  }
  auto type = stripEncoding(found.getValue().getType());
  if (type.getRank() != 0 || !type.getElementType().isF32()) {
    found.emitOpError() << "is the loss and must be a scalar f32 "
                        << "(tensor<f32>), got " << type;
    return {};
  }
  return found;
}

void AutodiffPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  OutputOp lossOutput = findLoss(func);
  if (!lossOutput)
    return signalPassFailure();
  // A batch of no samples has no loss to minimize (a mean over it is NaN).
  WalkResult empty = func.walk([&](InputOp input) {
    auto type = stripEncoding(input.getType());
    if (!type.hasStaticShape() || type.getNumElements() != 0)
      return WalkResult::advance();
    input.emitOpError() << "of type " << type
                        << " holds no elements (a zero-size batch); a "
                           "training step needs at least one sample";
    return WalkResult::interrupt();
  });
  if (empty.wasInterrupted())
    return signalPassFailure();
  Block &body = func.getBody().front();

  // Values that depend on a trainable variable, in program order.
  llvm::DenseSet<Value> varying;
  SmallVector<VariableOp> variables;
  for (Operation &op : body) {
    if (auto variable = dyn_cast<VariableOp>(op)) {
      if (isTrainable(variable)) {
        variables.push_back(variable);
        varying.insert(variable.getResult());
      }
      continue;
    }
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return varying.contains(v); }))
      for (Value result : op.getResults())
        if (isDifferentiable(result))
          varying.insert(result);
  }

  // Ops on a path from a variable to the loss, found backwards.
  llvm::DenseSet<Value> needed;
  llvm::SetVector<Operation *> active;
  if (varying.contains(lossOutput.getValue()))
    needed.insert(lossOutput.getValue());
  for (Operation &op : llvm::reverse(body)) {
    if (isa<VariableOp>(op) ||
        llvm::none_of(op.getResults(),
                      [&](Value v) { return needed.contains(v); }))
      continue;
    active.insert(&op);
    for (Value operand : op.getOperands())
      if (varying.contains(operand))
        needed.insert(operand);
  }

  OpBuilder b(func.getContext());
  b.setInsertionPoint(body.getTerminator());
  Location lossLoc = lossOutput.getLoc();
  llvm::DenseMap<Value, Value> grads;
  if (needed.contains(lossOutput.getValue()))
    grads[lossOutput.getValue()] = FillOp::create(
        b, lossLoc, RankedTensorType::get({}, b.getF32Type()),
        b.getF64FloatAttr(1.0));
  Operation *firstBackward = grads.empty()
                                 ? nullptr
                                 : grads.begin()->second.getDefiningOp();

  // Ops built since `mark` (the op before the insertion point) run in the
  // pipeline stage of `from`, if it has one.
  Operation *terminator = body.getTerminator();
  auto inheritStage = [&](Operation *mark, Operation *from) {
    std::optional<int64_t> stage = getStage(from);
    if (!stage)
      return;
    for (Operation *op = mark ? mark->getNextNode() : &body.front();
         op != terminator; op = op->getNextNode())
      op->setAttr(kStageAttrName, from->getAttr(kStageAttrName));
  };
  if (firstBackward)
    inheritStage(firstBackward->getPrevNode(), lossOutput);

  // `active` holds the ops in reverse program order.
  for (Operation *op : active) {
    Operation *mark = terminator->getPrevNode();
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    auto rule = dyn_cast<GradientInterface>(op);
    if (!rule) {
      op->emitOpError() << "has no gradient rule, but the gradient of '"
                        << loss << "' flows through it";
      return signalPassFailure();
    }
    SmallVector<Value> operandGrads;
    if (failed(rule.buildGradient(b, resultGrads, operandGrads)))
      return signalPassFailure();
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads)) {
      if (!grad || !needed.contains(operand))
        continue;
      Value &sum = grads[operand];
      sum = sum ? AddOp::create(b, op->getLoc(), sum, grad).getResult()
                : grad;
    }
    inheritStage(mark, op);
  }

  // The gradients, after the backward ops.
  for (VariableOp variable : variables) {
    if (!needed.contains(variable.getResult()))
      continue;
    Operation *mark = terminator->getPrevNode();
    Value grad = grads.lookup(variable.getResult());
    if (!grad)
      grad = FillOp::create(b, variable.getLoc(),
                            stripEncoding(variable.getType()),
                            b.getF64FloatAttr(0.0));
    auto output = OutputOp::create(b, variable.getLoc(),
                                   (variable.getName() + ".grad").str(), grad);
    output->setAttr("grad_of", variable.getNameAttr());
    inheritStage(mark, variable);
  }

  // Erase the backward ops nothing uses (gradients of constants).
  if (!firstBackward)
    return;
  SmallVector<Operation *> created;
  for (Operation *op = firstBackward; op; op = op->getNextNode())
    created.push_back(op);
  for (Operation *op : llvm::reverse(created))
    if (isOpTriviallyDead(op))
      op->erase();
}
