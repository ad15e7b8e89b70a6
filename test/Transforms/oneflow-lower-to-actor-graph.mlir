// RUN: of-opt %s -split-input-file -oneflow-lower-to-actor-graph | FileCheck %s
// RUN: of-opt %s -split-input-file -oneflow-lower-to-actor-graph=regst-count=2 | FileCheck %s --check-prefix=COUNT2
// RUN: of-opt %s -split-input-file -oneflow-lower-to-actor-graph --mlir-print-debuginfo | FileCheck %s --check-prefix=LOC
// RUN: of-opt %s -split-input-file -oneflow-lower-to-actor-graph=device=cuda | FileCheck %s --check-prefix=CUDA

// One actor per op in program order on "compute", one regst per result with
// the result's type, operands and results in order, attributes kept
// (defaults included); the function is gone.
// Inputs run on an "io" stream with two buffers, so the next batch loads
// while the current one is computed on; the other ops run on "compute".
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK-NEXT:    %[[X:.*]] = oneflow_actor.regst 0 count 2 : tensor<8x4xf32>
// CHECK-NEXT:    oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%[[X]]) {name = "x"} on "io"
// CHECK-NEXT:    %[[W:.*]] = oneflow_actor.regst 1 count 1 : tensor<4x4xf32>
// CHECK-NEXT:    oneflow_actor.actor 1 @variable_1 "oneflow.variable"() -> (%[[W]]) {init = #oneflow.init<zeros>, name = "w", seed = 0 : i64} on "compute"
// CHECK-NEXT:    %[[Y:.*]] = oneflow_actor.regst 2 count 1 : tensor<8x4xf32>
// CHECK-NEXT:    oneflow_actor.actor 2 @matmul_2 "oneflow.matmul"(%[[X]], %[[W]]) -> (%[[Y]]) {transpose_b} on "compute"
// CHECK-NEXT:    %[[S:.*]] = oneflow_actor.regst 3 count 1 : tensor<8x4xf32>
// CHECK-NEXT:    oneflow_actor.actor 3 @softmax_3 "oneflow.softmax"(%[[Y]]) -> (%[[S]]) {axis = -1 : i64} on "compute"
// CHECK-NEXT:    %[[SUM:.*]] = oneflow_actor.regst 4 count 1 : tensor<8x4xf32>
// CHECK-NEXT:    oneflow_actor.actor 4 @add_4 "oneflow.add"(%[[S]], %[[S]]) -> (%[[SUM]]) on "compute"
// CHECK-NEXT:    oneflow_actor.actor 5 @output_5 "oneflow.output"(%[[SUM]]) -> () {name = "y"} on "compute"
// CHECK-NEXT:    oneflow_actor.stream "io" [@input_0]
// CHECK-NEXT:    oneflow_actor.stream "compute" [@variable_1, @matmul_2, @softmax_3, @add_4, @output_5]
// CHECK-NEXT:  }
// CHECK-NOT:   func.func

// COUNT2-COUNT-5: count 2 :

// A program without layouts runs on one device of the `device` option's kind.
// CUDA: oneflow_actor.rank_plan rank 0 device cuda {

// LOC: oneflow_actor.actor 2 @matmul_2 {{.*}} loc(#[[MATMUL:.*]])
// LOC: #[[MATMUL]] = loc("{{.*}}lower-to-actor-graph.mlir":[[# @LINE + 4]]:8)
func.func @mlp() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  %y = oneflow.matmul %x, %w {transpose_b} : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %s = oneflow.softmax %y : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %sum = oneflow.add %s, %s : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  oneflow.output "y", %sum : tensor<8x4xf32>
  return
}

// -----

// Several results: one regst each, in result order.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK:         %[[LOGITS:.*]] = oneflow_actor.regst 0 count 2 : tensor<4x10xf32>
// CHECK:         %[[LABELS:.*]] = oneflow_actor.regst 1 count 2 : tensor<4xi64>
// CHECK:         %[[PROB:.*]] = oneflow_actor.regst 2 count 1 : tensor<4x10xf32>
// CHECK-NEXT:    %[[LOSS:.*]] = oneflow_actor.regst 3 count 1 : tensor<4xf32>
// CHECK-NEXT:    oneflow_actor.actor 2 @sparse_softmax_cross_entropy_2 "oneflow.sparse_softmax_cross_entropy"(%[[LOGITS]], %[[LABELS]]) -> (%[[PROB]], %[[LOSS]]) on "compute"
func.func @two_results() {
  %logits = oneflow.input "logits" : tensor<4x10xf32>
  %labels = oneflow.input "labels" : tensor<4xi64>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<4x10xf32>, tensor<4xi64>) -> (tensor<4x10xf32>, tensor<4xf32>)
  oneflow.output "loss", %loss : tensor<4xf32>
  return
}

// -----

// Each function becomes a rank plan of its own; other ops stay.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK:         oneflow_actor.stream "compute" [@fill_0]
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK-NEXT:    oneflow_actor.stream "compute" []
// CHECK:       oneflow_actor.rank_plan rank 3 device cuda
func.func @first() {
  %z = oneflow.fill 0.0 : tensor<2xf32>
  return
}
func.func @empty() {
  return
}
oneflow_actor.rank_plan rank 3 device cuda {
}
