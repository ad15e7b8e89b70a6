// Gradients of reciprocal, sin, cos, softplus, leaky_relu, elu, selu,
// hard_sigmoid (its variable spans the slope and both flat parts) and the
// piecewise-constant
// floor, ceil, round and sign (zero; their variables stay away from the
// steps so that finite differences see zero too) against finite
// differences, and on 4 ranks and a 2x2 mesh in random layouts against one
// rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dreciprocal[11]
// CHECK-DAG: PASS dloss/dsin[11]
// CHECK-DAG: PASS dloss/dcos[11]
// CHECK-DAG: PASS dloss/dsoftplus[11]
// CHECK-DAG: PASS dloss/dfloor[11]
// CHECK-DAG: PASS dloss/dsign[11]
// CHECK-DAG: PASS dloss/dleaky_relu[11]
// CHECK-DAG: PASS dloss/delu[11]
// CHECK-DAG: PASS dloss/dselu[11]
// CHECK-DAG: PASS dloss/dhard_sigmoid[11]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @unary() {
  %reciprocal = oneflow.variable "reciprocal" {init = #oneflow.init<uniform(0.5, 2.0)>, seed = 1} : tensor<3x4xf32>
  %sin = oneflow.variable "sin" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 2} : tensor<3x4xf32>
  %cos = oneflow.variable "cos" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 3} : tensor<3x4xf32>
  %softplus = oneflow.variable "softplus" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 4} : tensor<3x4xf32>
  %floor = oneflow.variable "floor" {init = #oneflow.init<uniform(0.1, 0.4)>, seed = 5} : tensor<3x4xf32>
  %ceil = oneflow.variable "ceil" {init = #oneflow.init<uniform(0.1, 0.4)>, seed = 6} : tensor<3x4xf32>
  %round = oneflow.variable "round" {init = #oneflow.init<uniform(0.1, 0.4)>, seed = 7} : tensor<3x4xf32>
  %sign = oneflow.variable "sign" {init = #oneflow.init<uniform(0.1, 0.4)>, seed = 8} : tensor<3x4xf32>
  %leaky = oneflow.variable "leaky_relu" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 9} : tensor<3x4xf32>
  %elu = oneflow.variable "elu" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 10} : tensor<3x4xf32>
  %selu = oneflow.variable "selu" {init = #oneflow.init<normal(0.0, 2.0)>, seed = 11} : tensor<3x4xf32>
  %hard = oneflow.variable "hard_sigmoid" {init = #oneflow.init<normal(0.0, 4.0)>, seed = 12} : tensor<3x4xf32>
  %r = oneflow.input "r" : tensor<3x4xf32>
  %0 = oneflow.reciprocal %reciprocal : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = oneflow.sin %sin : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = oneflow.cos %cos : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %3 = oneflow.softplus %softplus : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %4 = oneflow.floor %floor : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = oneflow.ceil %ceil : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %6 = oneflow.round %round : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %7 = oneflow.sign %sign : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %s0 = oneflow.add %0, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s1 = oneflow.add %s0, %2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s2 = oneflow.add %s1, %3 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s3 = oneflow.add %s2, %4 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s4 = oneflow.add %s3, %5 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s5 = oneflow.add %s4, %6 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s6 = oneflow.add %s5, %7 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %8 = oneflow.leaky_relu %leaky {alpha = 0.1 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %9 = oneflow.elu %elu {alpha = 0.7 : f64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %10 = oneflow.selu %selu : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %11 = oneflow.hard_sigmoid %hard : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %s7 = oneflow.add %s6, %8 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s8 = oneflow.add %s7, %9 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s9 = oneflow.add %s8, %10 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s10 = oneflow.add %s9, %11 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %w = oneflow.mul %s10, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %loss = oneflow.reduce_sum %w {axes = array<i64: 0, 1>} : (tensor<3x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
