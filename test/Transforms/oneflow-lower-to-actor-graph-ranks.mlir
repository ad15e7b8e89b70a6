// RUN: of-opt %s -split-input-file -oneflow-lower-to-actor-graph | FileCheck %s

// A program on global tensors becomes one rank plan per rank; regsts hold
// each rank's piece (5 rows over 2 ranks: 3 and 2), and sources and sinks
// say where their piece sits in the logical tensor.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK:         oneflow_actor.regst 0 count 2 : tensor<3x4xf32>
// CHECK:         oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%{{.*}}) {name = "x"} layout #oneflow_actor.piece<logical_shape = [5, 4], begin = [0, 0]> on "io"
// CHECK:         oneflow_actor.regst 1 count 1 : tensor<3x4xf32>
// CHECK:         oneflow_actor.actor 2 @output_2 "oneflow.output"(%{{.*}}) -> () {name = "y"} layout #oneflow_actor.sink<piece = <logical_shape = [5, 4], begin = [0, 0]>, primary = true> on "compute"
// CHECK-LABEL: oneflow_actor.rank_plan rank 1 device cpu {
// CHECK:         oneflow_actor.regst 0 count 2 : tensor<2x4xf32>
// CHECK:         layout #oneflow_actor.piece<logical_shape = [5, 4], begin = [3, 0]>
// CHECK:         oneflow_actor.regst 1 count 1 : tensor<2x4xf32>
// CHECK:         oneflow_actor.stream "io" [@input_0]
// CHECK-NEXT:    oneflow_actor.stream "compute" [@relu_1, @output_2]
func.func @split_rows() {
  %x = oneflow.input "x" : tensor<5x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %y = oneflow.relu %x : (tensor<5x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>) -> tensor<5x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  oneflow.output "y", %y : tensor<5x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  return
}

// -----

// 2x2 mesh, [P, B]: the ranks off coordinate 0 on the P axis hold zeros;
// only coordinate 0 on the B axis is the primary copy of an output.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0
// CHECK:         "oneflow.variable"() -> (%{{.*}}) {{.*}} layout #oneflow_actor.piece<logical_shape = [4], begin = [0]> on
// CHECK:         "oneflow.output"{{.*}} layout #oneflow_actor.sink<piece = <logical_shape = [4], begin = [0]>, partial = true, primary = true> on
// CHECK-LABEL: oneflow_actor.rank_plan rank 1
// CHECK:         "oneflow.variable"() -> (%{{.*}}) {{.*}} layout #oneflow_actor.piece<logical_shape = [4], begin = [0]> on
// CHECK:         "oneflow.output"{{.*}} layout #oneflow_actor.sink<piece = <logical_shape = [4], begin = [0]>, partial = true> on
// CHECK-LABEL: oneflow_actor.rank_plan rank 2
// CHECK:         "oneflow.variable"() -> (%{{.*}}) {{.*}} layout #oneflow_actor.piece<logical_shape = [4], begin = [0], zero = true> on
// CHECK:         "oneflow.output"{{.*}} layout #oneflow_actor.sink<piece = <logical_shape = [4], begin = [0]>, partial = true, primary = true> on
// CHECK-LABEL: oneflow_actor.rank_plan rank 3
// CHECK:         zero = true
// CHECK:         partial = true> on
func.func @partial_mesh() {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [P, B]>>
  oneflow.output "w", %w : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [P, B]>>
  return
}

// -----

// Constants are cut to each rank's piece; a mean over a split axis divides
// by the logical count.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0
// CHECK:         "oneflow.constant"() -> (%{{.*}}) {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>} layout #oneflow_actor.piece<logical_shape = [3], begin = [0]> on
// CHECK:         "oneflow.reduce_mean"(%{{.*}}) -> (%{{.*}}) {axes = array<i64: 0>} layout #oneflow_actor.divisor<divisor = 3> on
// CHECK-LABEL: oneflow_actor.rank_plan rank 1
// CHECK:         value = dense<3.000000e+00> : tensor<1xf32>
func.func @constant_mean() {
  %c = oneflow.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %m = oneflow.reduce_mean %c {axes = array<i64: 0>} : (tensor<3xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>) -> tensor<f32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  oneflow.output "m", %m : tensor<f32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  return
}

// -----

// Ranks no op runs on still get a (empty) plan, so that plans number every
// rank of the world.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK-NEXT:    oneflow_actor.stream "compute" []
// CHECK-LABEL: oneflow_actor.rank_plan rank 1 device cpu {
// CHECK:         "oneflow.fill"
func.func @rank_one_only() {
  %z = oneflow.fill 1.0 : tensor<2xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [1]>, [B]>>
  oneflow.output "z", %z : tensor<2xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [1]>, [B]>>
  return
}

// -----

// A rank's device kind is its placements': ranks 0 and 1 on CPUs, 2 and 3
// on GPUs (a CPU stage feeding a GPU stage).
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu {
// CHECK-LABEL: oneflow_actor.rank_plan rank 1 device cpu {
// CHECK-LABEL: oneflow_actor.rank_plan rank 2 device cuda {
// CHECK-LABEL: oneflow_actor.rank_plan rank 3 device cuda {
func.func @cpu_and_cuda_stages() {
  %x = oneflow.input "x" : tensor<6x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %y = oneflow.transfer %x : tensor<6x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#oneflow.placement<cuda, ranks = [2, 3]>, [S(0)]>>
  oneflow.output "y", %y : tensor<6x4xf32, #oneflow.global<#oneflow.placement<cuda, ranks = [2, 3]>, [S(0)]>>
  return
}
