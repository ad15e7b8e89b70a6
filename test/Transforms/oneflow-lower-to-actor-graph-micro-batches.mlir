// RUN: of-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{devices=2 micro-batches=2}),oneflow-default-pipeline)' | FileCheck %s
// RUN: of-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{devices=2 micro-batches=2}))' | FileCheck %s --check-prefix=LAYOUT

// A data-parallel training step on 2 ranks as 2 micro-batches. The layout:
// mesh axis 0 is time (micro-batch m of rank r is virtual rank 2m + r).
// LAYOUT:      #cpu2x2 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
// LAYOUT:      func.func @step() attributes {oneflow.micro_batches = 2 : i64}
// LAYOUT-NEXT: oneflow.input "x" : tensor<8x3xf32, #oneflow.global<#cpu2x2, [S(0), S(0)]>>
// LAYOUT-NEXT: oneflow.variable "w" {{.*}} : tensor<3x2xf32, #oneflow.global<#cpu2x2, [B, B]>>
//
// The plan of rank 0: the input, matmuls and mean fire twice per step; the
// input's piece of 2 rows moves 4 rows per micro-batch (rank 1 starts at
// row 2); the gradient and loss, bucketed into one concat, are summed over
// the micro-batches by an accumulation that writes once per step; then
// one all-reduce over the devices, once per step, and the update.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0
// CHECK:      %r0 = oneflow_actor.regst 0 count 2 {{.*}} : tensor<2x3xf32>
// CHECK-NEXT: @input_0 "oneflow.input"() -> (%r0) {name = "x"} layout #oneflow_actor.piece<logical_shape = [8, 3], begin = [0, 0], micro_stride = [4, 0]> on "io" fires 2
// CHECK:      @variable_1 "oneflow.variable"() -> (%r1) {{.*}} on "compute"{{$}}
// CHECK:      @matmul_2 "oneflow.matmul"(%r0, %r1) -> (%r2) on "compute" fires 2
// CHECK:      @reduce_mean_4 "oneflow.reduce_mean"(%r2) -> (%r4) {axes = array<i64: 0, 1>} layout #oneflow_actor.divisor<divisor = 16> on "compute" fires 2
// CHECK:      %r8 = oneflow_actor.regst 8 count 1 {{.*}} : tensor<7xf32>
// CHECK-NEXT: @accumulate_8 "oneflow.accumulate"(%r7) -> (%r8) {mesh_axis = 0 : i64} on "compute" fires 2 emits every 2
// CHECK:      @all_reduce_16 "oneflow.all_reduce"(%r15) -> (%r16) {mesh_axis = 1 : i64} layout #oneflow_actor.collective<group = [0, 1]> on "collective"{{$}}
// CHECK:      @sgd_update_22 "oneflow.sgd_update"(%r1, %r20)
//
// Stream orders list one step's firings: the variable in the first
// micro-batch, what follows the accumulation in the last.
// CHECK:      oneflow_actor.stream "io" [@input_0, @input_0]
// CHECK-NEXT: oneflow_actor.stream "compute" [@variable_1, @matmul_2, @matmul_3, @reduce_mean_4, @reshape_5, @reshape_6, @concat_7, @accumulate_8, @matmul_2, @matmul_3, @reduce_mean_4, @reshape_5, @reshape_6, @concat_7, @accumulate_8, @slice_9, {{.*}}, @output_19, @slice_20, @reshape_21, @sgd_update_22]
// CHECK-NEXT: oneflow_actor.stream "collective" [@all_reduce_16]
// CHECK-LABEL: oneflow_actor.rank_plan rank 1
// CHECK:      @input_0 "oneflow.input"() -> (%r0) {name = "x"} layout #oneflow_actor.piece<logical_shape = [8, 3], begin = [2, 0], micro_stride = [4, 0]> on "io" fires 2
// CHECK-NOT:  rank_plan rank 2
func.func @step() {
  %x = oneflow.input "x" : tensor<8x3xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<ones>} : tensor<3x2xf32>
  %y = oneflow.matmul %x, %w : (tensor<8x3xf32>, tensor<3x2xf32>) -> tensor<8x2xf32>
  %g = oneflow.matmul %x, %y {transpose_a} : (tensor<8x3xf32>, tensor<8x2xf32>) -> tensor<3x2xf32>
  oneflow.sgd_update %w, %g {lr = 0.1 : f64} : tensor<3x2xf32>, tensor<3x2xf32>
  %m = oneflow.reduce_mean %y {axes = array<i64: 0, 1>} : (tensor<8x2xf32>) -> tensor<f32>
  oneflow.output "loss", %m : tensor<f32>
  return
}

// -----

func.func @indivisible() {
  // expected-error @+1 {{input 'x' of type 'tensor<3x2xf32>' has no batch axis that divides into 2 micro-batches (dimension 0 must be a multiple of it)}}
  %x = oneflow.input "x" : tensor<3x2xf32>
  oneflow.output "y", %x : tensor<3x2xf32>
  return
}
