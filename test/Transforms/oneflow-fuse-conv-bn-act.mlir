// RUN: of-opt %s -split-input-file -oneflow-fuse-conv-bn-act | FileCheck %s

// conv2d, batch_norm and relu: one op with the relu post-op; the spatial
// attributes and epsilon carry over.
// CHECK-LABEL: func.func @conv_bn_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x16x8x8xf32>, %[[W:.*]]: tensor<32x16x3x3xf32>, %[[G:.*]]: tensor<32xf32>, %[[B:.*]]: tensor<32xf32>, %[[M:.*]]: tensor<32xf32>, %[[V:.*]]: tensor<32xf32>)
// CHECK-NEXT: %[[Y:.*]] = oneflow.conv2d_bn %[[X]], %[[W]], %[[G]], %[[B]], %[[M]], %[[V]] {epsilon = 1.000000e-03 : f64, pads = array<i64: 1, 1, 1, 1>, relu, strides = array<i64: 2, 2>}
// CHECK-NEXT: return %[[Y]]
func.func @conv_bn_relu(%x: tensor<2x16x8x8xf32>, %w: tensor<32x16x3x3xf32>, %g: tensor<32xf32>, %b: tensor<32xf32>, %m: tensor<32xf32>, %v: tensor<32xf32>) -> tensor<2x32x4x4xf32> {
  %c = oneflow.conv2d %x, %w {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x16x8x8xf32>, tensor<32x16x3x3xf32>) -> tensor<2x32x4x4xf32>
  %y, %mean, %inv = oneflow.batch_norm %c, %g, %b, %m, %v {epsilon = 1.0e-3 : f64} : (tensor<2x32x4x4xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x32x4x4xf32>, tensor<32xf32>, tensor<32xf32>)
  %r = oneflow.relu %y : (tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32>
  return %r : tensor<2x32x4x4xf32>
}

// -----

// The residual block's tail: the add's other operand (either side) becomes
// the addend, then the relu.
// CHECK-LABEL: func.func @conv_bn_add_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x8x5x5xf32>, %[[W:[^:]*]]:
// CHECK-NEXT: %[[Y:.*]] = oneflow.conv2d_bn %[[X]], %[[W]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[X]] {pads = array<i64: 1, 1, 1, 1>, relu}
// CHECK-NEXT: return %[[Y]]
func.func @conv_bn_add_relu(%x: tensor<2x8x5x5xf32>, %w: tensor<8x8x3x3xf32>, %p: tensor<8xf32>) -> tensor<2x8x5x5xf32> {
  %c = oneflow.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x8x5x5xf32>, tensor<8x8x3x3xf32>) -> tensor<2x8x5x5xf32>
  %y, %mean, %inv = oneflow.batch_norm %c, %p, %p, %p, %p : (tensor<2x8x5x5xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<2x8x5x5xf32>, tensor<8xf32>, tensor<8xf32>)
  %s = oneflow.add %x, %y : (tensor<2x8x5x5xf32>, tensor<2x8x5x5xf32>) -> tensor<2x8x5x5xf32>
  %r = oneflow.relu %s : (tensor<2x8x5x5xf32>) -> tensor<2x8x5x5xf32>
  return %r : tensor<2x8x5x5xf32>
}

// -----

// An add with no relu after it; a convolution bias moves into the mean.
// CHECK-LABEL: func.func @bias_and_add
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3x3xf32>, %[[W:.*]]: tensor<4x2x1x1xf32>, %[[BIAS:.*]]: tensor<4xf32>, %[[P:.*]]: tensor<4xf32>, %[[Z:.*]]: tensor<1x4x3x3xf32>)
// CHECK-NEXT: %[[MEAN:.*]] = oneflow.sub %[[P]], %[[BIAS]]
// CHECK-NEXT: %[[Y:.*]] = oneflow.conv2d_bn %[[X]], %[[W]], %[[P]], %[[P]], %[[MEAN]], %[[P]], %[[Z]] {groups = 2 : i64}
// CHECK-NOT: relu
// CHECK-NEXT: return %[[Y]]
func.func @bias_and_add(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x1x1xf32>, %bias: tensor<4xf32>, %p: tensor<4xf32>, %z: tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32> {
  %c = oneflow.conv2d %x, %w, %bias {groups = 2} : (tensor<1x4x3x3xf32>, tensor<4x2x1x1xf32>, tensor<4xf32>) -> tensor<1x4x3x3xf32>
  %y, %mean, %inv = oneflow.batch_norm %c, %p, %p, %p, %p {axis = -3} : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %s = oneflow.add %y, %z : (tensor<1x4x3x3xf32>, tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %s : tensor<1x4x3x3xf32>
}

// -----

// A broadcasting add stays; the conv2d and batch_norm still fuse.
// CHECK-LABEL: func.func @broadcast_add
// CHECK-NEXT: %[[Y:.*]] = oneflow.conv2d_bn
// CHECK-NOT: relu
// CHECK-NEXT: oneflow.add %[[Y]]
func.func @broadcast_add(%x: tensor<1x4x3x3xf32>, %w: tensor<4x4x1x1xf32>, %p: tensor<4xf32>, %q: tensor<3xf32>) -> tensor<1x4x3x3xf32> {
  %c = oneflow.conv2d %x, %w : (tensor<1x4x3x3xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x3x3xf32>
  %y, %mean, %inv = oneflow.batch_norm %c, %p, %p, %p, %p : (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %s = oneflow.add %y, %q : (tensor<1x4x3x3xf32>, tensor<3xf32>) -> tensor<1x4x3x3xf32>
  %r = oneflow.relu %s : (tensor<1x4x3x3xf32>) -> tensor<1x4x3x3xf32>
  return %r : tensor<1x4x3x3xf32>
}

// -----

// Nothing fuses where a dropped value is seen: batch_norm in training, its
// statistics used, the convolution's result used twice, a normalization
// over another axis. A relu after a batch_norm result with two users stays.
// CHECK-LABEL: func.func @negative_cases
// CHECK-COUNT-4: oneflow.conv2d %
// CHECK: %[[Y:.*]] = oneflow.conv2d_bn
// CHECK-NOT: relu
// CHECK: oneflow.relu %[[Y]]
// CHECK: oneflow.add %[[Y]], %[[Y]]
func.func @negative_cases(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x1x1xf32>, %p: tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %c0 = oneflow.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %y0, %m0, %i0 = oneflow.batch_norm %c0, %p, %p, %p, %p {training} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %c1 = oneflow.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %y1, %m1, %i1 = oneflow.batch_norm %c1, %p, %p, %p, %p : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %c2 = oneflow.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %y2, %m2, %i2 = oneflow.batch_norm %c2, %p, %p, %p, %p : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %c3 = oneflow.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %y3, %m3, %i3 = oneflow.batch_norm %c3, %p, %p, %p, %p {axis = 3} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %c4 = oneflow.conv2d %x, %w : (tensor<1x4x4x4xf32>, tensor<4x4x1x1xf32>) -> tensor<1x4x4x4xf32>
  %y4, %m4, %i4 = oneflow.batch_norm %c4, %p, %p, %p, %p : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>)
  %r4 = oneflow.relu %y4 : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s4 = oneflow.add %y4, %y4 : (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %y0, %y1, %m1, %c2, %y3, %r4, %s4 : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
