// RUN: of-opt %s -test-oneflow-print-sbp-signatures -verify-diagnostics -o /dev/null

// matmul: OneFlow's five rows (oneflow-facts 2.1), with the transposes
// moving the split axes of a and b.
func.func @matmul(%a: tensor<8x4xf32>, %b: tensor<4x6xf32>, %at: tensor<4x8xf32>, %bt: tensor<6x4xf32>) {
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | B, S(1) -> S(1) | S(1), S(0) -> P | P, B -> P | B, P -> P}}
  %0 = oneflow.matmul %a, %b : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(1), B -> S(0) | B, S(1) -> S(1) | S(0), S(0) -> P | P, B -> P | B, P -> P}}
  %1 = oneflow.matmul %at, %b {transpose_a} : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | B, S(0) -> S(1) | S(1), S(1) -> P | P, B -> P | B, P -> P}}
  %2 = oneflow.matmul %a, %bt {transpose_b} : (tensor<8x4xf32>, tensor<6x4xf32>) -> tensor<8x6xf32>
  return
}

// batch_matmul: batch axes first; a rank-2 or size-1 batch operand is B.
func.func @batch_matmul(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %w: tensor<8x6xf32>, %s: tensor<1x4x16x8xf32>) {
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | S(1), S(1) -> S(1) | S(2), B -> S(2) | B, S(2) -> S(3) | S(3), S(3) -> P | P, B -> P | B, P -> P}}
  %0 = oneflow.batch_matmul %q, %k {transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | S(1), B -> S(1) | S(2), B -> S(2) | B, S(1) -> S(3) | S(3), S(0) -> P | P, B -> P | B, P -> P}}
  %1 = oneflow.batch_matmul %q, %w : (tensor<2x4x16x8xf32>, tensor<8x6xf32>) -> tensor<2x4x16x6xf32>
  // expected-remark@+1 {{sbp: B, S(0) -> S(0) | S(1), S(1) -> S(1) | S(2), B -> S(2) | B, S(2) -> S(3) | S(3), S(3) -> P | P, B -> P | B, P -> P}}
  %2 = oneflow.batch_matmul %s, %k {transpose_b} : (tensor<1x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
  return
}

// Broadcasting binary ops (2.2): a size-1 or missing axis is B; add/sub
// P, P -> P; mul P, B and B, P; div P, B only; maximum P(max), P(max)
// (minimum P(min), P(min)); comparisons no P.
// where, masked_fill and cast are element-wise without P.
func.func @binary(%x: tensor<8x1xf32>, %y: tensor<8x6xf32>, %v: tensor<6xf32>, %c: tensor<8x6xi1>) {
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | B, S(1) -> S(1) | P, P -> P}}
  %0 = oneflow.add %x, %y : (tensor<8x1xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | S(1), S(0) -> S(1) | P, P -> P}}
  %1 = oneflow.sub %y, %v : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | S(1), S(1) -> S(1) | P, B -> P | B, P -> P}}
  %2 = oneflow.mul %y, %y : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | S(1), B -> S(1) | P, B -> P}}
  %3 = oneflow.div %y, %x : (tensor<8x6xf32>, tensor<8x1xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | S(1), S(1) -> S(1) | P(max), P(max) -> P(max)}}
  %4 = oneflow.maximum %y, %y : (tensor<8x6xf32>, tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | S(1), S(0) -> S(1)}}
  %5 = oneflow.less %y, %v : (tensor<8x6xf32>, tensor<6xf32>) -> tensor<8x6xi1>
  // expected-remark@+1 {{sbp: S(0), S(0), B -> S(0) | S(1), B, S(0) -> S(1)}}
  %6 = oneflow.where %c, %x, %v : (tensor<8x6xi1>, tensor<8x1xf32>, tensor<6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | S(1), S(1) -> S(1)}}
  %7 = oneflow.masked_fill %y, %c, 0.0 : (tensor<8x6xf32>, tensor<8x6xi1>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %8 = oneflow.cast %y : (tensor<8x6xf32>) -> tensor<8x6xf16>
  return
}

// Unary ops (2.3): nonlinear ones never take P; neg and scalar_mul do (neg
// turns P(max) into P(min) and back).
// scalar_add does not.
func.func @unary(%y: tensor<8x6xf32>) {
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %0 = oneflow.relu %y : (tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %1 = oneflow.gelu %y : (tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1) | P -> P | P(max) -> P(min) | P(min) -> P(max)}}
  %2 = oneflow.neg %y : (tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %3 = oneflow.scalar_add %y, 1.0 : (tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1) | P -> P}}
  %4 = oneflow.scalar_mul %y, 2.0 : (tensor<8x6xf32>) -> tensor<8x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0), S(0) | S(1) -> S(1), S(1)}}
  %5, %6 = oneflow.dropout %y {rate = 0.1 : f64} : (tensor<8x6xf32>) -> (tensor<8x6xf32>, tensor<8x6xi1>)
  return
}

// Softmax splits its axis too, and sparse_softmax_cross_entropy its class
// axis (labels whole, the loss partial): oneflow-expand-split-softmax runs
// them as max and sum reductions with all-reduces; layer_norm splits axes
// before
// begin_norm_axis with gamma, beta B; training batch_norm splits only its
// channels (its batch statistics cover the whole batch).
func.func @nn(%x: tensor<8x10xf32>, %l: tensor<8xi64>, %h: tensor<2x16x64xf32>, %g: tensor<64xf32>, %img: tensor<8x16x4x4xf32>, %c: tensor<16xf32>) {
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %0 = oneflow.softmax %x : (tensor<8x10xf32>) -> tensor<8x10xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %1 = oneflow.log_softmax %x {axis = 0 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0), S(0) | S(1), B -> S(1), P}}
  %2, %3 = oneflow.sparse_softmax_cross_entropy %x, %l : (tensor<8x10xf32>, tensor<8xi64>) -> (tensor<8x10xf32>, tensor<8xf32>)
  // expected-remark@+1 {{sbp: S(0), B, B -> S(0), S(0), S(0) | S(1), B, B -> S(1), S(1), S(1)}}
  %4, %5, %6 = oneflow.layer_norm %h, %g, %g {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
  // expected-remark@+1 {{sbp: S(1), S(0), S(0), S(0), S(0) -> S(1), S(0), S(0)}}
  %7, %8, %9 = oneflow.batch_norm %img, %c, %c, %c, %c {training} : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// conv2d and conv2d_bn are S(0) only (weight, bias, statistics B; the
// addend S(0)); pools split N or C.
func.func @conv(%x: tensor<8x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) {
  // expected-remark@+1 {{sbp: S(0), B, B -> S(0)}}
  %0 = oneflow.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x8x8xf32>
  // expected-remark@+1 {{sbp: S(0), B, B, B, B, B -> S(0)}}
  %c0 = oneflow.conv2d_bn %x, %w, %b, %b, %b, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x8x8xf32>
  // expected-remark@+1 {{sbp: S(0), B, B, B, B, B, S(0) -> S(0)}}
  %c1 = oneflow.conv2d_bn %x, %w, %b, %b, %b, %b, %0 {pads = array<i64: 1, 1, 1, 1>, relu} : (tensor<8x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16x8x8xf32>) -> tensor<8x16x8x8xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %1 = oneflow.max_pool2d %0 {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x16x8x8xf32>) -> tensor<8x16x4x4xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %2 = oneflow.avg_pool2d %0 {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x16x8x8xf32>) -> tensor<8x16x4x4xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %3 = oneflow.global_avg_pool2d %0 : (tensor<8x16x8x8xf32>) -> tensor<8x16x1x1xf32>
  return
}

// reduce_sum: a reduced split axis gives P, P -> P; reduce_max likewise
// with P(max); reduce_sum_square gives P and takes no P.
func.func @reduce(%y: tensor<8x6xf32>) {
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> P | P -> P}}
  %0 = oneflow.reduce_sum %y {axes = array<i64: 1>} : (tensor<8x6xf32>) -> tensor<8xf32>
  // expected-remark@+1 {{sbp: S(0) -> P | S(1) -> S(1) | P -> P}}
  %1 = oneflow.reduce_sum %y {axes = array<i64: 0>, keepdims} : (tensor<8x6xf32>) -> tensor<1x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> P | S(1) -> P | P -> P}}
  %2 = oneflow.reduce_mean %y {axes = array<i64: 0, 1>} : (tensor<8x6xf32>) -> tensor<f32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> P(max) | P(max) -> P(max)}}
  %3 = oneflow.reduce_max %y {axes = array<i64: 1>} : (tensor<8x6xf32>) -> tensor<8xf32>
  // expected-remark@+1 {{sbp: P -> P}}
  %4 = oneflow.reduce_sum %2 {axes = array<i64>} : (tensor<f32>) -> tensor<f32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> P}}
  %5 = oneflow.reduce_sum_square %y {axes = array<i64: 1>} : (tensor<8x6xf32>) -> tensor<8xf32>
  // expected-remark@+1 {{sbp: S(0) -> P | S(1) -> P}}
  %6 = oneflow.reduce_sum_square %y {axes = array<i64: 0, 1>} : (tensor<8x6xf32>) -> tensor<f32>
  return
}

// transpose S(perm[i]) -> S(i); reshape and flatten split axes with the
// same leading product; concat never splits its axis; slice splits whole
// axes only; gather per 2.6.
func.func @shape(%x: tensor<2x3x4xf32>, %y: tensor<8x6xf32>, %t: tensor<1000x64xf32>, %ids: tensor<8x16xi64>, %a: tensor<4x2xf32>, %b: tensor<4x3xf32>) {
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(2) -> S(1) | S(1) -> S(2) | P -> P}}
  %0 = oneflow.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(2) | P -> P}}
  %1 = oneflow.reshape %y : (tensor<8x6xf32>) -> tensor<2x4x6xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | P -> P}}
  %2 = oneflow.reshape %y : (tensor<8x6xf32>) -> tensor<48xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | P -> P}}
  %3 = oneflow.reshape %y : (tensor<8x6xf32>) -> tensor<4x12xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | P -> P}}
  %4 = oneflow.flatten %x {start_dim = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | P, P -> P}}
  %5 = oneflow.concat %a, %b {axis = 1 : i64} : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | P -> P}}
  %6 = oneflow.slice %y {starts = array<i64: 0, 1>, ends = array<i64: 8, 6>, steps = array<i64: 1, 1>} : (tensor<8x6xf32>) -> tensor<8x5xf32>
  // expected-remark@+1 {{sbp: B, S(0) -> S(0) | B, S(1) -> S(1) | S(0), B -> P | S(1), B -> S(2) | P, B -> P}}
  %7 = oneflow.gather %t, %ids {axis = 0 : i64} : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
  // gather_elements: the gathered axis splits the indices and the result
  // (x whole); another splits all three where they have its size; x split
  // along the gathered axis alone gives P (each piece picks what it holds).
  // expected-remark@+1 {{sbp: B, S(1) -> S(1) | S(1), B -> P | P, B -> P}}
  %8 = oneflow.gather_elements %t, %ids {axis = 1 : i64} : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> S(0) | B, S(1) -> S(1) | S(1), B -> P | P, B -> P}}
  %9 = oneflow.gather_elements %y, %ids {axis = 1 : i64} : (tensor<8x6xf32>, tensor<8x16xi64>) -> tensor<8x16xf32>
  // top_k: every axis but its own.
  // expected-remark@+1 {{sbp: S(0) -> S(0), S(0)}}
  %10:2 = oneflow.top_k %y {k = 2 : i64, axis = 1 : i64} : (tensor<8x6xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>)
  return
}

// Sources produce any split; a size-1 axis (the variable's axis 1) is
// below the mesh axis size and is dropped. Outputs take anything.
func.func @sources(%s: tensor<f32>) {
  // expected-remark@+1 {{sbp: -> S(0) | -> S(1)}}
  %0 = oneflow.input "x" : tensor<8x6xf32>
  // expected-remark@+1 {{sbp: -> S(0)}}
  %1 = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<6x1xf32>
  // expected-remark@+1 {{sbp: -> S(0)}}
  %2 = oneflow.constant dense<1.0> : tensor<4xf32>
  // expected-remark@+1 {{sbp: -> S(0) | -> S(1)}}
  %3 = oneflow.fill 0.0 : tensor<3x2xf32>
  // expected-remark@+1 {{sbp: S(0) -> | S(1) -> | P ->}}
  oneflow.output "y", %0 : tensor<8x6xf32>
  // expected-remark@+1 {{sbp: P ->}}
  oneflow.output "s", %s : tensor<f32>
  return
}
