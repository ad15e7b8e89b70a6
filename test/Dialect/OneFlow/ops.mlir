// RUN: of-opt %s | of-opt | FileCheck %s
// RUN: of-opt %s --mlir-print-op-generic | of-opt | FileCheck %s
// RUN: of-opt %s --verify-roundtrip > /dev/null

// Every op of the dialect in its custom assembly form. The two pipelines
// check that custom and generic printing both parse back to the same IR.

// CHECK-LABEL: func.func @sources
func.func @sources() {
  // CHECK: oneflow.variable "fc.weight" {init = #oneflow.init<normal(0.000000e+00, 2.000000e-02)>, seed = 7 : i64} : tensor<4x3xf32>
  %w = oneflow.variable "fc.weight" {init = #oneflow.init<normal(0.0, 0.02)>, seed = 7} : tensor<4x3xf32>
  // CHECK: oneflow.variable "fc.bias" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %b = oneflow.variable "fc.bias" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // CHECK: oneflow.variable "emb" {value = dense<{{\[}}[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>} : tensor<1x2xf32>
  %e = oneflow.variable "emb" {value = dense<[[1.0, 2.0]]> : tensor<1x2xf32>} : tensor<1x2xf32>
  // CHECK: oneflow.input "x" : tensor<2x4xf32>
  %x = oneflow.input "x" : tensor<2x4xf32>
  // CHECK: oneflow.constant dense<1.000000e+00> : tensor<3xf32>
  %c = oneflow.constant dense<1.0> : tensor<3xf32>
  // CHECK: oneflow.constant dense<0> : tensor<2xi64> -> tensor<2xi64, #oneflow.global<#cpu2, [S(0)]>>
  %d = oneflow.constant dense<0> : tensor<2xi64> -> tensor<2xi64, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  // CHECK: oneflow.fill 5.000000e-01 : tensor<2x2xf32>
  %f = oneflow.fill 0.5 : tensor<2x2xf32>
  // CHECK: oneflow.output "w", %{{.*}} : tensor<4x3xf32>
  oneflow.output "w", %w : tensor<4x3xf32>
  return
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<8x16xf32>, %v: tensor<16xf32>, %i: tensor<8x16xi32>, %m: tensor<8x1xi1>) {
  // CHECK: oneflow.add %{{.*}}, %{{.*}} : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %0 = oneflow.add %a, %v : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.sub
  %1 = oneflow.sub %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.mul
  %2 = oneflow.mul %v, %a : (tensor<16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.div
  %3 = oneflow.div %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.pow
  %4 = oneflow.pow %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.maximum
  %5 = oneflow.maximum %i, %i : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi32>
  // CHECK: oneflow.bit_shift %{{.*}}, %{{.*}} {direction = "left", width = 16 : i64} : (tensor<8x16xi32>, tensor<16xi32>) -> tensor<8x16xi32>
  %sh = oneflow.constant dense<3> : tensor<16xi32>
  %bs = oneflow.bit_shift %i, %sh {direction = "left", width = 16} : (tensor<8x16xi32>, tensor<16xi32>) -> tensor<8x16xi32>
  // CHECK: oneflow.minimum
  %6 = oneflow.minimum %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.equal {{.*}} -> tensor<8x16xi1>
  %7 = oneflow.equal %a, %v : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xi1>
  // CHECK: oneflow.not_equal
  %8 = oneflow.not_equal %i, %i : (tensor<8x16xi32>, tensor<8x16xi32>) -> tensor<8x16xi1>
  // CHECK: oneflow.less
  %9 = oneflow.less %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK: oneflow.less_equal
  %10 = oneflow.less_equal %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK: oneflow.greater
  %11 = oneflow.greater %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK: oneflow.greater_equal
  %12 = oneflow.greater_equal %a, %a : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xi1>
  // CHECK: oneflow.relu %{{.*}} : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %13 = oneflow.relu %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.gelu
  %14 = oneflow.gelu %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.gelu_grad %{{.*}}, %{{.*}} : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %gg = oneflow.gelu_grad %a, %14 : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.tanh
  %15 = oneflow.tanh %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.sigmoid
  %16 = oneflow.sigmoid %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.exp
  %17 = oneflow.exp %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.log
  %18 = oneflow.log %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.sqrt
  %19 = oneflow.sqrt %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.rsqrt
  %20 = oneflow.rsqrt %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.neg {{.*}} : (tensor<8x16xi32>) -> tensor<8x16xi32>
  %21 = oneflow.neg %i : (tensor<8x16xi32>) -> tensor<8x16xi32>
  // CHECK: oneflow.abs
  %22 = oneflow.abs %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.erf
  %23 = oneflow.erf %a : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.scalar_add %{{.*}}, 1.000000e+00 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %24 = oneflow.scalar_add %a, 1.0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.scalar_mul %{{.*}}, 5.000000e-01
  %25 = oneflow.scalar_mul %a, 0.5 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.scalar_div %{{.*}}, 4.000000e+00
  %26 = oneflow.scalar_div %a, 4.0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.scalar_pow %{{.*}}, 2.000000e+00
  %27 = oneflow.scalar_pow %a, 2.0 : (tensor<8x16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<8x1xi1>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %28 = oneflow.where %m, %a, %v : (tensor<8x1xi1>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.masked_fill %{{.*}}, %{{.*}}, -1.000000e+09 : (tensor<8x16xf32>, tensor<8x1xi1>) -> tensor<8x16xf32>
  %29 = oneflow.masked_fill %a, %m, -1.0e9 : (tensor<8x16xf32>, tensor<8x1xi1>) -> tensor<8x16xf32>
  // CHECK: oneflow.cast %{{.*}} : (tensor<8x16xi32>) -> tensor<8x16xf16>
  %30 = oneflow.cast %i : (tensor<8x16xi32>) -> tensor<8x16xf16>
  return
}

// CHECK-LABEL: func.func @matmuls
func.func @matmuls(%x: tensor<64x784xf32>, %w: tensor<128x784xf32>, %q: tensor<2x4x16x8xf32>, %k: tensor<8x16xf32>) {
  // CHECK: oneflow.matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<64x784xf32>, tensor<128x784xf32>) -> tensor<64x128xf32>
  %0 = oneflow.matmul %x, %w {transpose_b} : (tensor<64x784xf32>, tensor<128x784xf32>) -> tensor<64x128xf32>
  // CHECK: oneflow.matmul %{{.*}}, %{{.*}} {transpose_a} : (tensor<64x784xf32>, tensor<64x784xf32>) -> tensor<784x784xf32>
  %1 = oneflow.matmul %x, %x {transpose_a} : (tensor<64x784xf32>, tensor<64x784xf32>) -> tensor<784x784xf32>
  // CHECK: oneflow.batch_matmul %{{.*}}, %{{.*}} {transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
  %2 = oneflow.batch_matmul %q, %q {transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
  // CHECK: oneflow.batch_matmul %{{.*}}, %{{.*}} : (tensor<2x4x16x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16x16xf32>
  %3 = oneflow.batch_matmul %q, %k : (tensor<2x4x16x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16x16xf32>
  return
}

// CHECK-LABEL: func.func @nn
func.func @nn(%logits: tensor<64x10xf32>, %labels: tensor<64xi64>, %x: tensor<2x16x64xf32>, %g: tensor<64xf32>, %img: tensor<8x16x4x4xf32>, %c: tensor<16xf32>) {
  // CHECK: oneflow.softmax %{{.*}} : (tensor<64x10xf32>) -> tensor<64x10xf32>
  %0 = oneflow.softmax %logits : (tensor<64x10xf32>) -> tensor<64x10xf32>
  // CHECK: oneflow.log_softmax %{{.*}} {axis = 0 : i64}
  %1 = oneflow.log_softmax %logits {axis = 0} : (tensor<64x10xf32>) -> tensor<64x10xf32>
  // CHECK: oneflow.sparse_softmax_cross_entropy %{{.*}}, %{{.*}} : (tensor<64x10xf32>, tensor<64xi64>) -> (tensor<64x10xf32>, tensor<64xf32>)
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<64x10xf32>, tensor<64xi64>) -> (tensor<64x10xf32>, tensor<64xf32>)
  // CHECK: oneflow.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64, epsilon = 9.9999999999999995E-7 : f64}
  %y, %mean, %inv = oneflow.layer_norm %x, %g, %g {begin_norm_axis = 2, begin_params_axis = 2, epsilon = 1.0e-6} : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
  // CHECK: oneflow.batch_norm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {training}
  %by, %bm, %bi = oneflow.batch_norm %img, %c, %c, %c, %c {training} : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
  // CHECK: oneflow.dropout %{{.*}} {rate = 1.000000e-01 : f64, seed = 3 : i64} : (tensor<64x10xf32>) -> (tensor<64x10xf32>, tensor<64x10xi1>)
  %d, %mask = oneflow.dropout %logits {rate = 0.1 : f64, seed = 3} : (tensor<64x10xf32>) -> (tensor<64x10xf32>, tensor<64x10xi1>)
  return
}

// CHECK-LABEL: func.func @conv2d_bn
func.func @conv2d_bn(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %p: tensor<16xf32>, %z: tensor<8x16x16x16xf32>) {
  // CHECK: oneflow.conv2d_bn %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x16x16xf32>
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<8x16x16x16xf32>
  // CHECK: oneflow.conv2d_bn %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {epsilon = 1.000000e-03 : f64, pads = array<i64: 1, 1, 1, 1>, relu, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16x16x16xf32>) -> tensor<8x16x16x16xf32>
  %1 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p, %z {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>, epsilon = 1.0e-3 : f64, relu} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8x16x16x16xf32>) -> tensor<8x16x16x16xf32>
  return
}

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<8x3x32x32xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>, %dw: tensor<16x1x3x3xf32>, %y: tensor<8x16x16x16xf32>) {
  // CHECK: oneflow.conv2d %{{.*}}, %{{.*}}, %{{.*}} {pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x16x16xf32>
  %0 = oneflow.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x16x16xf32>
  // CHECK: oneflow.conv2d %{{.*}}, %{{.*}} {groups = 16 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x16x16x16xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x16x16xf32>
  %1 = oneflow.conv2d %y, %dw {groups = 16, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x16x16x16xf32>, tensor<16x1x3x3xf32>) -> tensor<8x16x16x16xf32>
  // CHECK: oneflow.max_pool2d %{{.*}} {kernel_size = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x16x16x16xf32>) -> tensor<8x16x8x8xf32>
  %2 = oneflow.max_pool2d %y {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<8x16x16x16xf32>) -> tensor<8x16x8x8xf32>
  // CHECK: oneflow.avg_pool2d %{{.*}} {ceil_mode, count_include_pad, kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<8x16x16x16xf32>) -> tensor<8x16x8x8xf32>
  %3 = oneflow.avg_pool2d %y {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode, count_include_pad} : (tensor<8x16x16x16xf32>) -> tensor<8x16x8x8xf32>
  // CHECK: oneflow.resample %{{.*}} {sizes = array<i64: 24, 5>} : (tensor<8x16x16x16xf32>) -> tensor<8x16x24x5xf32>
  %rs = oneflow.resample %y {sizes = array<i64: 24, 5>} : (tensor<8x16x16x16xf32>) -> tensor<8x16x24x5xf32>
  // CHECK: oneflow.resample %{{.*}} {mode = "nearest", sizes = array<i64: 32, 32>} : (tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
  %rn = oneflow.resample %y {sizes = array<i64: 32, 32>, mode = "nearest"} : (tensor<8x16x16x16xf32>) -> tensor<8x16x32x32xf32>
  // CHECK: oneflow.global_avg_pool2d %{{.*}} : (tensor<8x16x16x16xf32>) -> tensor<8x16x1x1xf32>
  %4 = oneflow.global_avg_pool2d %y : (tensor<8x16x16x16xf32>) -> tensor<8x16x1x1xf32>
  return
}

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<8x4x4xf32>, %t: tensor<1000x64xf32>, %ids: tensor<8x16xi64>) {
  // CHECK: oneflow.reshape %{{.*}} : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  %0 = oneflow.reshape %x : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.transpose %{{.*}} {perm = array<i64: 0, 2, 1>} : (tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  %1 = oneflow.transpose %x {perm = array<i64: 0, 2, 1>} : (tensor<8x4x4xf32>) -> tensor<8x4x4xf32>
  // CHECK: oneflow.flatten %{{.*}} {start_dim = 1 : i64} : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  %2 = oneflow.flatten %x {start_dim = 1} : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
  // CHECK: oneflow.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<8x4x4xf32>, tensor<8x4x4xf32>) -> tensor<8x8x4xf32>
  %3 = oneflow.concat %x, %x {axis = 1} : (tensor<8x4x4xf32>, tensor<8x4x4xf32>) -> tensor<8x8x4xf32>
  // CHECK: oneflow.slice %{{.*}} {ends = array<i64: 8, 4, -1>, starts = array<i64: 0, 1, 0>, steps = array<i64: 1, 2, 1>} : (tensor<8x4x4xf32>) -> tensor<8x2x3xf32>
  %4 = oneflow.slice %x {starts = array<i64: 0, 1, 0>, ends = array<i64: 8, 4, -1>, steps = array<i64: 1, 2, 1>} : (tensor<8x4x4xf32>) -> tensor<8x2x3xf32>
  // CHECK: oneflow.gather %{{.*}}, %{{.*}} : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
  %5 = oneflow.gather %t, %ids : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
  // CHECK: oneflow.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16xf32>
  %ge = oneflow.gather_elements %t, %ids {axis = 1} : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16xf32>
  // CHECK: oneflow.top_k %{{.*}} {axis = 1 : i64, k = 3 : i64, smallest} : (tensor<1000x64xf32>) -> (tensor<1000x3xf32>, tensor<1000x3xi64>)
  %tv, %ti = oneflow.top_k %t {k = 3, axis = 1, smallest} : (tensor<1000x64xf32>) -> (tensor<1000x3xf32>, tensor<1000x3xi64>)
  // CHECK: oneflow.reduce_sum %{{.*}} {axes = array<i64: 1>} : (tensor<8x4x4xf32>) -> tensor<8x4xf32>
  %6 = oneflow.reduce_sum %x {axes = array<i64: 1>} : (tensor<8x4x4xf32>) -> tensor<8x4xf32>
  // CHECK: oneflow.reduce_mean %{{.*}} {axes = array<i64: -1>, keepdims} : (tensor<8x4x4xf32>) -> tensor<8x4x1xf32>
  %7 = oneflow.reduce_mean %x {axes = array<i64: -1>, keepdims} : (tensor<8x4x4xf32>) -> tensor<8x4x1xf32>
  // CHECK: oneflow.reduce_max %{{.*}} {axes = array<i64: 0, 1, 2>} : (tensor<8x4x4xf32>) -> tensor<f32>
  %8 = oneflow.reduce_max %x {axes = array<i64: 0, 1, 2>} : (tensor<8x4x4xf32>) -> tensor<f32>
  // CHECK: oneflow.reduce_sum_square %{{.*}} {axes = array<i64: 0, 2>, keepdims} : (tensor<8x4x4xf32>) -> tensor<1x4x1xf32>
  %9 = oneflow.reduce_sum_square %x {axes = array<i64: 0, 2>, keepdims} : (tensor<8x4x4xf32>) -> tensor<1x4x1xf32>
  return
}

// Layouts are part of the type and pass through every op unchanged.
// CHECK-LABEL: func.func @global_tensors
// CHECK-SAME: tensor<64x784xf32, #oneflow.global<#cpu2x2, [S(0), B]>>
func.func @global_tensors(%x: tensor<64x784xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>,
                          %w: tensor<784x128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(1)]>>) {
  // CHECK: oneflow.matmul {{.*}} -> tensor<64x128xf32, #oneflow.global<#cpu2x2, [S(0), S(1)]>>
  %y = oneflow.matmul %x, %w : (tensor<64x784xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>, tensor<784x128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(1)]>>) -> tensor<64x128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), S(1)]>>
  return
}
