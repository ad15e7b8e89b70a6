// Gradients of matmul (each transpose) and batch_matmul (with a broadcast
// operand and an alpha, which its gradient products take too) against
// finite differences, and on 3 and 4 ranks and a 2x2 mesh in random layouts.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:3 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dtt_b[19]
// CHECK-DAG: PASS dloss/dbk[19]
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: 5 cases, 5 passed, 0 failed
func.func @matmul() {
  %a = oneflow.variable "a" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<3x5xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<5x4xf32>
  %ta_a = oneflow.variable "ta_a" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<5x3xf32>
  %tb_b = oneflow.variable "tb_b" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<4x5xf32>
  %tt_a = oneflow.variable "tt_a" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 5} : tensor<5x3xf32>
  %tt_b = oneflow.variable "tt_b" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 6} : tensor<4x5xf32>
  %bq = oneflow.variable "bq" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 7} : tensor<2x3x5xf32>
  %bk = oneflow.variable "bk" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 8} : tensor<4x5xf32>
  %r = oneflow.input "r" : tensor<3x4xf32>
  %rb = oneflow.input "rb" : tensor<2x3x4xf32>
  %0 = oneflow.matmul %a, %b : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %1 = oneflow.matmul %ta_a, %b {transpose_a} : (tensor<5x3xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  %2 = oneflow.matmul %a, %tb_b {transpose_b} : (tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  %3 = oneflow.matmul %tt_a, %tt_b {transpose_a, transpose_b} : (tensor<5x3xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  %4 = oneflow.batch_matmul %bq, %bk {transpose_b, alpha = -1.5 : f64} : (tensor<2x3x5xf32>, tensor<4x5xf32>) -> tensor<2x3x4xf32>
  %s0 = oneflow.add %0, %1 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s1 = oneflow.add %s0, %2 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s2 = oneflow.add %s1, %3 : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s3 = oneflow.mul %s2, %r : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  %s4 = oneflow.mul %4, %rb : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %s5 = oneflow.add %s4, %s3 : (tensor<2x3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %loss = oneflow.reduce_sum %s5 {axes = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
