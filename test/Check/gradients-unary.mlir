// Gradients of the unary and scalar ops against finite differences, and on
// 3 and 4 ranks and a 2x2 mesh in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:3 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/drelu[11]
// CHECK-DAG: PASS dloss/dgelu[11]
// CHECK-DAG: PASS dloss/dsqrt[11]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @unary() {
  %relu = oneflow.variable "relu" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<3x4xf32>
  %tanh = oneflow.variable "tanh" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<3x4xf32>
  %sigmoid = oneflow.variable "sigmoid" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<3x4xf32>
  %exp = oneflow.variable "exp" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<3x4xf32>
  %log = oneflow.variable "log" {init = #oneflow.init<uniform(0.5, 2.0)>, seed = 5} : tensor<3x4xf32>
  %sqrt = oneflow.variable "sqrt" {init = #oneflow.init<uniform(0.5, 2.0)>, seed = 6} : tensor<3x4xf32>
  %gelu = oneflow.variable "gelu" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<3x4xf32>
  %scalar = oneflow.variable "scalar" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 8} : tensor<3x4xf32>
  %r = oneflow.input "r" : tensor<3x4xf32>
  %0 = oneflow.relu %relu : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = oneflow.tanh %tanh : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = oneflow.sigmoid %sigmoid : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = oneflow.exp %exp : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = oneflow.log %log : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = oneflow.sqrt %sqrt : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %6 = oneflow.gelu %gelu : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %7 = oneflow.neg %scalar : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %8 = oneflow.scalar_add %7, 0.5 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %9 = oneflow.scalar_mul %8, 3.0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %10 = oneflow.scalar_div %9, 4.0 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %11 = oneflow.tanh %10 : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %s0 = oneflow.add %0, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s1 = oneflow.add %s0, %2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s2 = oneflow.add %s1, %3 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s3 = oneflow.add %s2, %4 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s4 = oneflow.add %s3, %5 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s5 = oneflow.add %s4, %6 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s6 = oneflow.add %s5, %11 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %w = oneflow.mul %s6, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %loss = oneflow.reduce_sum %w {axes = array<i64: 0, 1>} : (tensor<3x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
