// Training batch_norm with statistics groups (each group of consecutive
// samples normalized with its own statistics, oneflow-local-batch-statistics):
// gradients against finite differences, and on 2 and 4 ranks and a 2x2 mesh
// in random layouts (the batch split in whole groups) against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --grad_atol 3e-3 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dx[
// CHECK-DAG: PASS dloss/dgamma[
// CHECK-DAG: PASS dloss/dbeta[
// CHECK-DAG: PASS dloss/dh[
// CHECK-DAG: PASS dloss/dg2[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @groups() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<8x3x3x2xf32>
  %gamma = oneflow.variable "gamma" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 2} : tensor<3xf32>
  %beta = oneflow.variable "beta" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<3xf32>
  %h = oneflow.variable "h" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<8x5xf32>
  %g2 = oneflow.variable "g2" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 5} : tensor<5xf32>
  %b2 = oneflow.variable "b2" {frozen, init = #oneflow.init<zeros>} : tensor<5xf32>
  %fm = oneflow.variable "fm" {frozen, init = #oneflow.init<zeros>} : tensor<3xf32>
  %fv = oneflow.variable "fv" {frozen, init = #oneflow.init<ones>} : tensor<3xf32>
  %m5 = oneflow.variable "m5" {frozen, init = #oneflow.init<zeros>} : tensor<5xf32>
  %v5 = oneflow.variable "v5" {frozen, init = #oneflow.init<ones>} : tensor<5xf32>
  %r = oneflow.input "r" : tensor<8x3x3x2xf32>
  %r5 = oneflow.input "r5" : tensor<8x5xf32>
  // Four groups of two images, channels on axis 1.
  %y, %m, %i = oneflow.batch_norm %x, %gamma, %beta, %fm, %fv {training, statistics_groups = 4 : i64} : (tensor<8x3x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3x3x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  // Two groups of four rows, channels last.
  %z, %zm, %zi = oneflow.batch_norm %h, %g2, %b2, %m5, %v5 {training, axis = -1 : i64, statistics_groups = 2 : i64} : (tensor<8x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<8x5xf32>, tensor<2x5xf32>, tensor<2x5xf32>)
  %p = oneflow.mul %y, %r : (tensor<8x3x3x2xf32>, tensor<8x3x3x2xf32>) -> tensor<8x3x3x2xf32>
  %pp = oneflow.mul %p, %y : (tensor<8x3x3x2xf32>, tensor<8x3x3x2xf32>) -> tensor<8x3x3x2xf32>
  %q = oneflow.mul %z, %r5 : (tensor<8x5xf32>, tensor<8x5xf32>) -> tensor<8x5xf32>
  %qq = oneflow.mul %q, %z : (tensor<8x5xf32>, tensor<8x5xf32>) -> tensor<8x5xf32>
  %s1 = oneflow.reduce_sum %pp {axes = array<i64: 0, 1, 2, 3>} : (tensor<8x3x3x2xf32>) -> tensor<f32>
  %s2 = oneflow.reduce_sum %qq {axes = array<i64: 0, 1>} : (tensor<8x5xf32>) -> tensor<f32>
  %loss = oneflow.add %s1, %s2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
