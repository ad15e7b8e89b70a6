// Gradients of tan, asin, acos, atan, sinh, cosh, asinh, acosh and atanh
// (each variable inside its function's domain) against finite differences,
// and on 4 ranks in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dtan[5]
// CHECK-DAG: PASS dloss/dasin[5]
// CHECK-DAG: PASS dloss/dacos[5]
// CHECK-DAG: PASS dloss/datan[5]
// CHECK-DAG: PASS dloss/dsinh[5]
// CHECK-DAG: PASS dloss/dcosh[5]
// CHECK-DAG: PASS dloss/dasinh[5]
// CHECK-DAG: PASS dloss/dacosh[5]
// CHECK-DAG: PASS dloss/datanh[5]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @trigonometric() {
  %tan = oneflow.variable "tan" {init = #oneflow.init<uniform(-1.0, 1.0)>, seed = 1} : tensor<2x3xf32>
  %asin = oneflow.variable "asin" {init = #oneflow.init<uniform(-0.8, 0.8)>, seed = 2} : tensor<2x3xf32>
  %acos = oneflow.variable "acos" {init = #oneflow.init<uniform(-0.8, 0.8)>, seed = 3} : tensor<2x3xf32>
  %atan = oneflow.variable "atan" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 4} : tensor<2x3xf32>
  %sinh = oneflow.variable "sinh" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 5} : tensor<2x3xf32>
  %cosh = oneflow.variable "cosh" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<2x3xf32>
  %asinh = oneflow.variable "asinh" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 7} : tensor<2x3xf32>
  %acosh = oneflow.variable "acosh" {init = #oneflow.init<uniform(1.5, 3.0)>, seed = 8} : tensor<2x3xf32>
  %atanh = oneflow.variable "atanh" {init = #oneflow.init<uniform(-0.8, 0.8)>, seed = 9} : tensor<2x3xf32>
  %r = oneflow.input "r" : tensor<2x3xf32>
  %0 = oneflow.tan %tan : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = oneflow.asin %asin : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = oneflow.acos %acos : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = oneflow.atan %atan : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = oneflow.sinh %sinh : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = oneflow.cosh %cosh : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = oneflow.asinh %asinh : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = oneflow.acosh %acosh : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = oneflow.atanh %atanh : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %s0 = oneflow.add %0, %1 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s1 = oneflow.add %s0, %2 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s2 = oneflow.add %s1, %3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s3 = oneflow.add %s2, %4 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s4 = oneflow.add %s3, %5 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s5 = oneflow.add %s4, %6 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s6 = oneflow.add %s5, %7 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s7 = oneflow.add %s6, %8 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %w = oneflow.mul %s7, %r : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %loss = oneflow.reduce_sum %w {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
