//===- MapRecurrentLayer.cpp - ONNX RNN, GRU and LSTM as one rnn op -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A recurrent node oneDNN's primitives compute becomes one `oneflow.rnn`:
// its weights' gates reordered to oneDNN's order (LSTM's i o f c to i f c
// o) by slices and a concat, the two biases summed (GRU with
// linear_before_reset keeps the recurrent bias of its third gate apart),
// absent states zeros, and Y's axes rearranged from [seq, batch, dirs x H]
// to ONNX's. The rest of the node is read by MapRecurrent.cpp.
//
//===----------------------------------------------------------------------===//

#include "MapRecurrent.h"

#include "OneFlowDialect/IR/OneFlowOps.h"

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::onnx_import;

/// `v` with its entries along axis 1 (the gates) in the order `perm`.
static FailureOr<Value> gatesInOrder(NodeContext &node, Value v,
                                     llvm::ArrayRef<int64_t> perm) {
  llvm::SmallVector<Value> parts;
  for (int64_t k : perm) {
    FailureOr<Value> part = node.sliceAlong(v, 1, k, k + 1);
    if (failed(part))
      return failure();
    parts.push_back(*part);
  }
  return valueOf(node.create<ConcatOp>(
      parts, {node.named("axis", node.b.getI64IntegerAttr(1))}));
}

FailureOr<Value> mlir::oneflow::onnx_import::transposedValue(
    NodeContext &node, Value v, llvm::ArrayRef<int64_t> perm) {
  return valueOf(node.create<TransposeOp>(
      v, {node.named("perm", node.b.getDenseI64ArrayAttr(perm))}));
}

LogicalResult
mlir::oneflow::onnx_import::mapRecurrentLayer(NodeContext &node,
                                              const RecurrentLayer &in) {
  int64_t dirs = in.directions, hidden = in.hidden, batch = in.batch;
  int64_t gates = in.cell == RecurrentCell::lstm  ? 4
                  : in.cell == RecurrentCell::gru ? 3
                                                  : 1;
  Type element = NodeContext::typeOf(in.x).getElementType();
  // ONNX's LSTM gates i o f c, oneDNN's i f c o.
  llvm::SmallVector<int64_t> order =
      in.cell == RecurrentCell::lstm ? llvm::SmallVector<int64_t>{0, 2, 3, 1}
                                     : llvm::SmallVector<int64_t>{};
  // [D, G H, K] -> [D, G, H, K] in oneDNN's gate order.
  auto weights = [&](Value v, int64_t k) -> FailureOr<Value> {
    Value g = node.reshape(v, {dirs, gates, hidden, k});
    return order.empty() ? g : gatesInOrder(node, g, order);
  };
  FailureOr<Value> w = weights(in.w, NodeContext::typeOf(in.x).getDimSize(2));
  FailureOr<Value> r = weights(in.r, hidden);
  if (failed(w) || failed(r))
    return failure();
  bool lbr = in.cell == RecurrentCell::gru && in.linearBeforeReset;
  int64_t biasGates = lbr ? 4 : gates;
  FailureOr<Value> bias =
      node.fill(RankedTensorType::get({dirs, biasGates, hidden}, element), 0);
  if (in.bias) {
    Value both = node.reshape(in.bias, {dirs, 2 * gates, hidden});
    FailureOr<Value> wb = node.sliceAlong(both, 1, 0, gates),
                     rb = node.sliceAlong(both, 1, gates, 2 * gates);
    if (failed(wb) || failed(rb))
      return failure();
    bias = valueOf(node.create<AddOp>({*wb, *rb}));
    if (succeeded(bias) && !order.empty())
      bias = gatesInOrder(node, *bias, order);
    if (succeeded(bias) && lbr) {
      // b_u, b_r summed, then Wb_o and Rb_o apart.
      FailureOr<Value> ur = node.sliceAlong(*bias, 1, 0, 2),
                       wo = node.sliceAlong(*wb, 1, 2, 3),
                       ro = node.sliceAlong(*rb, 1, 2, 3);
      if (failed(ur) || failed(wo) || failed(ro))
        return failure();
      bias = valueOf(node.create<ConcatOp>(
          {*ur, *wo, *ro}, {node.named("axis", node.b.getI64IntegerAttr(1))}));
    }
    if (failed(bias))
      return failure();
  }
  // States [D, N, H], zeros when absent.
  auto state = [&](Value v) -> Value {
    return v ? v
             : node.fill(RankedTensorType::get({dirs, batch, hidden}, element),
                         0);
  };
  llvm::SmallVector<Value> operands = {in.x, *w, *r, *bias, state(in.h0)};
  if (in.cell == RecurrentCell::lstm)
    operands.push_back(state(in.c0));
  std::string cell = in.cell == RecurrentCell::lstm ? "lstm"
                     : in.cell == RecurrentCell::gru
                         ? (lbr ? "lbr_gru" : "gru")
                         : "rnn_" + llvm::StringRef(in.activation).lower();
  FailureOr<RnnOp> op = node.create<RnnOp>(
      operands, {node.named("cell", node.b.getStringAttr(cell)),
                 node.named("direction", node.b.getStringAttr(in.direction))});
  if (failed(op))
    return failure();
  // Y: [seq, batch, D H] -> [seq, D, batch, H] ([batch, seq, D, H]).
  FailureOr<Value> y = transposedValue(
      node, node.reshape(op->getY(), {in.seq, batch, dirs, hidden}),
      in.batchFirst ? llvm::ArrayRef<int64_t>{1, 0, 2, 3}
                    : llvm::ArrayRef<int64_t>{0, 2, 1, 3});
  auto last = [&](Value v) -> FailureOr<Value> {
    return in.batchFirst ? transposedValue(node, v, {1, 0, 2}) : v;
  };
  FailureOr<Value> yh = last(op->getHn()),
                   yc = in.cell == RecurrentCell::lstm
                            ? last(op->getCn())
                            : FailureOr<Value>(Value());
  if (failed(y) || failed(yh) || failed(yc))
    return failure();
  if (node.hasOutput(0))
    node.setOutput(0, *y);
  if (node.hasOutput(1))
    node.setOutput(1, *yh);
  if (in.cell == RecurrentCell::lstm && node.hasOutput(2))
    node.setOutput(2, *yc);
  return success();
}

bool mlir::oneflow::onnx_import::fitsRecurrentPrimitive(
    RecurrentCell cell, Type element, bool peepholes,
    llvm::ArrayRef<std::string> activations,
    llvm::ArrayRef<llvm::StringRef> defaults, std::string &activation) {
  if (!element.isF32() || peepholes)
    return false;
  activation = activations.front();
  for (size_t i = 0; i < activations.size(); ++i) {
    if (cell == RecurrentCell::rnn
            ? activations[i] != activation
            : activations[i] != defaults[i % defaults.size()])
      return false;
  }
  return true;
}
