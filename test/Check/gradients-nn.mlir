// Gradients of softmax, log_softmax, the cross-entropy (through its loss and
// its probabilities), layer_norm and dropout against finite differences, and
// on 3 and 4 ranks and a 2x2 mesh in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:3 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dlogits[23]
// CHECK-DAG: PASS dloss/dgamma[5]
// CHECK-DAG: PASS dloss/dln[23]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @nn() {
  %sm = oneflow.variable "sm" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x6xf32>
  %lsm = oneflow.variable "lsm" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<4x6xf32>
  %logits = oneflow.variable "logits" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<4x6xf32>
  %ln = oneflow.variable "ln" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<4x6xf32>
  %gamma = oneflow.variable "gamma" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 5} : tensor<6xf32>
  %beta = oneflow.variable "beta" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<6xf32>
  %drop = oneflow.variable "drop" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<4x6xf32>
  %labels = oneflow.input "labels" : tensor<4xi64>
  %r = oneflow.input "r" : tensor<4x6xf32>
  %0 = oneflow.softmax %sm {axis = 0} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = oneflow.log_softmax %lsm : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<4x6xf32>, tensor<4xi64>) -> (tensor<4x6xf32>, tensor<4xf32>)
  %y, %mean, %inv = oneflow.layer_norm %ln, %gamma, %beta {begin_norm_axis = 1, begin_params_axis = 1} : (tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>)
  %d, %mask = oneflow.dropout %drop {rate = 0.25 : f64, seed = 3} : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xi1>)
  %s0 = oneflow.add %0, %1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s1 = oneflow.add %s0, %prob : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s2 = oneflow.add %s1, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s3 = oneflow.add %s2, %d : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s4 = oneflow.mul %s3, %r : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s5 = oneflow.reduce_sum %s4 {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<f32>
  %m = oneflow.reduce_mean %ce {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  %loss = oneflow.add %s5, %m : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
