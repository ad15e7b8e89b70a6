// RUN: of-opt %s -split-input-file -oneflow-infer-shapes | FileCheck %s

// Unknown dimensions are filled in op by op; layouts stay as written.
// CHECK-LABEL: func.func @mlp
// CHECK-SAME: -> tensor<64x128xf32>
// CHECK: oneflow.matmul {{.*}} -> tensor<64x128xf32, #oneflow.global<#cpu4, [S(0)]>>
// CHECK: oneflow.relu {{.*}} -> tensor<64x128xf32>
// CHECK: oneflow.add {{.*}} -> tensor<64x128xf32>
// CHECK: oneflow.reduce_mean {{.*}} -> tensor<f32>
// CHECK: return {{.*}} : tensor<64x128xf32>
func.func @mlp(%x: tensor<64x784xf32>, %w: tensor<784x128xf32>, %b: tensor<128xf32>) -> tensor<?x?xf32> {
  %y = oneflow.matmul %x, %w : (tensor<64x784xf32>, tensor<784x128xf32>) -> tensor<?x?xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [S(0)]>>
  %r = oneflow.relu %y : (tensor<?x?xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [S(0)]>>) -> tensor<?x?xf32>
  %s = oneflow.add %r, %b : (tensor<?x?xf32>, tensor<128xf32>) -> tensor<?x?xf32>
  %m = oneflow.reduce_mean %s {axes = array<i64: 0, 1>} : (tensor<?x?xf32>) -> tensor<f32>
  return %s : tensor<?x?xf32>
}

// -----

// A reshape's single unknown dimension comes from the element count.
// CHECK-LABEL: func.func @cnn_head
// CHECK: oneflow.conv2d {{.*}} -> tensor<8x16x16x16xf32>
// CHECK: oneflow.max_pool2d {{.*}} -> tensor<8x16x8x8xf32>
// CHECK: oneflow.global_avg_pool2d {{.*}} -> tensor<8x16x1x1xf32>
// CHECK: oneflow.reshape {{.*}} -> tensor<8x16xf32>
// CHECK: oneflow.flatten {{.*}} -> tensor<8x16xf32>
func.func @cnn_head(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  %c = oneflow.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<?x?x?x?xf32>
  %p = oneflow.max_pool2d %c {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %g = oneflow.global_avg_pool2d %p : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %r = oneflow.reshape %g : (tensor<?x?x?x?xf32>) -> tensor<8x?xf32>
  %f = oneflow.flatten %g {start_dim = 1} : (tensor<?x?x?x?xf32>) -> tensor<?x?xf32>
  return
}

// -----

// CHECK-LABEL: func.func @attention_scores
// CHECK: oneflow.batch_matmul {{.*}} -> tensor<2x4x16x16xf32>
// CHECK: oneflow.softmax {{.*}} -> tensor<2x4x16x16xf32>
// CHECK: oneflow.transpose {{.*}} -> tensor<2x16x4x16xf32>
// CHECK: oneflow.gather {{.*}} -> tensor<2x16x64xf32>
// CHECK: oneflow.concat {{.*}} -> tensor<2x32x64xf32>
// CHECK: oneflow.slice {{.*}} -> tensor<2x16x64xf32>
// CHECK: oneflow.sparse_softmax_cross_entropy {{.*}} -> (tensor<2x16x64xf32>, tensor<2x16xf32>)
func.func @attention_scores(%q: tensor<2x4x16x8xf32>, %table: tensor<100x64xf32>, %ids: tensor<2x16xi64>) {
  %s = oneflow.batch_matmul %q, %q {transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<?x?x?x?xf32>
  %p = oneflow.softmax %s : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %t = oneflow.transpose %p {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf32>
  %e = oneflow.gather %table, %ids : (tensor<100x64xf32>, tensor<2x16xi64>) -> tensor<?x?x?xf32>
  %c = oneflow.concat %e, %e {axis = 1} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %sl = oneflow.slice %c {starts = array<i64: 0, 0, 0>, ends = array<i64: 2, 32, 64>, steps = array<i64: 1, 2, 1>} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %sl, %ids : (tensor<?x?x?xf32>, tensor<2x16xi64>) -> (tensor<?x?x?xf32>, tensor<?x?xf32>)
  return
}
