// Every matmul, NN, convolution and shape op, in each of its signatures, on 1 to 4 ranks and a
// 2x2 mesh, against one rank.
// RUN: of-check %s --mode signatures --devices cpu:1 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:2 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:3 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:4 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:4 --mesh 2x2 | FileCheck %s
// CHECK-NOT: FAIL
func.func @nn() {
  %x = oneflow.input "x" : tensor<6x8xf32>
  %w = oneflow.input "w" : tensor<8x5xf32>
  %wt = oneflow.input "wt" : tensor<5x8xf32>
  %q = oneflow.input "q" : tensor<4x2x6x4xf32>
  %k = oneflow.input "k" : tensor<4x6xf32>
  %labels = oneflow.input "labels" : tensor<6xi64>
  %h = oneflow.input "h" : tensor<4x5x8xf32>
  %g = oneflow.input "g" : tensor<8xf32>
  %img = oneflow.input "img" : tensor<4x4x6x6xf32>
  %c = oneflow.input "c" : tensor<4xf32>
  %cw = oneflow.input "cw" : tensor<4x4x3x3xf32>
  %t = oneflow.input "t" : tensor<10x4xf32>
  %ids = oneflow.input "ids" : tensor<4x3xi64>
  %0 = oneflow.matmul %x, %w : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
  %1 = oneflow.matmul %x, %wt {transpose_b} : (tensor<6x8xf32>, tensor<5x8xf32>) -> tensor<6x5xf32>
  %2 = oneflow.matmul %x, %x {transpose_a} : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<8x8xf32>
  %3 = oneflow.batch_matmul %q, %q {transpose_b} : (tensor<4x2x6x4xf32>, tensor<4x2x6x4xf32>) -> tensor<4x2x6x6xf32>
  %4 = oneflow.batch_matmul %q, %k : (tensor<4x2x6x4xf32>, tensor<4x6xf32>) -> tensor<4x2x6x6xf32>
  %5 = oneflow.softmax %x : (tensor<6x8xf32>) -> tensor<6x8xf32>
  %6 = oneflow.log_softmax %x {axis = 0} : (tensor<6x8xf32>) -> tensor<6x8xf32>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %x, %labels : (tensor<6x8xf32>, tensor<6xi64>) -> (tensor<6x8xf32>, tensor<6xf32>)
  %ln, %lm, %li = oneflow.layer_norm %h, %g, %g {begin_norm_axis = 2, begin_params_axis = 2, epsilon = 1.0e-5} : (tensor<4x5x8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<4x5x8xf32>, tensor<4x5xf32>, tensor<4x5xf32>)
  %bn, %bm, %bi = oneflow.batch_norm %img, %c, %c, %c, %c : (tensor<4x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x4x6x6xf32>, tensor<4xf32>, tensor<4xf32>)
  %d, %mask = oneflow.dropout %x {rate = 0.25 : f64, seed = 3} : (tensor<6x8xf32>) -> (tensor<6x8xf32>, tensor<6x8xi1>)
  %7 = oneflow.conv2d %img, %cw, %c {pads = array<i64: 1, 1, 1, 1>} : (tensor<4x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<4x4x6x6xf32>
  %8 = oneflow.max_pool2d %img {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<4x4x6x6xf32>) -> tensor<4x4x3x3xf32>
  %9 = oneflow.avg_pool2d %img {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<4x4x6x6xf32>) -> tensor<4x4x3x3xf32>
  %10 = oneflow.global_avg_pool2d %img : (tensor<4x4x6x6xf32>) -> tensor<4x4x1x1xf32>
  %11 = oneflow.reshape %h : (tensor<4x5x8xf32>) -> tensor<4x40xf32>
  %12 = oneflow.transpose %h {perm = array<i64: 0, 2, 1>} : (tensor<4x5x8xf32>) -> tensor<4x8x5xf32>
  %13 = oneflow.flatten %h {start_dim = 1} : (tensor<4x5x8xf32>) -> tensor<4x40xf32>
  %14 = oneflow.concat %h, %h {axis = 1} : (tensor<4x5x8xf32>, tensor<4x5x8xf32>) -> tensor<4x10x8xf32>
  %15 = oneflow.slice %h {starts = array<i64: 0, 1, 0>, ends = array<i64: 4, 5, -1>, steps = array<i64: 1, 2, 1>} : (tensor<4x5x8xf32>) -> tensor<4x2x7xf32>
  %16 = oneflow.gather %t, %ids : (tensor<10x4xf32>, tensor<4x3xi64>) -> tensor<4x3x4xf32>
  %17 = oneflow.reduce_sum %h {axes = array<i64: 1>} : (tensor<4x5x8xf32>) -> tensor<4x8xf32>
  %18 = oneflow.reduce_mean %h {axes = array<i64: -1>, keepdims} : (tensor<4x5x8xf32>) -> tensor<4x5x1xf32>
  %19 = oneflow.reduce_max %h {axes = array<i64: 0, 1, 2>} : (tensor<4x5x8xf32>) -> tensor<f32>
  %20 = oneflow.reduce_mean %h {axes = array<i64: 0, 2>} : (tensor<4x5x8xf32>) -> tensor<5xf32>
  %21 = oneflow.conv2d_bn %img, %cw, %c, %c, %c, %c, %img {pads = array<i64: 1, 1, 1, 1>, relu} : (tensor<4x4x6x6xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4x4x6x6xf32>) -> tensor<4x4x6x6xf32>
  oneflow.output "matmul", %0 : tensor<6x5xf32>
  oneflow.output "matmul_tb", %1 : tensor<6x5xf32>
  oneflow.output "matmul_ta", %2 : tensor<8x8xf32>
  oneflow.output "batch_matmul", %3 : tensor<4x2x6x6xf32>
  oneflow.output "batch_matmul_bcast", %4 : tensor<4x2x6x6xf32>
  oneflow.output "softmax", %5 : tensor<6x8xf32>
  oneflow.output "log_softmax", %6 : tensor<6x8xf32>
  oneflow.output "prob", %prob : tensor<6x8xf32>
  oneflow.output "loss", %loss : tensor<6xf32>
  oneflow.output "layer_norm", %ln : tensor<4x5x8xf32>
  oneflow.output "layer_norm_mean", %lm : tensor<4x5xf32>
  oneflow.output "batch_norm", %bn : tensor<4x4x6x6xf32>
  oneflow.output "dropout", %d : tensor<6x8xf32>
  oneflow.output "dropout_mask", %mask : tensor<6x8xi1>
  oneflow.output "conv2d", %7 : tensor<4x4x6x6xf32>
  oneflow.output "max_pool2d", %8 : tensor<4x4x3x3xf32>
  oneflow.output "avg_pool2d", %9 : tensor<4x4x3x3xf32>
  oneflow.output "global_avg_pool2d", %10 : tensor<4x4x1x1xf32>
  oneflow.output "reshape", %11 : tensor<4x40xf32>
  oneflow.output "transpose", %12 : tensor<4x8x5xf32>
  oneflow.output "flatten", %13 : tensor<4x40xf32>
  oneflow.output "concat", %14 : tensor<4x10x8xf32>
  oneflow.output "slice", %15 : tensor<4x2x7xf32>
  oneflow.output "gather", %16 : tensor<4x3x4xf32>
  oneflow.output "reduce_sum", %17 : tensor<4x8xf32>
  oneflow.output "reduce_mean", %18 : tensor<4x5x1xf32>
  oneflow.output "reduce_max", %19 : tensor<f32>
  oneflow.output "reduce_mean_split", %20 : tensor<5xf32>
  oneflow.output "conv2d_bn", %21 : tensor<4x4x6x6xf32>
  return
}
