// Gradients of resample (oneDNN's linear and nearest resampling) and of
// resample_grad (its transpose, differentiated as a resample) against
// finite differences, and on 2 and 4 ranks and a 2x2 mesh in every
// signature and in random layouts against one rank: up by non-integer
// factors on 2 spatial axes, down on 1, and 3 spatial axes; nearest up by
// 2 and by 5/3, and its transpose.
// RUN: of-check %s --mode gradients --devices cpu:1 --grad_atol 3e-3 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dx[
// CHECK-DAG: PASS dloss/dv[
// CHECK-DAG: PASS dloss/dz[
// CHECK-DAG: PASS dloss/dn[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @resample() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<2x4x3x5xf32>
  %v = oneflow.variable "v" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<2x2x7xf32>
  %z = oneflow.variable "z" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<2x2x2x3x2xf32>
  %r = oneflow.input "r" : tensor<2x4x7x8xf32>
  // 3x5 -> 7x8 (factors 7/3 and 8/5).
  %u = oneflow.resample %x {sizes = array<i64: 7, 8>} : (tensor<2x4x3x5xf32>) -> tensor<2x4x7x8xf32>
  %p = oneflow.mul %u, %r : (tensor<2x4x7x8xf32>, tensor<2x4x7x8xf32>) -> tensor<2x4x7x8xf32>
  %a = oneflow.reduce_sum %p {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x4x7x8xf32>) -> tensor<f32>
  // 7 -> 3 on one spatial axis, squared.
  %d = oneflow.resample %v {sizes = array<i64: 3>} : (tensor<2x2x7xf32>) -> tensor<2x2x3xf32>
  %q = oneflow.mul %d, %d : (tensor<2x2x3xf32>, tensor<2x2x3xf32>) -> tensor<2x2x3xf32>
  %b = oneflow.reduce_sum %q {axes = array<i64: 0, 1, 2>} : (tensor<2x2x3xf32>) -> tensor<f32>
  // Three spatial axes, then the transpose back to v's shape-like input.
  %w = oneflow.resample %z {sizes = array<i64: 3, 4, 3>} : (tensor<2x2x2x3x2xf32>) -> tensor<2x2x3x4x3xf32>
  %t = oneflow.resample_grad %z, %w : (tensor<2x2x2x3x2xf32>, tensor<2x2x3x4x3xf32>) -> tensor<2x2x2x3x2xf32>
  %s = oneflow.mul %t, %t : (tensor<2x2x2x3x2xf32>, tensor<2x2x2x3x2xf32>) -> tensor<2x2x2x3x2xf32>
  %c = oneflow.reduce_sum %s {axes = array<i64: 0, 1, 2, 3, 4>} : (tensor<2x2x2x3x2xf32>) -> tensor<f32>
  // Nearest: 3x3 -> 6x5 (factors 2 and 5/3), weighted; then its transpose.
  %n = oneflow.variable "n" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<2x2x3x3xf32>
  %nu = oneflow.resample %n {sizes = array<i64: 6, 5>, mode = "nearest"} : (tensor<2x2x3x3xf32>) -> tensor<2x2x6x5xf32>
  %nr = oneflow.input "nr" : tensor<2x2x6x5xf32>
  %np = oneflow.mul %nu, %nr : (tensor<2x2x6x5xf32>, tensor<2x2x6x5xf32>) -> tensor<2x2x6x5xf32>
  %nt = oneflow.resample_grad %n, %np {mode = "nearest"} : (tensor<2x2x3x3xf32>, tensor<2x2x6x5xf32>) -> tensor<2x2x3x3xf32>
  %nq = oneflow.mul %nt, %nt : (tensor<2x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<2x2x3x3xf32>
  %e = oneflow.reduce_sum %nq {axes = array<i64: 0, 1, 2, 3>} : (tensor<2x2x3x3xf32>) -> tensor<f32>
  %ab = oneflow.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %ce = oneflow.add %c, %e : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %l = oneflow.add %ab, %ce : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}
