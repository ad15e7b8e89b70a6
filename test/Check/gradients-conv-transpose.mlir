// Gradients of conv2d_backward_data used as a transposed convolution (ONNX
// ConvTranspose: strides, padding, output_padding, dilation, groups)
// against finite differences, and on 2 and 4 ranks and a 2x2 mesh in every
// signature and in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --grad_atol 3e-3 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dx[
// CHECK-DAG: PASS dloss/dw1[
// CHECK-DAG: PASS dloss/dw2[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @conv_transpose() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<2x4x3x3xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 2} : tensor<4x3x3x3xf32>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 3} : tensor<6x2x2x2xf32>
  %r = oneflow.input "r" : tensor<2x6x5x6xf32>
  // Stride 2, pads 1, output_padding 1 (7 -> 6 wide): 3x3 -> 5x6.
  %t = oneflow.conv2d_backward_data %x, %w1 {input_shape = array<i64: 2, 3, 5, 6>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 0>} : (tensor<2x4x3x3xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x5x6xf32>
  %c = oneflow.concat %t, %t {axis = 1} : (tensor<2x3x5x6xf32>, tensor<2x3x5x6xf32>) -> tensor<2x6x5x6xf32>
  // Two groups, dilation 2: 5x6 -> 7x8, then back down by a slice.
  %u = oneflow.conv2d_backward_data %c, %w2 {input_shape = array<i64: 2, 4, 7, 8>, dilations = array<i64: 2, 2>, groups = 2} : (tensor<2x6x5x6xf32>, tensor<6x2x2x2xf32>) -> tensor<2x4x7x8xf32>
  %s = oneflow.slice %u {starts = array<i64: 0, 0, 0, 0>, ends = array<i64: 2, 4, 5, 6>, steps = array<i64: 1, 1, 1, 1>} : (tensor<2x4x7x8xf32>) -> tensor<2x4x5x6xf32>
  %p = oneflow.mul %c, %r : (tensor<2x6x5x6xf32>, tensor<2x6x5x6xf32>) -> tensor<2x6x5x6xf32>
  %a = oneflow.reduce_sum %p {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x6x5x6xf32>) -> tensor<f32>
  %q = oneflow.mul %s, %s : (tensor<2x4x5x6xf32>, tensor<2x4x5x6xf32>) -> tensor<2x4x5x6xf32>
  %b = oneflow.reduce_sum %q {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x4x5x6xf32>) -> tensor<f32>
  %loss = oneflow.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
