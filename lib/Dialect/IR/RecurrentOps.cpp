//===- RecurrentOps.cpp - rnn and rnn_grad --------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Shape inference of the recurrent layer and its gradient (one rule,
// `inferRnn`, read by both), and their SBP: the batch is the only parallel
// axis (the steps and the hidden units depend on one another); split along
// it, the gradient's weight gradients are partial sums.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

using namespace mlir;
using namespace mlir::oneflow;

namespace {
/// The cell's gates, its bias' gates, and whether it has a cell state.
struct CellKind {
  int64_t gates, biasGates;
  bool lstm;
};

/// The rnn's types: y, hn and (LSTM) cn.
struct RnnTypes {
  RankedTensorType y, state;
  bool lstm;
};
} // namespace

static std::optional<CellKind> cellKind(StringRef cell) {
  if (cell == "rnn_tanh" || cell == "rnn_relu" || cell == "rnn_sigmoid")
    return CellKind{1, 1, false};
  if (cell == "lstm")
    return CellKind{4, 4, true};
  if (cell == "gru")
    return CellKind{3, 3, false};
  if (cell == "lbr_gru")
    return CellKind{3, 4, false};
  return std::nullopt;
}

/// Checks the rnn's operands (c0 may be null) and returns its result types.
static FailureOr<RnnTypes> inferRnn(std::optional<Location> loc, StringRef name,
                                    StringRef cell, StringRef direction,
                                    Value x, Value w, Value r, Value b,
                                    Value h0, Value c0) {
  std::optional<CellKind> kind = cellKind(cell);
  if (!kind)
    return emitInferError(loc, name)
           << "unknown cell '" << cell
           << "' (rnn_tanh, rnn_relu, rnn_sigmoid, lstm, gru or lbr_gru)";
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return emitInferError(loc, name) << "unknown direction '" << direction
                                     << "' (forward, reverse or bidirectional)";
  if (kind->lstm != static_cast<bool>(c0))
    return emitInferError(loc, name)
           << (kind->lstm ? "lstm needs c0" : "only lstm takes c0");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  auto xt = stripEncoding(x.getType());
  if (xt.getRank() != 3)
    return emitInferError(loc, name)
           << "x must be [steps, batch, input], got " << xt;
  Type element = xt.getElementType();
  auto rt = stripEncoding(r.getType());
  if (rt.getRank() != 4)
    return emitInferError(loc, name)
           << "r must be [directions, gates, hidden, hidden], got " << rt;
  int64_t hidden = rt.getDimSize(2), batch = xt.getDimSize(1);
  // Each operand's expected shape.
  auto check = [&](StringRef what, Value v,
                   ArrayRef<int64_t> shape) -> LogicalResult {
    auto type = stripEncoding(v.getType());
    if (type.getElementType() == element &&
        succeeded(verifyCompatibleShape(type.getShape(), shape)))
      return success();
    auto diag = emitInferError(loc, name)
                << what << " has type " << type << " but needs shape [";
    llvm::interleaveComma(shape, diag);
    return diag << "] of " << element << " (cell " << cell << ", direction "
                << direction << ")";
  };
  if (failed(check("w", w, {dirs, kind->gates, hidden, xt.getDimSize(2)})) ||
      failed(check("r", r, {dirs, kind->gates, hidden, hidden})) ||
      failed(check("b", b, {dirs, kind->biasGates, hidden})) ||
      failed(check("h0", h0, {dirs, batch, hidden})) ||
      (c0 && failed(check("c0", c0, {dirs, batch, hidden}))))
    return failure();
  int64_t width = ShapedType::isDynamic(hidden) ? hidden : dirs * hidden;
  return RnnTypes{
      RankedTensorType::get({xt.getDimSize(0), batch, width}, element),
      RankedTensorType::get({dirs, batch, hidden}, element), kind->lstm};
}

LogicalResult RnnOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  FailureOr<RnnTypes> t = inferRnn(
      loc, getOperationName(), adaptor.getCell(), adaptor.getDirection(),
      adaptor.getX(), adaptor.getW(), adaptor.getR(), adaptor.getB(),
      adaptor.getH0(), adaptor.getC0());
  if (failed(t))
    return failure();
  types.append({t->y, t->state});
  if (t->lstm)
    types.push_back(t->state);
  return success();
}

LogicalResult RnnGradOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> loc,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &types) {
  StringRef name = getOperationName();
  FailureOr<RnnTypes> t =
      inferRnn(loc, name, adaptor.getCell(), adaptor.getDirection(),
               adaptor.getX(), adaptor.getW(), adaptor.getR(), adaptor.getB(),
               adaptor.getH0(), adaptor.getC0());
  if (failed(t))
    return failure();
  if (t->lstm != static_cast<bool>(adaptor.getDcn()))
    return emitInferError(loc, name)
           << (t->lstm ? "lstm needs dcn" : "only lstm takes dcn");
  auto check = [&](StringRef what, Value v,
                   RankedTensorType expected) -> LogicalResult {
    auto type = stripEncoding(v.getType());
    if (type.getElementType() == expected.getElementType() &&
        succeeded(verifyCompatibleShape(type.getShape(), expected.getShape())))
      return success();
    return emitInferError(loc, name)
           << what << " " << type << " differs from the forward result "
           << expected;
  };
  if (failed(check("dy", adaptor.getDy(), t->y)) ||
      failed(check("dhn", adaptor.getDhn(), t->state)) ||
      (t->lstm && failed(check("dcn", adaptor.getDcn(), t->state))))
    return failure();
  for (Value operand : {adaptor.getX(), adaptor.getW(), adaptor.getR(),
                        adaptor.getB(), adaptor.getH0()})
    types.push_back(stripEncoding(operand.getType()));
  if (t->lstm)
    types.push_back(stripEncoding(adaptor.getC0().getType()));
  return success();
}

/// The batch: axis 1 of x, the states, y and their gradients; the weights
/// and the bias (operands 1 to 3, and rnn_grad's results 1 to 3) index
/// none of it. rnn: x, w, r, b, h0[, c0] -> y, hn[, cn]; rnn_grad: x, w, r,
/// b, h0[, c0], dy, dhn[, dcn] -> dx, dw, dr, db, dh0[, dc0].
static void deriveRnnSbp(Operation *op, SbpDimKind kind, int64_t meshAxisSize,
                         SmallVectorImpl<SbpSignature> &signatures) {
  SbpDims dims(op);
  int64_t batch = dims.addDim(kind);
  for (unsigned i = 0, e = op->getNumOperands(); i < e; ++i)
    if (i == 0 || i >= 4)
      dims.mapOperandAxis(i, 1, batch);
  bool grad = isa<RnnGradOp>(op);
  for (unsigned i = 0, e = op->getNumResults(); i < e; ++i)
    if (!grad || i == 0 || i >= 4)
      dims.mapResultAxis(i, 1, batch);
  dims.derive(meshAxisSize, signatures);
}

void RnnOp::getSbpSignatures(int64_t meshAxisSize,
                             SmallVectorImpl<SbpSignature> &signatures) {
  deriveRnnSbp(*this, SbpDimKind::parallel, meshAxisSize, signatures);
}

void RnnGradOp::getSbpSignatures(int64_t meshAxisSize,
                                 SmallVectorImpl<SbpSignature> &signatures) {
  // The weight gradients sum over the batch: partial where it is split.
  deriveRnnSbp(*this, SbpDimKind::reduction, meshAxisSize, signatures);
}
