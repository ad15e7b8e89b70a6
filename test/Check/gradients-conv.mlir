// Gradients of conv2d (strides, padding, dilation, groups, bias), max and
// average pooling (padding, ceil_mode, count_include_pad), the global
// average pool and batch_norm in training and inference against finite
// differences, and on 2 and 4 ranks and a 2x2 mesh in random layouts
// against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --grad_atol 3e-3 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dx[
// CHECK-DAG: PASS dloss/dw1[
// CHECK-DAG: PASS dloss/db1[
// CHECK-DAG: PASS dloss/dw2[
// CHECK-DAG: PASS dloss/dgamma[
// CHECK-DAG: PASS dloss/dbeta[
// CHECK-DAG: PASS dloss/dg2[
// CHECK-DAG: PASS dloss/drm[
// CHECK-DAG: PASS dloss/drv[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @conv() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<2x4x7x6xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 2} : tensor<6x4x3x3xf32>
  %b1 = oneflow.variable "b1" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<6xf32>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 4} : tensor<6x6x2x2xf32>
  %gamma = oneflow.variable "gamma" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 5} : tensor<6xf32>
  %beta = oneflow.variable "beta" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<6xf32>
  %g2 = oneflow.variable "g2" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 7} : tensor<6xf32>
  %rm = oneflow.variable "rm" {init = #oneflow.init<normal(0.0, 0.3)>, seed = 8} : tensor<6xf32>
  %rv = oneflow.variable "rv" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 9} : tensor<6xf32>
  %fm = oneflow.variable "fm" {frozen, init = #oneflow.init<zeros>} : tensor<6xf32>
  %fv = oneflow.variable "fv" {frozen, init = #oneflow.init<ones>} : tensor<6xf32>
  %r2 = oneflow.input "r2" : tensor<2x6x2x2xf32>
  %r3 = oneflow.input "r3" : tensor<2x6x2x2xf32>
  %r4 = oneflow.input "r4" : tensor<2x6x1x1xf32>
  // Stride 2 by 1, uneven padding, bias.
  %c1 = oneflow.conv2d %x, %w1, %b1 {strides = array<i64: 2, 1>, pads = array<i64: 1, 0, 1, 0>} : (tensor<2x4x7x6xf32>, tensor<6x4x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  %bn, %bm, %bi = oneflow.batch_norm %c1, %gamma, %beta, %fm, %fv {training} : (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x4x4xf32>, tensor<6xf32>, tensor<6xf32>)
  // No bias.
  %c2 = oneflow.conv2d %bn, %w2 {pads = array<i64: 0, 1, 0, 0>} : (tensor<2x6x4x4xf32>, tensor<6x6x2x2xf32>) -> tensor<2x6x3x4xf32>
  %in, %im, %ii = oneflow.batch_norm %c2, %g2, %beta, %rm, %rv : (tensor<2x6x3x4xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<2x6x3x4xf32>, tensor<6xf32>, tensor<6xf32>)
  // Max pooling with padding and ceil_mode, 3x4 -> 2x2.
  %mp = oneflow.max_pool2d %in {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 0>, ceil_mode} : (tensor<2x6x3x4xf32>) -> tensor<2x6x2x2xf32>
  // Average pooling counting padding, ceil_mode, over the first conv.
  %ap = oneflow.avg_pool2d %c1 {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, ceil_mode, count_include_pad} : (tensor<2x6x4x4xf32>) -> tensor<2x6x2x2xf32>
  %gp = oneflow.global_avg_pool2d %c2 : (tensor<2x6x3x4xf32>) -> tensor<2x6x1x1xf32>
  %m2 = oneflow.mul %mp, %r2 : (tensor<2x6x2x2xf32>, tensor<2x6x2x2xf32>) -> tensor<2x6x2x2xf32>
  %m3 = oneflow.mul %ap, %r3 : (tensor<2x6x2x2xf32>, tensor<2x6x2x2xf32>) -> tensor<2x6x2x2xf32>
  %m4 = oneflow.mul %gp, %r4 : (tensor<2x6x1x1xf32>, tensor<2x6x1x1xf32>) -> tensor<2x6x1x1xf32>
  %bnr = oneflow.mul %bn, %bn : (tensor<2x6x4x4xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
  %q0 = oneflow.reduce_sum %bnr {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x6x4x4xf32>) -> tensor<f32>
  %q2 = oneflow.reduce_sum %m2 {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x6x2x2xf32>) -> tensor<f32>
  %q3 = oneflow.reduce_sum %m3 {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x6x2x2xf32>) -> tensor<f32>
  %q4 = oneflow.reduce_sum %m4 {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x6x1x1xf32>) -> tensor<f32>
  %a0 = oneflow.add %q0, %q2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %a1 = oneflow.add %a0, %q3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %loss = oneflow.add %a1, %q4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
