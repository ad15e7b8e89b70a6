//===- MapRecurrent.h - ONNX recurrent nodes, shared parts -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What MapRecurrent.cpp (the node, and its unrolled equations) and
// MapRecurrentLayer.cpp (one oneflow.rnn) share.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_TARGET_ONNX_MAPRECURRENT_H
#define ONEFLOW_LIB_TARGET_ONNX_MAPRECURRENT_H

#include "Importer.h"

namespace mlir::oneflow::onnx_import {

enum class RecurrentCell { rnn, gru, lstm };

/// A recurrent node as read by MapRecurrent.cpp.
struct RecurrentLayer {
  RecurrentCell cell;
  std::string direction, activation;
  int64_t directions, seq, batch, hidden;
  bool batchFirst, linearBeforeReset;
  // x [seq, batch, input], the states [dirs, batch, H] (null when absent);
  // w, r and bias as in ONNX (bias null when absent).
  Value x, w, r, bias, h0, c0;
};

/// Whether oneDNN's primitives compute the node: f32, no peepholes, and
/// the default activations (RNN: one of Tanh, Relu, Sigmoid for every
/// direction); sets `activation` to RNN's.
bool fitsRecurrentPrimitive(RecurrentCell cell, Type element, bool peepholes,
                            llvm::ArrayRef<std::string> activations,
                            llvm::ArrayRef<llvm::StringRef> defaults,
                            std::string &activation);

/// The node as one oneflow.rnn.
LogicalResult mapRecurrentLayer(NodeContext &node, const RecurrentLayer &in);

/// `v` transposed by `perm` (a failure has been reported at the node).
FailureOr<Value> transposedValue(NodeContext &node, Value v,
                                 llvm::ArrayRef<int64_t> perm);

} // namespace mlir::oneflow::onnx_import

#endif // ONEFLOW_LIB_TARGET_ONNX_MAPRECURRENT_H
