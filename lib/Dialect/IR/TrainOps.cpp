//===- TrainOps.cpp - Optimizer update ops --------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Verifiers of oneflow.sgd_update and oneflow.adam_update (operand types,
// state counts and the ranges of the hyper-parameters), of
// oneflow.moving_average_update, and oneflow.find_nonfinite's verifier and
// SBP signatures.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;

/// Checks what every update op shares: the gradient and `numStates` states
/// of the parameter's logical type, a rank-0 scale and skip flag, and the
/// schedule.
template <typename OpTy>
static LogicalResult verifyUpdate(OpTy op, size_t numStates,
                                  StringRef statesNeed) {
  RankedTensorType param = stripEncoding(op.getParam().getType());
  if (stripEncoding(op.getGrad().getType()) != param)
    return op.emitOpError()
           << "gradient of type " << stripEncoding(op.getGrad().getType())
           << " does not match the parameter's " << param;
  if (op.getStates().size() != numStates)
    return op.emitOpError() << "has " << op.getStates().size()
                            << " states but needs " << numStates << " ("
                            << statesNeed << ")";
  for (auto [index, state] : llvm::enumerate(op.getStates()))
    if (stripEncoding(state.getType()) != param)
      return op.emitOpError()
             << "state #" << index << " of type "
             << stripEncoding(state.getType())
             << " does not match the parameter's " << param;
  if (Value scale = op.getScale()) {
    auto type = cast<RankedTensorType>(scale.getType());
    if (type.getRank() != 0 ||
        type.getElementType() != param.getElementType())
      return op.emitOpError()
             << "scale must be a rank-0 tensor of " << param.getElementType()
             << ", got " << stripEncoding(type);
  }
  if (Value skip = op.getSkip()) {
    if (!op.getScale())
      return op.emitOpError() << "has a skip flag but no scale; a skip comes "
                                 "with a scale (1 without clipping)";
    auto type = cast<RankedTensorType>(skip.getType());
    if (type.getRank() != 0 || !type.getElementType().isF32())
      return op.emitOpError()
             << "skip must be a rank-0 tensor of f32, got "
             << stripEncoding(type);
  }
  double lr = op.getLr().convertToDouble();
  double minLr = op.getMinLr().convertToDouble();
  if (!(lr >= 0))
    return op.emitOpError()
           << "learning rate " << formatDouble(lr)
           << (std::isnan(lr) ? " is not a number" : " is negative");
  if (!(op.getWeightDecay().convertToDouble() >= 0))
    return op.emitOpError()
           << "weight decay "
           << formatDouble(op.getWeightDecay().convertToDouble())
           << " is negative";
  int64_t warmup = op.getWarmupSteps(), total = op.getTotalSteps();
  if (warmup < 0 || total < 0)
    return op.emitOpError() << "warmup_steps " << warmup << " and total_steps "
                            << total << " must not be negative";
  if (total > 0 && total <= warmup)
    return op.emitOpError() << "total_steps " << total
                            << " must exceed warmup_steps " << warmup;
  if (!(minLr >= 0 && minLr <= lr))
    return op.emitOpError() << "min_lr " << formatDouble(minLr)
                            << " is not in [0, lr = " << formatDouble(lr)
                            << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// SgdUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult SgdUpdateOp::verify() {
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0 && momentum < 1))
    return emitOpError() << "momentum " << formatDouble(momentum) << " is not in [0, 1)";
  if (getNesterov() && momentum == 0)
    return emitOpError() << "nesterov needs a positive momentum";
  return verifyUpdate(*this, momentum > 0 ? 1 : 0,
                      momentum > 0 ? "the momentum buffer"
                                   : "none without momentum");
}

//===----------------------------------------------------------------------===//
// AdamUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult AdamUpdateOp::verify() {
  for (auto [name, beta] :
       {std::pair<StringRef, double>{"beta1", getBeta1().convertToDouble()},
        {"beta2", getBeta2().convertToDouble()}})
    if (!(beta >= 0 && beta < 1))
      return emitOpError() << name << " " << formatDouble(beta) << " is not in [0, 1)";
  if (!(getEpsilon().convertToDouble() > 0))
    return emitOpError() << "epsilon "
                         << formatDouble(getEpsilon().convertToDouble())
                         << " is not positive";
  return verifyUpdate(*this, 2, "m and v");
}

//===----------------------------------------------------------------------===//
// MovingAverageUpdateOp
//===----------------------------------------------------------------------===//

LogicalResult MovingAverageUpdateOp::verify() {
  RankedTensorType moving = stripEncoding(getMoving().getType());
  if (stripEncoding(getValue().getType()) != moving)
    return emitOpError() << "value of type "
                         << stripEncoding(getValue().getType())
                         << " does not match the moving average's " << moving;
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0 && momentum <= 1))
    return emitOpError() << "momentum " << formatDouble(momentum)
                         << " is not in [0, 1]";
  return success();
}

//===----------------------------------------------------------------------===//
// FindNonfiniteOp
//===----------------------------------------------------------------------===//

/// Codes are f32 values; every integer up to 2^24 is one exactly.
static constexpr int64_t kMaxNonfiniteCode = int64_t(1) << 24;

LogicalResult FindNonfiniteOp::verify() {
  auto result = stripEncoding(getResult().getType());
  if (result.getRank() != 0 || !result.getElementType().isF32())
    return emitOpError() << "result must be a rank-0 tensor of f32, got "
                         << result;
  size_t n = getX().size();
  if (n == 0)
    return emitOpError() << "checks no tensor";
  if (getCodes().size() != n || getLabels().size() != n)
    return emitOpError() << "has " << getCodes().size() << " codes and "
                         << getLabels().size() << " labels for " << n
                         << " tensors";
  if (!getLike().empty() && getLike().size() != n)
    return emitOpError() << "has " << getLike().size()
                         << " like operands for " << n << " tensors";
  for (auto [index, x] : llvm::enumerate(getX())) {
    auto xType = stripEncoding(x.getType());
    if (!getLike().empty()) {
      auto like = stripEncoding(getLike()[index].getType());
      if (like.getShape() != xType.getShape())
        return emitOpError() << "like #" << index << " of type " << like
                             << " does not have the shape of x #" << index
                             << "'s " << xType;
    }
    int64_t code = getCodes()[index];
    if (code < 1 || code > kMaxNonfiniteCode)
      return emitOpError() << "code " << code << " is not in [1, "
                           << kMaxNonfiniteCode << "]";
  }
  return success();
}

// Every axis of every x is reduced, by a maximum: a split x leaves P(max);
// each `like` is split with its x, axis for axis.
void FindNonfiniteOp::getSbpSignatures(
    int64_t meshAxisSize, SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(*this);
  unsigned n = getX().size();
  bool withLike = !getLike().empty();
  for (unsigned index = 0; index < n; ++index) {
    int64_t rank = stripEncoding(getX()[index].getType()).getRank();
    for (int64_t axis = 0; axis < rank; ++axis) {
      int64_t dim = dims.addDim(SbpDimKind::reduction, PartialReduction::max);
      dims.mapOperandAxis(index, axis, dim);
      if (withLike)
        dims.mapOperandAxis(n + index, axis, dim);
    }
  }
  dims.derive(meshAxisSize, signatures);
}

// The gradient check reads its gradient in the layout of `like` (its
// variable's, as the update does), never boxing the variable.
SmallVector<unsigned> FindNonfiniteOp::getLayoutKeepingOperands() {
  unsigned n = getX().size();
  return llvm::to_vector(
      llvm::seq<unsigned>(n, n + static_cast<unsigned>(getLike().size())));
}
