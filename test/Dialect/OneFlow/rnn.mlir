// RUN: of-opt %s | of-opt | FileCheck %s
// RUN: of-opt %s --mlir-print-op-generic | of-opt | FileCheck %s

// The recurrent layer and its gradient round-trip, for each cell, with
// LSTM's cell state and both directions.

// CHECK-LABEL: func.func @layers
func.func @layers(%x: tensor<5x2x3xf32>, %w4: tensor<1x4x4x3xf32>, %r4: tensor<1x4x4x4xf32>,
                  %b4: tensor<1x4x4xf32>, %h: tensor<1x2x4xf32>,
                  %w3: tensor<2x3x4x3xf32>, %r3: tensor<2x3x4x4xf32>, %b3: tensor<2x4x4xf32>,
                  %h2: tensor<2x2x4xf32>, %w1: tensor<1x1x4x3xf32>, %r1: tensor<1x1x4x4xf32>,
                  %b1: tensor<1x1x4xf32>) {
  // CHECK: oneflow.rnn %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {cell = "lstm"} : (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  %y, %hn, %cn = oneflow.rnn %x, %w4, %r4, %b4, %h, %h {cell = "lstm"}
      : (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
      -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  // CHECK: oneflow.rnn {{.*}} {cell = "lbr_gru", direction = "bidirectional"} : {{.*}} -> (tensor<5x2x8xf32>, tensor<2x2x4xf32>)
  %gy, %ghn = oneflow.rnn %x, %w3, %r3, %b3, %h2 {cell = "lbr_gru", direction = "bidirectional"}
      : (tensor<5x2x3xf32>, tensor<2x3x4x3xf32>, tensor<2x3x4x4xf32>, tensor<2x4x4xf32>, tensor<2x2x4xf32>)
      -> (tensor<5x2x8xf32>, tensor<2x2x4xf32>)
  // CHECK: oneflow.rnn {{.*}} {cell = "rnn_relu", direction = "reverse"}
  %ry, %rhn = oneflow.rnn %x, %w1, %r1, %b1, %h {cell = "rnn_relu", direction = "reverse"}
      : (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>)
      -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  // CHECK: oneflow.rnn_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} grads(%{{.*}}, %{{.*}}, %{{.*}}) {cell = "lstm"}
  %dx, %dw, %dr, %db, %dh, %dc = oneflow.rnn_grad %x, %w4, %r4, %b4, %h, %h grads(%y, %hn, %cn) {cell = "lstm"}
      : (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>,
         tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
      -> (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  // CHECK: oneflow.rnn_grad %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} grads(%{{.*}}, %{{.*}}) {cell = "rnn_relu", direction = "reverse"}
  %ex, %ew, %er, %eb, %eh = oneflow.rnn_grad %x, %w1, %r1, %b1, %h grads(%ry, %rhn) {cell = "rnn_relu", direction = "reverse"}
      : (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>,
         tensor<5x2x4xf32>, tensor<1x2x4xf32>)
      -> (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>)
  return
}
