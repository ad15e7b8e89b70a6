// Gradients of softmax, log_softmax, the cross-entropy (through its loss and
// its probabilities), layer_norm and dropout against finite differences, and
// on 3 and 4 ranks and a 2x2 mesh in random layouts against one rank.
// layer_norm twice: gamma over the normalized axes (one layer_norm_grad)
// and over fewer of them (the composition of element-wise ops).
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:3 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dlogits[23]
// CHECK-DAG: PASS dloss/dgamma[5]
// CHECK-DAG: PASS dloss/dln[23]
// CHECK-DAG: PASS dloss/dgamma2[2]
// CHECK-DAG: PASS dloss/dln2[23]
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
  %ln2 = oneflow.variable "ln2" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 8} : tensor<4x2x3xf32>
  %gamma2 = oneflow.variable "gamma2" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 9} : tensor<3xf32>
  %beta2 = oneflow.variable "beta2" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 10} : tensor<3xf32>
  %drop = oneflow.variable "drop" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<4x6xf32>
  %labels = oneflow.input "labels" : tensor<4xi64>
  %r = oneflow.input "r" : tensor<4x6xf32>
  %0 = oneflow.softmax %sm {axis = 0} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %1 = oneflow.log_softmax %lsm : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<4x6xf32>, tensor<4xi64>) -> (tensor<4x6xf32>, tensor<4xf32>)
  %y, %mean, %inv = oneflow.layer_norm %ln, %gamma, %beta {begin_norm_axis = 1, begin_params_axis = 1} : (tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<4x6xf32>, tensor<4xf32>, tensor<4xf32>)
  %y2, %mean2, %inv2 = oneflow.layer_norm %ln2, %gamma2, %beta2 {begin_norm_axis = 1, begin_params_axis = 2} : (tensor<4x2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<4x2x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %y2f = oneflow.reshape %y2 : (tensor<4x2x3xf32>) -> tensor<4x6xf32>
  %d, %mask = oneflow.dropout %drop {rate = 0.25 : f64, seed = 3} : (tensor<4x6xf32>) -> (tensor<4x6xf32>, tensor<4x6xi1>)
  %s0 = oneflow.add %0, %1 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s1 = oneflow.add %s0, %prob : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s2 = oneflow.add %s1, %y : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s3a = oneflow.add %s2, %d : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s3 = oneflow.add %s3a, %y2f : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s4 = oneflow.mul %s3, %r : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s5 = oneflow.reduce_sum %s4 {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<f32>
  %m = oneflow.reduce_mean %ce {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  %loss = oneflow.add %s5, %m : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
