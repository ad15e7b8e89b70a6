// RUN: of-opt %s -split-input-file -oneflow-conv-blocked-layouts | FileCheck %s

// Two fused convolutions computing blocked: the tensor between them stays blocked;
// the block's input and output stay NCHW.
// CHECK-LABEL: func.func @chain
// CHECK: %[[A:.*]] = oneflow.conv2d_bn %arg0, {{.*}} {blocked_result, pads = array<i64: 1, 1, 1, 1>, relu}
// CHECK: %[[B:.*]] = oneflow.conv2d_bn %[[A]], {{.*}}, %arg0 {blocked_result, blocked_x, relu}
// CHECK: oneflow.conv2d_bn %[[B]], {{.*}} {blocked_x}
func.func @chain(%x: tensor<2x16x4x4xf32>, %w: tensor<16x16x3x3xf32>, %w1: tensor<32x16x1x1xf32>, %v: tensor<16x16x1x1xf32>, %p: tensor<16xf32>, %q: tensor<32xf32>) -> tensor<2x32x4x4xf32> {
  %a = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p {pads = array<i64: 1, 1, 1, 1>, relu} : (tensor<2x16x4x4xf32>, tensor<16x16x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<2x16x4x4xf32>
  %b = oneflow.conv2d_bn %a, %v, %p, %p, %p, %p, %x {relu} : (tensor<2x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<2x16x4x4xf32>) -> tensor<2x16x4x4xf32>
  %c = oneflow.conv2d_bn %b, %w1, %q, %q, %q, %q : (tensor<2x16x4x4xf32>, tensor<32x16x1x1xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> tensor<2x32x4x4xf32>
  return %c : tensor<2x32x4x4xf32>
}

// -----

// Left NCHW: a result that is also an addend, or read by another op; a
// consumer whose filters are not a multiple of 16; grouped convolutions.
// CHECK-LABEL: func.func @negative_cases
// CHECK-NOT: blocked
func.func @negative_cases(%x: tensor<1x16x4x4xf32>, %w: tensor<16x16x1x1xf32>, %w8: tensor<8x16x1x1xf32>, %wg: tensor<16x8x1x1xf32>, %p: tensor<16xf32>, %p8: tensor<8xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x16x4x4xf32>) {
  %a = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %b = oneflow.conv2d_bn %a, %w, %p, %p, %p, %p, %a : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %c = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %d = oneflow.conv2d_bn %c, %w, %p, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %r = oneflow.relu %c : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %f = oneflow.conv2d_bn %e, %w8, %p8, %p8, %p8, %p8 : (tensor<1x16x4x4xf32>, tensor<8x16x1x1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x4x4xf32>
  %g = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  %h = oneflow.conv2d_bn %g, %wg, %p, %p, %p, %p {groups = 2} : (tensor<1x16x4x4xf32>, tensor<16x8x1x1xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf32>
  return %b, %d, %f, %h : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x16x4x4xf32>
}
