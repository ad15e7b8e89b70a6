// Gradients of reductions (reduce_sum_square too), reshapes, transpose, flatten, concat, slices
// (strided too, and three that partition a tensor as a GPT's q, k and v), gather (repeated and negative indices), where and
// masked_fill against finite differences, and on 3 and 4
// ranks and a 2x2 mesh in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:3 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dsl[59]
// CHECK-DAG: PASS dloss/dwy[11]
// CHECK-DAG: PASS dloss/dtab[19]
// CHECK-DAG: PASS dloss/dpq[35]
// CHECK-DAG: PASS dloss/dsq[23]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @shape() {
  %rs = oneflow.variable "rs" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<3x4x2xf32>
  %rm = oneflow.variable "rm" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<3x4x2xf32>
  %re = oneflow.variable "re" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<3x8xf32>
  %tr = oneflow.variable "tr" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<4x3xf32>
  %fl = oneflow.variable "fl" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 5} : tensor<3x2x4xf32>
  %ca = oneflow.variable "ca" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<3x1xf32>
  %cb = oneflow.variable "cb" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<3x3xf32>
  %sl = oneflow.variable "sl" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 8} : tensor<5x12xf32>
  %wx = oneflow.variable "wx" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 9} : tensor<3x4xf32>
  %wy = oneflow.variable "wy" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 10} : tensor<3x4xf32>
  %mf = oneflow.variable "mf" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 11} : tensor<3x4xf32>
  %tab = oneflow.variable "tab" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 12} : tensor<5x4xf32>
  %pq = oneflow.variable "pq" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 13} : tensor<3x12xf32>
  %sq = oneflow.variable "sq" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 14} : tensor<3x4x2xf32>
  %ids = oneflow.constant dense<[4, 0, -1]> : tensor<3xi64>
  %r = oneflow.input "r" : tensor<3x4xf32>
  %c = oneflow.input "c" : tensor<3x4xf32>
  %half = oneflow.fill 0.5 : tensor<f32>
  %cond = oneflow.less %c, %half : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
  %mask = oneflow.greater %c, %half : (tensor<3x4xf32>, tensor<f32>) -> tensor<3x4xi1>
  %0 = oneflow.reduce_sum %rs {axes = array<i64: 2>} : (tensor<3x4x2xf32>) -> tensor<3x4xf32>
  %1 = oneflow.reduce_mean %rm {axes = array<i64: -1>, keepdims} : (tensor<3x4x2xf32>) -> tensor<3x4x1xf32>
  %2 = oneflow.reshape %1 : (tensor<3x4x1xf32>) -> tensor<3x4xf32>
  %3 = oneflow.reshape %re : (tensor<3x8xf32>) -> tensor<3x4x2xf32>
  %4 = oneflow.reduce_sum %3 {axes = array<i64: 2>} : (tensor<3x4x2xf32>) -> tensor<3x4xf32>
  %5 = oneflow.transpose %tr {perm = array<i64: 1, 0>} : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %6 = oneflow.flatten %fl {start_dim = 1} : (tensor<3x2x4xf32>) -> tensor<3x8xf32>
  %7 = oneflow.slice %6 {starts = array<i64: 0, 1>, ends = array<i64: 3, 5>, steps = array<i64: 1, 1>} : (tensor<3x8xf32>) -> tensor<3x4xf32>
  %8 = oneflow.concat %ca, %cb {axis = 1} : (tensor<3x1xf32>, tensor<3x3xf32>) -> tensor<3x4xf32>
  %9 = oneflow.slice %sl {starts = array<i64: 1, -11>, ends = array<i64: 5, 12>, steps = array<i64: 2, 3>} : (tensor<5x12xf32>) -> tensor<2x4xf32>
  %10 = oneflow.concat %9, %9 {axis = 0} : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
  %11 = oneflow.slice %10 {starts = array<i64: 0, 0>, ends = array<i64: 3, 4>, steps = array<i64: 1, 1>} : (tensor<4x4xf32>) -> tensor<3x4xf32>
  %12 = oneflow.where %cond, %wx, %wy : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %13 = oneflow.masked_fill %mf, %mask, 2.0 : (tensor<3x4xf32>, tensor<3x4xi1>) -> tensor<3x4xf32>
  %s = oneflow.add %0, %4 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s0 = oneflow.add %s, %2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s1 = oneflow.add %s0, %5 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s2 = oneflow.add %s1, %7 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s3 = oneflow.add %s2, %8 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s4 = oneflow.add %s3, %11 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s5 = oneflow.add %s4, %12 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s6 = oneflow.add %s5, %13 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %14 = oneflow.gather %tab, %ids : (tensor<5x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  %s7 = oneflow.add %s6, %14 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %pa = oneflow.slice %pq {starts = array<i64: 0, 0>, ends = array<i64: 3, 4>, steps = array<i64: 1, 1>} : (tensor<3x12xf32>) -> tensor<3x4xf32>
  %pb = oneflow.slice %pq {starts = array<i64: 0, 4>, ends = array<i64: 3, 8>, steps = array<i64: 1, 1>} : (tensor<3x12xf32>) -> tensor<3x4xf32>
  %pc = oneflow.slice %pq {starts = array<i64: 0, 8>, ends = array<i64: 3, 12>, steps = array<i64: 1, 1>} : (tensor<3x12xf32>) -> tensor<3x4xf32>
  %pab = oneflow.mul %pa, %pb : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %15 = oneflow.add %pab, %pc : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s8 = oneflow.add %s7, %15 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %16 = oneflow.reduce_sum_square %sq {axes = array<i64: -1>} : (tensor<3x4x2xf32>) -> tensor<3x4xf32>
  %s9 = oneflow.add %s8, %16 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %w = oneflow.mul %s9, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %loss = oneflow.reduce_sum %w {axes = array<i64: 0, 1>} : (tensor<3x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
