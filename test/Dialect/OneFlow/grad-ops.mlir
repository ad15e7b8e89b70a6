// RUN: of-opt %s | of-opt | FileCheck %s

// The backward ops of the gradient rules round-trip.

// CHECK-LABEL: func.func @grads
func.func @grads(%x: tensor<2x3x8x8xf32>, %w: tensor<4x3x3x3xf32>, %dy: tensor<2x4x4x4xf32>,
                 %dp: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %dg: tensor<2x5x6xf32>, %ids: tensor<2x5xi64>,
                 %dge: tensor<2x5xf32>) {
  // CHECK: oneflow.conv2d_backward_data
  %dx = oneflow.conv2d_backward_data %dy, %w {input_shape = array<i64: 2, 3, 8, 8>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: oneflow.conv2d_backward_filter
  %dw = oneflow.conv2d_backward_filter %x, %dy {weight_shape = array<i64: 4, 3, 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x3x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<4x3x3x3xf32>
  // CHECK: oneflow.max_pool2d_grad
  %m = oneflow.max_pool2d_grad %x, %dp {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: oneflow.avg_pool2d_grad
  %a = oneflow.avg_pool2d_grad %x, %dp {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, count_include_pad} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: oneflow.resample_grad %{{.*}}, %{{.*}} : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  %rs = oneflow.resample_grad %x, %dp : (tensor<2x3x8x8xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x8x8xf32>
  // CHECK: oneflow.batch_norm_grad
  %bx, %bg, %bb = oneflow.batch_norm_grad %x, %x, %c, %c, %c : (tensor<2x3x8x8xf32>, tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x8x8xf32>, tensor<3xf32>, tensor<3xf32>)
  // CHECK: oneflow.gather_grad
  %t = oneflow.gather_grad %dg, %ids {axis = 0 : i64, dim_size = 10 : i64} : (tensor<2x5x6xf32>, tensor<2x5xi64>) -> tensor<10x6xf32>
  // CHECK: oneflow.gather_elements_grad %{{.*}}, %{{.*}} {axis = 1 : i64, shape = array<i64: 2, 7>} : (tensor<2x5xf32>, tensor<2x5xi64>) -> tensor<2x7xf32>
  %ge = oneflow.gather_elements_grad %dge, %ids {axis = 1 : i64, shape = array<i64: 2, 7>} : (tensor<2x5xf32>, tensor<2x5xi64>) -> tensor<2x7xf32>
  return
}
