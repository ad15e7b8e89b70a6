// Gradients of the broadcasting binary ops against finite differences, and
// the same gradients on 3 and 4 ranks and a 2x2 mesh in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:3 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/da[0]
// CHECK-DAG: PASS dloss/dsb[2]
// CHECK-DAG: PASS dloss/dmc[3]
// CHECK-DAG: PASS dloss/ddb[3]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @binary() {
  // Each variable feeds one op; `b` and `c` are broadcast.
  %a = oneflow.variable "a" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<3x4xf32>
  %ab = oneflow.variable "ab" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<4xf32>
  %s = oneflow.variable "s" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<3x4xf32>
  %sb = oneflow.variable "sb" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<3x1xf32>
  %m = oneflow.variable "m" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 5} : tensor<3x4xf32>
  %mc = oneflow.variable "mc" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<1x4xf32>
  %d = oneflow.variable "d" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<3x4xf32>
  %db = oneflow.variable "db" {init = #oneflow.init<uniform(0.5, 1.5)>, seed = 8} : tensor<4xf32>
  %r = oneflow.input "r" : tensor<3x4xf32>
  %0 = oneflow.add %a, %ab : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  %1 = oneflow.sub %sb, %s : (tensor<3x1xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %2 = oneflow.mul %m, %mc : (tensor<3x4xf32>, tensor<1x4xf32>) -> tensor<3x4xf32>
  %3 = oneflow.div %d, %db : (tensor<3x4xf32>, tensor<4xf32>) -> tensor<3x4xf32>
  // A value used twice: its gradients add up.
  %4 = oneflow.mul %3, %0 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %5 = oneflow.add %4, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %6 = oneflow.add %5, %2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %7 = oneflow.add %6, %3 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %8 = oneflow.mul %7, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %loss = oneflow.reduce_sum %8 {axes = array<i64: 0, 1>} : (tensor<3x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
