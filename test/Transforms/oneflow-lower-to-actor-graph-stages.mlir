// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-assign-stages{stages=2},oneflow-autodiff,oneflow-optimizer,oneflow-apply-strategy{devices=2 stages=2 micro-batches=2}))' | FileCheck %s --check-prefix=LAYOUT
// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-assign-stages{stages=2},oneflow-autodiff,oneflow-optimizer,oneflow-apply-strategy{devices=2 stages=2 micro-batches=2}),oneflow-default-pipeline)' | FileCheck %s

// A two-stage pipeline of a training step on 2 devices with 2
// micro-batches. The cut (equal predicted cost) puts both matmuls on stage
// 0 (device 0, virtual ranks 0 and 2) and the square and mean on stage 1
// (device 1, virtual ranks 1 and 3); the gradient ops follow their
// forward op, the updates their variable.
// LAYOUT-DAG:  #[[S0:.*]] = #oneflow.placement<cpu, ranks = [0, 2]>
// LAYOUT-DAG:  #[[S1:.*]] = #oneflow.placement<cpu, ranks = [1, 3]>
// LAYOUT:      func.func @step() attributes {oneflow.micro_batches = 2 : i64, oneflow.pipeline_schedule = "1f1b", oneflow.stages = 2 : i64}
// LAYOUT:      oneflow.input "x" {{.*}}oneflow.stage = 0 {{.*}}: tensor<8x4xf32, #oneflow.global<#[[S0]], [S(0)]>>
// LAYOUT:      oneflow.variable "w1" {{.*}}: tensor<4x4xf32, #oneflow.global<#[[S0]], [B]>>
// LAYOUT:      oneflow.mul {{.*}}oneflow.placement = #[[S1]], oneflow.stage = 1
// LAYOUT:      oneflow.matmul {{.*}}oneflow.placement = #[[S0]], oneflow.stage = 0 {{.*}}transpose_b
// LAYOUT:      oneflow.sgd_update {{.*}}oneflow.placement = #[[S0]]
//
// Rank 0 (stage 0): the forward matmuls fire per micro-batch and send
// their result to rank 1 (a transfer with only sends, peer 1 of the group
// [0, 1], tag 0, a 4x4 micro-batch piece); the gradient comes back the
// same way (the second transfer's tags start at 4096: transfers between
// stages may run concurrently). With 1F1B counts the first of two stages
// keeps two micro-batches alive: its per-micro-batch regsts have two
// buffers, the last stage's one. The weight gradients accumulate over the
// micro-batches and the updates fire once per step.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0
// CHECK:       %r3 = oneflow_actor.regst 3 count 2 {{.*}}: tensor<4x4xf32>
// CHECK:       @matmul_4 "oneflow.matmul"(%r3, %r2) -> (%r4) on "compute" fires 2
// CHECK-NEXT:  @transfer_5 "oneflow.transfer"(%r4) -> () layout #oneflow_actor.transfer<group = [0, 1], sends = [1, 0, 0, 0, 4, 4], recvs = []> on "collective" fires 2
// CHECK:       %r5 = oneflow_actor.regst 5 count 2 {{.*}}: tensor<4x4xf32>
// CHECK-NEXT:  @transfer_6 "oneflow.transfer"() -> (%r5) layout #oneflow_actor.transfer<group = [0, 1], sends = [], recvs = [1, 4096, 0, 0, 4, 4]> on "collective" fires 2
// CHECK:       @accumulate_{{[0-9]+}} "oneflow.accumulate"{{.*}} on "compute" fires 2 emits every 2
// CHECK:       @sgd_update_{{[0-9]+}} "oneflow.sgd_update"{{.*}} on "compute"{{$}}
// CHECK:       oneflow_actor.stream "collective" [@transfer_5, @transfer_6, @transfer_5, @transfer_6]
//
// Rank 1 (stage 1): receives each micro-batch's activation, computes the
// loss (accumulated, output once per step) and the gradient, and sends it
// back to rank 0.
// CHECK-LABEL: oneflow_actor.rank_plan rank 1
// CHECK:       @transfer_0 "oneflow.transfer"() -> (%r0) layout #oneflow_actor.transfer<group = [0, 1], sends = [], recvs = [0, 0, 0, 0, 4, 4]> on "collective" fires 2
// CHECK-NEXT:  %r1 = oneflow_actor.regst 1 count 1
// CHECK-NEXT:  @mul_1 "oneflow.mul"(%r0, %r0) -> (%r1) on "compute" fires 2
// CHECK:       @accumulate_3 "oneflow.accumulate"{{.*}} fires 2 emits every 2
// CHECK:       @output_{{[0-9]+}} "oneflow.output"{{.*}}name = "loss"
// CHECK:       @transfer_14 "oneflow.transfer"(%r12) -> () layout #oneflow_actor.transfer<group = [0, 1], sends = [0, 4096, 0, 0, 4, 4], recvs = []> on "collective" fires 2
// CHECK:       oneflow_actor.stream "collective" [@transfer_0, @transfer_14, @transfer_0, @transfer_14]
func.func @step() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %w0 = oneflow.variable "w0" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  %h = oneflow.matmul %x, %w0 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %y = oneflow.matmul %h, %w1 : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
  %s = oneflow.mul %y, %y : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %l = oneflow.reduce_mean %s {axes = array<i64: 0, 1>} : (tensor<8x4xf32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}
