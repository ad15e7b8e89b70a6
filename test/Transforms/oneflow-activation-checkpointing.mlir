// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-autodiff,oneflow-activation-checkpointing{segment-ops=2}))' | FileCheck %s
// RUN: not of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-activation-checkpointing{loss=nope}))' 2>&1 | FileCheck %s --check-prefix=NO-LOSS
// RUN: not of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-activation-checkpointing{segment-ops=-1}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NO-LOSS: error: oneflow-activation-checkpointing: @step has no output named 'nope'
// NEGATIVE: error: oneflow-activation-checkpointing: segment-ops is -1; it must be at least 0 (0: automatic)
//
// Segments by layers (examples/gpt/recompute.json: one rule per block):
// the five layer norms of the two blocks and the final norm run again in
// the backward pass, the embedding gathers before every matched variable
// do not.
// RUN: of-opt %S/../../examples/gpt/gpt.mlir -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff,oneflow-activation-checkpointing{strategy=%S/../../examples/gpt/recompute.json}))' > %t.layers.mlir
// RUN: grep -c 'oneflow.layer_norm ' %t.layers.mlir | FileCheck %s --check-prefix=NORMS
// RUN: grep -c 'oneflow.gather ' %t.layers.mlir | FileCheck %s --check-prefix=GATHERS
// NORMS: 10
// GATHERS: 2
// RUN: echo '{"mesh": [1], "recompute": [{"match": "h0.*"}, {"match": "h7.*"}]}' > %t.nomatch.json
// RUN: not of-opt %S/../../examples/gpt/gpt.mlir -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff,oneflow-activation-checkpointing{strategy=%t.nomatch.json}))' 2>&1 | FileCheck %s --check-prefix=NO-MATCH
// NO-MATCH: error: strategy file '{{.*}}nomatch.json' key "recompute[1].match": 'h7.*' matches no variable that the output 'loss' reads
// RUN: echo '{"mesh": [1], "recompute": [{"match": "h0.*", "stage": 1}]}' > %t.bad.json
// RUN: not of-opt %S/../../examples/gpt/gpt.mlir -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff,oneflow-activation-checkpointing{strategy=%t.bad.json}))' 2>&1 | FileCheck %s --check-prefix=BAD-KEY
// BAD-KEY: error: strategy file '{{.*}}bad.json' key "recompute[0]" must be {"match": a name or glob}

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

