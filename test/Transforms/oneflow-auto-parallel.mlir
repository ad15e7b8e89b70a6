// oneflow-auto-parallel on a two-layer MLP's training step (autodiff, SGD
// with momentum) over 4 devices, under a fixed CPU-like cluster file:
// coordinate descent and the integer program predict the same step time,
// the strategy beats every hand strategy under the same model, and the
// layouts it writes are what propagation keeps (oneflow.operand_layouts).
//
// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff{loss=loss},oneflow-optimizer{kind=sgd momentum=0.9},oneflow-auto-parallel{devices=4 mesh=4 cluster=%S/Inputs/cluster-cpu-node.json explain}))' > %t.cd
// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff{loss=loss},oneflow-optimizer{kind=sgd momentum=0.9},oneflow-auto-parallel{devices=4 mesh=4 cluster=%S/Inputs/cluster-cpu-node.json search=exact explain}))' > %t.exact
// RUN: cat %t.cd %t.exact | FileCheck %s --check-prefix=SAME
// SAME: chose mesh [4] by coordinate descent from
// SAME: auto [[STEP:[0-9.]+]] [[COMPUTE:[0-9.]+]] [[COMM:[0-9.]+]]
// SAME: chose mesh [4] by the integer program (optimal)
// SAME: auto [[STEP]] [[COMPUTE]] [[COMM]]
//
// RUN: FileCheck %s --check-prefix=EXPLAIN --input-file %t.cd
// EXPLAIN:      strategy step us compute us comm us bytes/device
// EXPLAIN-NEXT: auto
// EXPLAIN-NEXT: dp [4] (seed)
// EXPLAIN-NEXT: tp [4] (seed)
// EXPLAIN-NEXT: zero [4] (seed)
// EXPLAIN-NEXT: replicated [4] (seed)
// The hand strategies as propagation lays them out (a copy of the step
// through oneflow-apply-strategy and oneflow-sbp-propagation).
// EXPLAIN-NEXT: dp [4] propagated (seed)
// EXPLAIN-NEXT: tp [4] propagated (seed)
// EXPLAIN-NEXT: per op
// EXPLAIN:      oneflow.matmul [B], [S(1)] -> [S(1)]  compute {{[0-9.]+}} us, comm {{[0-9.]+}} us, 131072 bytes; else
// EXPLAIN:      oneflow.sgd_update [S(1)], [S(1)], [S(1)] ->
//
// The program: every value laid out on one placement, every op's operand
// layouts recorded, optimizer states with their parameter.
// RUN: FileCheck %s --input-file %t.cd
// CHECK: #[[CPU4:.+]] = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
// CHECK: oneflow.input "x" : tensor<512x256xf32, #oneflow.global<#[[CPU4]], [B]>>
// CHECK: oneflow.variable "fc1.weight" {{.*}}#oneflow.global<#[[CPU4]], [S(1)]>>
// CHECK: oneflow.matmul %{{.*}} {oneflow.operand_layouts = [#oneflow.global<#[[CPU4]], [B]>, #oneflow.global<#[[CPU4]], [S(1)]>]}
// CHECK: oneflow.variable "fc1.weight.momentum" {{.*}}#oneflow.global<#[[CPU4]], [S(1)]>>
// CHECK: oneflow.sgd_update
//
// The rest of the default pipeline realizes it.
// RUN: of-opt %s -pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-autodiff{loss=loss},oneflow-optimizer{kind=sgd momentum=0.9},oneflow-auto-parallel{devices=4 mesh=4 cluster=%S/Inputs/cluster-cpu-node.json},oneflow-sbp-propagation,oneflow-insert-boxing))' | FileCheck %s --check-prefix=BOXED
// BOXED: oneflow.boxing

func.func @mlp() {
  %x = oneflow.input "x" : tensor<512x256xf32>
  %w1 = oneflow.variable "fc1.weight" {init = #oneflow.init<normal(0.0, 0.1)>, seed = 1} : tensor<256x256xf32>
  %w2 = oneflow.variable "fc2.weight" {init = #oneflow.init<normal(0.0, 0.1)>, seed = 2} : tensor<256x256xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<512x256xf32>, tensor<256x256xf32>) -> tensor<512x256xf32>
  %a = oneflow.relu %h : (tensor<512x256xf32>) -> tensor<512x256xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<512x256xf32>, tensor<256x256xf32>) -> tensor<512x256xf32>
  %sq = oneflow.mul %y, %y : (tensor<512x256xf32>, tensor<512x256xf32>) -> tensor<512x256xf32>
  %loss = oneflow.reduce_mean %sq {axes = array<i64: 0, 1>} : (tensor<512x256xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
