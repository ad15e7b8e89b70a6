// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-autodiff,oneflow-activation-checkpointing{segment-ops=2}))' | FileCheck %s
// RUN: not of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-activation-checkpointing{loss=nope}))' 2>&1 | FileCheck %s --check-prefix=NO-LOSS
// RUN: not of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-activation-checkpointing{segment-ops=-1}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NO-LOSS: error: oneflow-activation-checkpointing: @step has no output named 'nope'
// NEGATIVE: error: oneflow-activation-checkpointing: segment-ops is -1; it must be at least 0 (0: automatic)

// Segments of two forward ops: [matmul, relu], [matmul, relu], [mean].
// The relus' results are read by the next segment: kept. The matmuls'
// results are read only by their segment's relu and by the backward pass
// (the relu gradients compare them with 0): not kept, each recomputed
// from the kept values right before the first backward op that needs it.
// CHECK-LABEL: func.func @step
// CHECK:      %[[X:.*]] = oneflow.input "x"
// CHECK:      %[[W0:.*]] = oneflow.variable "w0"
// CHECK:      %[[W1:.*]] = oneflow.variable "w1"
// CHECK:      %[[H:.*]] = oneflow.matmul %[[X]], %[[W0]]
// CHECK-NEXT: %[[A:.*]] = oneflow.relu %[[H]]
// CHECK-NEXT: %[[Y:.*]] = oneflow.matmul %[[A]], %[[W1]]
// CHECK-NEXT: oneflow.relu %[[Y]]
// CHECK:      oneflow.output "loss"
// CHECK:      %[[Y2:.*]] = oneflow.matmul %[[A]], %[[W1]] :
// CHECK-NEXT: oneflow.greater %[[Y2]]
// CHECK:      %[[H2:.*]] = oneflow.matmul %[[X]], %[[W0]] :
// CHECK-NEXT: oneflow.greater %[[H2]]
// CHECK-NOT:  oneflow.greater %[[H]]
// CHECK-NOT:  oneflow.greater %[[Y]]
func.func @step() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %w0 = oneflow.variable "w0" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  %h = oneflow.matmul %x, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %a = oneflow.relu %h : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = oneflow.matmul %a, %w1 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %b = oneflow.relu %y : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %l = oneflow.reduce_mean %b {axes = array<i64: 0, 1>} : (tensor<8x4xf32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}

