// gather_elements and its scatter-add gradient gather_elements_grad (and
// the gradient of that, as ONNX ScatterElements uses it, and of gather_grad,
// as ScatterND does), and top_k (the values' gradient scattered back),
// along the last axis (indices narrower than x, as NLL's picked class)
// and along the first (indices of x's width, repeated indices adding up),
// against finite differences, and on 2 and 4 ranks and a 2x2 mesh in
// every signature and in random layouts against one rank.
// RUN: of-check %s --mode gradients --devices cpu:1 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dx[
// CHECK-DAG: PASS dloss/dw[
// CHECK-DAG: PASS dloss/du[
// CHECK-DAG: PASS dloss/dz[
// CHECK-DAG: PASS dloss/dq[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @gather_elements() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x5xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<3x4xf32>
  %labels = oneflow.constant dense<[[4, 0], [1, -1], [2, 2], [0, 3]]> : tensor<4x2xi64>
  %rows = oneflow.constant dense<[[2, 0, 1, 2], [0, 0, 2, 1]]> : tensor<2x4xi64>
  %u = oneflow.variable "u" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 3} : tensor<4x2xf32>
  %v = oneflow.input "v" : tensor<4x5xf32>
  %z = oneflow.variable "z" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 4} : tensor<3x4xf32>
  %qv = oneflow.variable "q" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 5} : tensor<4x6xf32>
  %zrows = oneflow.constant dense<[4, 0, 4]> : tensor<3xi64>
  %r = oneflow.input "r" : tensor<4x2xf32>
  %s = oneflow.input "s" : tensor<2x4xf32>
  %p = oneflow.gather_elements %x, %labels {axis = 1} : (tensor<4x5xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  %q = oneflow.gather_elements %w, %rows {axis = 0} : (tensor<3x4xf32>, tensor<2x4xi64>) -> tensor<2x4xf32>
  %pr = oneflow.mul %p, %r : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %qs = oneflow.mul %q, %s : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %a = oneflow.reduce_sum %pr {axes = array<i64: 0, 1>} : (tensor<4x2xf32>) -> tensor<f32>
  %b = oneflow.reduce_sum %qs {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<f32>
  %sc = oneflow.gather_elements_grad %u, %labels {axis = 1 : i64, shape = array<i64: 4, 5>} : (tensor<4x2xf32>, tensor<4x2xi64>) -> tensor<4x5xf32>
  %scv = oneflow.mul %sc, %v : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %c = oneflow.reduce_sum %scv {axes = array<i64: 0, 1>} : (tensor<4x5xf32>) -> tensor<f32>
  %ab = oneflow.add %a, %b : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %zs = oneflow.gather_grad %z, %zrows {axis = 0 : i64, dim_size = 5 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<5x4xf32>
  %zt = oneflow.transpose %zs {perm = array<i64: 1, 0>} : (tensor<5x4xf32>) -> tensor<4x5xf32>
  %zv = oneflow.mul %zt, %v : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %d = oneflow.reduce_sum %zv {axes = array<i64: 0, 1>} : (tensor<4x5xf32>) -> tensor<f32>
  %abc = oneflow.add %ab, %c : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %top:2 = oneflow.top_k %qv {k = 2 : i64, axis = 1 : i64} : (tensor<4x6xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
  %low:2 = oneflow.top_k %qv {k = 3 : i64, axis = 0 : i64, smallest} : (tensor<4x6xf32>) -> (tensor<3x6xf32>, tensor<3x6xi64>)
  %tr = oneflow.mul %top#0, %r : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<4x2xf32>
  %e1 = oneflow.reduce_sum %tr {axes = array<i64: 0, 1>} : (tensor<4x2xf32>) -> tensor<f32>
  %lsq = oneflow.mul %low#0, %low#0 : (tensor<3x6xf32>, tensor<3x6xf32>) -> tensor<3x6xf32>
  %e2 = oneflow.reduce_sum %lsq {axes = array<i64: 0, 1>} : (tensor<3x6xf32>) -> tensor<f32>
  %e = oneflow.add %e1, %e2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %abcd = oneflow.add %abc, %d : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %loss = oneflow.add %abcd, %e : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
