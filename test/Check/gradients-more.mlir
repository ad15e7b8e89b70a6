// Gradients of pow, scalar_pow, maximum, minimum, abs, rsqrt, erf, cast,
// reduce_max, gather (its scatter-add gather_grad) and a mean-squared-error
// loss composed as reduce_mean((a - b)^2), against finite differences, and
// on 2 and 4 ranks and a 2x2 mesh in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dbase[
// CHECK-DAG: PASS dloss/dexpo[
// CHECK-DAG: PASS dloss/da[
// CHECK-DAG: PASS dloss/db[
// CHECK-DAG: PASS dloss/dc[
// CHECK-DAG: PASS dloss/dtable[
// CHECK-DAG: PASS dloss/dpred[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @more() {
  %base = oneflow.variable "base" {init = #oneflow.init<uniform(0.5, 2.0)>, seed = 1} : tensor<4x6xf32>
  %expo = oneflow.variable "expo" {init = #oneflow.init<uniform(0.5, 2.0)>, seed = 2} : tensor<6xf32>
  %a = oneflow.variable "a" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<4x6xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<4x6xf32>
  %c = oneflow.variable "c" {init = #oneflow.init<uniform(0.5, 2.0)>, seed = 5} : tensor<4x6xf32>
  %table = oneflow.variable "table" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<5x6xf32>
  %pred = oneflow.variable "pred" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<4x6xf32>
  %ids = oneflow.input "ids" : tensor<4xi64>
  %target = oneflow.input "target" : tensor<4x6xf32>
  %r = oneflow.input "r" : tensor<4x6xf32>
  %p = oneflow.pow %base, %expo : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4x6xf32>
  %sp = oneflow.scalar_pow %c, 3.0 : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %mx = oneflow.maximum %a, %b : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %mn = oneflow.minimum %a, %b : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %ab = oneflow.abs %a : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %rs = oneflow.rsqrt %c : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %er = oneflow.erf %b : (tensor<4x6xf32>) -> tensor<4x6xf32>
  %c64 = oneflow.cast %c : (tensor<4x6xf32>) -> tensor<4x6xf64>
  %c32 = oneflow.cast %c64 : (tensor<4x6xf64>) -> tensor<4x6xf32>
  %g = oneflow.gather %table, %ids {axis = 0} : (tensor<5x6xf32>, tensor<4xi64>) -> tensor<4x6xf32>
  %s0 = oneflow.add %p, %sp : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s1 = oneflow.add %s0, %mx : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s2 = oneflow.sub %s1, %mn : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s3 = oneflow.add %s2, %ab : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s4 = oneflow.add %s3, %rs : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s5 = oneflow.add %s4, %er : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s6 = oneflow.add %s5, %c32 : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s7 = oneflow.add %s6, %g : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %s8 = oneflow.mul %s7, %r : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %rm = oneflow.reduce_max %s8 {axes = array<i64: 1>} : (tensor<4x6xf32>) -> tensor<4xf32>
  %t = oneflow.reduce_sum %rm {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  %t2 = oneflow.reduce_sum %s8 {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<f32>
  %diff = oneflow.sub %pred, %target : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %sq = oneflow.mul %diff, %diff : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %mse = oneflow.reduce_mean %sq {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<f32>
  %l0 = oneflow.add %t, %t2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %loss = oneflow.add %l0, %mse : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
