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

/// A tensor seen as pieces along one axis, each a value or, where null,
/// zeros of `length` along it.
struct Piece {
  int64_t length;
  Value value;
};

bool isZeroFill(Value value) {
  auto fill = value.getDefiningOp<FillOp>();
  return fill && fill.getValue().convertToDouble() == 0.0;
}

/// `value` as the pieces of a concat along its axis, zero fills marked;
/// false where it is not a concat.
bool piecesOf(Value value, int64_t &axis, SmallVectorImpl<Piece> &pieces) {
  auto concat = value.getDefiningOp<ConcatOp>();
  if (!concat)
    return false;
  int64_t rank = stripEncoding(concat.getType()).getRank();
  axis = concat.getAxis() < 0 ? concat.getAxis() + rank : concat.getAxis();
  for (Value input : concat.getInputs()) {
    int64_t length = stripEncoding(input.getType()).getDimSize(axis);
    if (ShapedType::isDynamic(length))
      return false;
    pieces.push_back({length, isZeroFill(input) ? Value() : input});
  }
  return true;
}

/// Whether `pieces` are zeros over [begin, end), where `at` is the piece
/// that holds `begin` and `start` where it starts.
bool zerosOver(ArrayRef<Piece> pieces, size_t at, int64_t start, int64_t end) {
  for (; at < pieces.size() && start < end; start += pieces[at++].length)
    if (pieces[at].value)
      return false;
  return true;
}

/// The sum of two concats along one axis whose non-zero pieces do not
/// overlap, as one concat of those pieces (the gradients of slices that
/// partition a tensor, such as a GPT's q, k and v, then cost one copy
/// instead of zero fills, three concats and two additions); null where
/// the sum is not of that form.
Value sumOfDisjointConcats(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  int64_t lhsAxis, rhsAxis;
  SmallVector<Piece> pieces[2];
  if (lhs.getType() != rhs.getType() || !piecesOf(lhs, lhsAxis, pieces[0]) ||
      !piecesOf(rhs, rhsAxis, pieces[1]) || lhsAxis != rhsAxis)
    return Value();
  RankedTensorType type = stripEncoding(lhs.getType());
  int64_t dim = type.getDimSize(lhsAxis);
  SmallVector<Piece> sum;
  size_t at[2] = {0, 0};
  int64_t start[2] = {0, 0};
  for (int64_t pos = 0; pos < dim;) {
    for (int side = 0; side < 2; ++side)
      while (start[side] + pieces[side][at[side]].length <= pos)
        start[side] += pieces[side][at[side]++].length;
    const Piece &left = pieces[0][at[0]], &right = pieces[1][at[1]];
    int side = left.value ? 0 : right.value ? 1 : -1;
    if (side < 0) {
      int64_t end = std::min(start[0] + left.length, start[1] + right.length);
      if (!sum.empty() && !sum.back().value)
        sum.back().length += end - pos;
      else
        sum.push_back({end - pos, Value()});
      pos = end;
      continue;
    }
    const Piece &piece = pieces[side][at[side]];
    if (start[side] != pos ||
        !zerosOver(pieces[1 - side], at[1 - side], start[1 - side],
                   pos + piece.length))
      return Value();
    sum.push_back(piece);
    pos += piece.length;
  }
  SmallVector<Value> inputs;
  for (Piece &piece : sum) {
    if (piece.value) {
      inputs.push_back(piece.value);
      continue;
    }
    SmallVector<int64_t> shape(type.getShape());
    shape[lhsAxis] = piece.length;
    inputs.push_back(FillOp::create(
        b, loc, RankedTensorType::get(shape, type.getElementType()),
        b.getF64FloatAttr(0.0)));
  }
  if (inputs.size() == 1)
    return inputs.front();
  return ConcatOp::create(b, loc, inputs, b.getI64IntegerAttr(lhsAxis));
}

/// lhs + rhs, two gradients of one value.
Value sumGradients(OpBuilder &b, Location loc, Value lhs, Value rhs) {
  if (Value sum = sumOfDisjointConcats(b, loc, lhs, rhs))
    return sum;
  return AddOp::create(b, loc, lhs, rhs);
}

struct AutodiffPass
    : public mlir::oneflow::impl::AutodiffPassBase<AutodiffPass> {
  using AutodiffPassBase::AutodiffPassBase;

  void runOnOperation() override;

private:
  /// The output named `loss`, checked; null after an error.
  OutputOp findLoss(func::FuncOp func);
  /// Appends the backward ops and the gradients' outputs.
  LogicalResult buildBackward(func::FuncOp func, OutputOp lossOutput);
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

/// Whether an input of `func` holds no elements (a mean over an empty batch
/// is NaN); emits the error at it.
static bool hasEmptyInput(func::FuncOp func) {
  WalkResult empty = func.walk([&](InputOp input) {
    auto type = stripEncoding(input.getType());
    if (!type.hasStaticShape() || type.getNumElements() != 0)
      return WalkResult::advance();
    input.emitOpError() << "of type " << type
                        << " holds no elements (a zero-size batch); a "
                           "training step needs at least one sample";
    return WalkResult::interrupt();
  });
  return empty.wasInterrupted();
}

namespace {
/// What the backward pass differentiates: the trainable variables, and
/// the values on a path from one of them to the loss.
struct ActiveSet {
  SmallVector<VariableOp> variables;
  llvm::DenseSet<Value> needed;
  /// The ops on such a path, in reverse program order.
  llvm::SetVector<Operation *> ops;
};
} // namespace

static ActiveSet findActive(Block &body, Value loss) {
  ActiveSet active;
  // Values that depend on a trainable variable, in program order.
  llvm::DenseSet<Value> varying;
  for (Operation &op : body) {
    if (auto variable = dyn_cast<VariableOp>(op)) {
      if (isTrainable(variable)) {
        active.variables.push_back(variable);
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
  if (varying.contains(loss))
    active.needed.insert(loss);
  for (Operation &op : llvm::reverse(body)) {
    if (isa<VariableOp>(op) ||
        llvm::none_of(op.getResults(),
                      [&](Value v) { return active.needed.contains(v); }))
      continue;
    active.ops.insert(&op);
    for (Value operand : op.getOperands())
      if (varying.contains(operand))
        active.needed.insert(operand);
  }
  return active;
}

/// Ops built since `mark` (the op before the insertion point, null for the
/// block's start) run in the pipeline stage of `from`, if it has one.
static void inheritStage(Block &body, Operation *mark, Operation *from) {
  std::optional<int64_t> stage = getStage(from);
  if (!stage)
    return;
  Operation *terminator = body.getTerminator();
  for (Operation *op = mark ? mark->getNextNode() : &body.front();
       op != terminator; op = op->getNextNode())
    op->setAttr(kStageAttrName, from->getAttr(kStageAttrName));
}

/// Erases the backward ops from `firstBackward` on that nothing uses
/// (gradients of constants).
static void eraseUnusedBackward(Operation *firstBackward) {
  SmallVector<Operation *> created;
  for (Operation *op = firstBackward; op; op = op->getNextNode())
    created.push_back(op);
  for (Operation *op : llvm::reverse(created))
    if (isOpTriviallyDead(op))
      op->erase();
}

LogicalResult AutodiffPass::buildBackward(func::FuncOp func,
                                          OutputOp lossOutput) {
  Block &body = func.getBody().front();
  ActiveSet active = findActive(body, lossOutput.getValue());
  OpBuilder b(func.getContext());
  b.setInsertionPoint(body.getTerminator());
  llvm::DenseMap<Value, Value> grads;
  if (active.needed.contains(lossOutput.getValue()))
    grads[lossOutput.getValue()] = FillOp::create(
        b, lossOutput.getLoc(), RankedTensorType::get({}, b.getF32Type()),
        b.getF64FloatAttr(1.0));
  Operation *firstBackward = grads.empty()
                                 ? nullptr
                                 : grads.begin()->second.getDefiningOp();
  if (firstBackward)
    inheritStage(body, firstBackward->getPrevNode(), lossOutput);

  Operation *terminator = body.getTerminator();
  for (Operation *op : active.ops) {
    Operation *mark = terminator->getPrevNode();
    SmallVector<Value> resultGrads;
    for (Value result : op->getResults())
      resultGrads.push_back(grads.lookup(result));
    auto rule = dyn_cast<GradientInterface>(op);
    if (!rule)
      return op->emitOpError() << "has no gradient rule, but the gradient of '"
                               << loss << "' flows through it";
    SmallVector<Value> operandGrads;
    if (failed(rule.buildGradient(b, resultGrads, operandGrads)))
      return failure();
    for (auto [operand, grad] : llvm::zip(op->getOperands(), operandGrads)) {
      if (!grad || !active.needed.contains(operand))
        continue;
      Value &sum = grads[operand];
      sum = sum ? sumGradients(b, op->getLoc(), sum, grad) : grad;
    }
    inheritStage(body, mark, op);
  }

  // The gradients, after the backward ops.
  for (VariableOp variable : active.variables) {
    if (!active.needed.contains(variable.getResult()))
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
    inheritStage(body, mark, variable);
  }
  if (firstBackward)
    eraseUnusedBackward(firstBackward);
  return success();
}

void AutodiffPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (func.isExternal())
    return;
  OutputOp lossOutput = findLoss(func);
  if (!lossOutput || hasEmptyInput(func) ||
      failed(buildBackward(func, lossOutput)))
    return signalPassFailure();
}
