// The 2x2 hybrid MLP of the examples (batch on mesh axis 0, Megatron on
// mesh axis 1) after shape inference; and propagation is deterministic:
// two runs print the same program.
// RUN: of-opt %oneflow_src/examples/mlp_hybrid.mlir --pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-sbp-propagation))' > %t.1
// RUN: of-opt %oneflow_src/examples/mlp_hybrid.mlir --pass-pipeline='builtin.module(func.func(oneflow-infer-shapes,oneflow-sbp-propagation))' > %t.2
// RUN: diff %t.1 %t.2
// RUN: FileCheck %s < %t.1

// Data parallel on axis 0, column split on axis 1: no boxing.
// CHECK: oneflow.matmul {{.*}}operand_layouts = [#oneflow.global<#cpu2x2, [S(0), B]>, #oneflow.global<#cpu2x2, [B, S(1)]>]
// CHECK-SAME: -> tensor<64x128xf32, #oneflow.global<#cpu2x2, [S(0), S(1)]>>
// CHECK: oneflow.add {{.*}}operand_layouts = [#oneflow.global<#cpu2x2, [S(0), S(1)]>, #oneflow.global<#cpu2x2, [B, S(0)]>]
// CHECK-SAME: -> tensor<64x128xf32, #oneflow.global<#cpu2x2, [S(0), S(1)]>>
// CHECK: oneflow.relu {{.*}} -> tensor<64x128xf32, #oneflow.global<#cpu2x2, [S(0), S(1)]>>
// Row split: a partial sum on axis 1.
// CHECK: oneflow.matmul {{.*}}operand_layouts = [#oneflow.global<#cpu2x2, [S(0), S(1)]>, #oneflow.global<#cpu2x2, [B, S(0)]>]
// CHECK-SAME: -> tensor<64x10xf32, #oneflow.global<#cpu2x2, [S(0), P]>>
// The bias add takes it reduce-scattered ([S(0), P] -> [S(0), S(0)]): cheaper
// than an all-reduce, and than adding the bias to a partial sum that must be
// reduced later.
// CHECK: oneflow.add {{.*}}operand_layouts = [#oneflow.global<#cpu2x2, [S(0), S(0)]>, #oneflow.global<#cpu2x2, [B, B]>]
// CHECK-SAME: -> tensor<64x10xf32, #oneflow.global<#cpu2x2, [S(0), S(0)]>>
// CHECK: oneflow.sparse_softmax_cross_entropy {{.*}}operand_layouts = [#oneflow.global<#cpu2x2, [S(0), S(0)]>, #oneflow.global<#cpu2x2, [S(0), S(0)]>]
// The mean over a split batch is a partial sum; the output, a scalar, asks
// for it whole (B) so that every rank holds the loss.
// CHECK: oneflow.reduce_mean {{.*}} -> tensor<f32, #oneflow.global<#cpu2x2, [P, P]>>
// CHECK: oneflow.output "loss", %{{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu2x2, [B, B]>]}
