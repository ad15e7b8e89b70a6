// RUN: of-opt %s -oneflow-default-pipeline | FileCheck %s
// RUN: of-opt %S/Inputs/data-parallel-matmul.mlir -oneflow-default-pipeline | FileCheck %s --check-prefix=DP
// RUN: of-opt %s -pass-pipeline='builtin.module(oneflow-default-pipeline{regst-count=2})' | FileCheck %s --check-prefix=COUNT2
// RUN: of-opt %s -oneflow-default-pipeline -dump-pass-pipeline 2>&1 >/dev/null | FileCheck %s --check-prefix=PIPELINE

// PIPELINE:      builtin.module(
// PIPELINE-NEXT:   func.func(
// PIPELINE-NEXT:     oneflow-infer-shapes,
// PIPELINE-NEXT:     oneflow-fuse-conv-bn-act,
// PIPELINE-NEXT:     oneflow-conv-blocked-layouts,
// PIPELINE-NEXT:     oneflow-sbp-propagation{cluster=},
// PIPELINE-NEXT:     oneflow-expand-split-softmax,
// PIPELINE-NEXT:     oneflow-insert-boxing,
// PIPELINE-NEXT:     oneflow-lower-boxing,
// PIPELINE-NEXT:     oneflow-fuse-matmul-bias,
// PIPELINE-NEXT:     oneflow-fold-matmul-scale,
// PIPELINE-NEXT:     oneflow-fuse-all-reduce{bucket-bytes=4194304},
// PIPELINE-NEXT:     oneflow-fuse-nonfinite-checks,
// PIPELINE-NEXT:     oneflow-accumulate-micro-batches,
// PIPELINE-NEXT:     oneflow-pack-constant-weights
// PIPELINE-NEXT:   ),
// PIPELINE-NEXT:   oneflow-lower-to-actor-graph{device=cpu regst-count=1},
// PIPELINE-NEXT:   oneflow_actor.rank_plan(
// PIPELINE-NEXT:     oneflow-plan-memory
// PIPELINE-NEXT:   )
// PIPELINE-NEXT: )

// Shapes left `?` are inferred, the program becomes a rank plan, and its
// memory is planned: the three 8x16xf32 activations of 512 bytes share
// two slots.
// CHECK-NOT:   func.func
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 1792 unplanned 2304 {
// CHECK:         oneflow_actor.regst 2 count 1 offset 0 : tensor<8x16xf32>
// CHECK-NEXT:    oneflow_actor.actor 2 @matmul_2 "oneflow.matmul"
// CHECK:         oneflow_actor.regst 3 count 1 offset 512 : tensor<8x16xf32>
// CHECK:         oneflow_actor.regst 5 count 1 offset 0 : tensor<8x16xf32>
// CHECK-NEXT:    oneflow_actor.regst 6 count 1 offset {{[0-9]+}} : tensor<8xf32>
// CHECK:         oneflow_actor.regst 7 count 1 offset {{[0-9]+}} : tensor<f32>
// CHECK-NEXT:    oneflow_actor.actor 6 @reduce_mean_6 "oneflow.reduce_mean"
// CHECK:         oneflow_actor.stream "io" [@input_0, @input_4]
// CHECK-NEXT:    oneflow_actor.stream "compute" [@variable_1, @matmul_2, @relu_3, @sparse_softmax_cross_entropy_5, @reduce_mean_6, @output_7]

// With regst-count=2 every regst keeps two buffers of its own, but the
// variable's: its one buffer holds its value across steps (optimizer
// updates write it in place).
// COUNT2:      oneflow_actor.rank_plan rank 0 device cpu arena [[BYTES:[0-9]+]] unplanned [[BYTES]] {
// COUNT2-NEXT:   oneflow_actor.regst 0 count 2
// COUNT2:        oneflow_actor.regst 1 count 1 {{.*}} : tensor<4x16xf32>
// COUNT2-NOT:  count 1
func.func @classifier() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<xavier_uniform>, seed = 1} : tensor<4x16xf32>
  %h = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<?x?xf32>
  %a = oneflow.relu %h : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %labels = oneflow.input "labels" : tensor<8xi64>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %a, %labels : (tensor<?x?xf32>, tensor<8xi64>) -> (tensor<?x?xf32>, tensor<?xf32>)
  %mean = oneflow.reduce_mean %loss {axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
  oneflow.output "loss", %mean : tensor<f32>
  return
}

// A data-parallel matmul on 2 ranks (Inputs/data-parallel-matmul.mlir): the
// batch is split, the weight broadcast, the mean over the batch a partial
// sum that one all-reduce on the "collective" stream makes whole; each rank
// holds its half of the batch.
// DP-LABEL: oneflow_actor.rank_plan rank 0 device cpu
// DP:         oneflow_actor.regst 0 count 2 {{.*}}: tensor<4x3xf32>
// DP:         "oneflow.all_reduce"(%{{.*}}) -> (%{{.*}}) {mesh_axis = 0 : i64} layout #oneflow_actor.collective<group = [0, 1]> on "collective"
// DP:         oneflow_actor.stream "collective" [@all_reduce_{{[0-9]+}}]
// DP-LABEL: oneflow_actor.rank_plan rank 1 device cpu
// DP:         oneflow_actor.regst 0 count 2 {{.*}}: tensor<4x3xf32>
// DP:         "oneflow.all_reduce"(%{{.*}}) -> (%{{.*}}) {mesh_axis = 0 : i64} layout #oneflow_actor.collective<group = [0, 1]> on "collective"
