// Gradients of the recurrent layer (oneDNN's RNN primitives, forward and
// backward) against finite differences, and on 2 and 4 ranks and a 2x2
// mesh in every signature and in random layouts against one rank (the
// batch split, the weight gradients partial): an LSTM with its cell state,
// a bidirectional GRU with linear_before_reset, a reverse GRU and a
// sigmoid RNN, every operand trained.
// RUN: of-check %s --mode gradients --devices cpu:1 --grad_atol 3e-3 --verbose | FileCheck %s
// RUN: of-check %s --autodiff --mode signatures --devices cpu:2 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 | FileCheck %s --check-prefix=RANKS
// RUN: of-check %s --autodiff --mode random --devices cpu:4 --mesh 2x2 | FileCheck %s --check-prefix=RANKS
// CHECK-DAG: PASS dloss/dx[
// CHECK-DAG: PASS dloss/dlw[
// CHECK-DAG: PASS dloss/dlr[
// CHECK-DAG: PASS dloss/dlb[
// CHECK-DAG: PASS dloss/dlh[
// CHECK-DAG: PASS dloss/dlc[
// CHECK-DAG: PASS dloss/dgw[
// CHECK-DAG: PASS dloss/dgb[
// CHECK-DAG: PASS dloss/dgh[
// CHECK-DAG: PASS dloss/dqr[
// CHECK-DAG: PASS dloss/dsw[
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
// RANKS-NOT: FAIL
// RANKS: of-check: {{[1-9][0-9]*}} cases, {{[1-9][0-9]*}} passed, 0 failed
func.func @rnn() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<3x4x3xf32>
  // LSTM, H = 2.
  %lw = oneflow.variable "lw" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 2} : tensor<1x4x2x3xf32>
  %lr = oneflow.variable "lr" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 3} : tensor<1x4x2x2xf32>
  %lb = oneflow.variable "lb" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 4} : tensor<1x4x2xf32>
  %lh = oneflow.variable "lh" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 5} : tensor<1x4x2xf32>
  %lc = oneflow.variable "lc" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 6} : tensor<1x4x2xf32>
  %ly, %lhn, %lcn = oneflow.rnn %x, %lw, %lr, %lb, %lh, %lc {cell = "lstm"}
      : (tensor<3x4x3xf32>, tensor<1x4x2x3xf32>, tensor<1x4x2x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>)
      -> (tensor<3x4x2xf32>, tensor<1x4x2xf32>, tensor<1x4x2xf32>)
  // Bidirectional GRU, linear before reset.
  %gw = oneflow.variable "gw" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 7} : tensor<2x3x2x3xf32>
  %gr = oneflow.variable "gr" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 8} : tensor<2x3x2x2xf32>
  %gb = oneflow.variable "gb" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 9} : tensor<2x4x2xf32>
  %gh = oneflow.variable "gh" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 10} : tensor<2x4x2xf32>
  %gy, %ghn = oneflow.rnn %x, %gw, %gr, %gb, %gh {cell = "lbr_gru", direction = "bidirectional"}
      : (tensor<3x4x3xf32>, tensor<2x3x2x3xf32>, tensor<2x3x2x2xf32>, tensor<2x4x2xf32>, tensor<2x4x2xf32>)
      -> (tensor<3x4x4xf32>, tensor<2x4x2xf32>)
  // Reverse GRU (reset before the product) over the LSTM's output.
  %qw = oneflow.variable "qw" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 11} : tensor<1x3x2x2xf32>
  %qr = oneflow.variable "qr" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 12} : tensor<1x3x2x2xf32>
  %qb = oneflow.variable "qb" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 13} : tensor<1x3x2xf32>
  %qy, %qhn = oneflow.rnn %ly, %qw, %qr, %qb, %lhn {cell = "gru", direction = "reverse"}
      : (tensor<3x4x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2x2xf32>, tensor<1x3x2xf32>, tensor<1x4x2xf32>)
      -> (tensor<3x4x2xf32>, tensor<1x4x2xf32>)
  // Sigmoid RNN over the GRU's output.
  %sw = oneflow.variable "sw" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 14} : tensor<1x1x3x4xf32>
  %sr = oneflow.variable "sr" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 15} : tensor<1x1x3x3xf32>
  %sb = oneflow.variable "sb" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 16} : tensor<1x1x3xf32>
  %sh = oneflow.fill 0.0 : tensor<1x4x3xf32>
  %sy, %shn = oneflow.rnn %gy, %sw, %sr, %sb, %sh {cell = "rnn_sigmoid"}
      : (tensor<3x4x4xf32>, tensor<1x1x3x4xf32>, tensor<1x1x3x3xf32>, tensor<1x1x3xf32>, tensor<1x4x3xf32>)
      -> (tensor<3x4x3xf32>, tensor<1x4x3xf32>)
  // Random weights on every result.
  %r1 = oneflow.input "r1" : tensor<3x4x2xf32>
  %r2 = oneflow.input "r2" : tensor<3x4x3xf32>
  %r3 = oneflow.input "r3" : tensor<2x4x2xf32>
  %r4 = oneflow.input "r4" : tensor<1x4x2xf32>
  %p1 = oneflow.mul %qy, %r1 : (tensor<3x4x2xf32>, tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  %p2 = oneflow.mul %sy, %r2 : (tensor<3x4x3xf32>, tensor<3x4x3xf32>) -> tensor<3x4x3xf32>
  %p3 = oneflow.mul %ghn, %r3 : (tensor<2x4x2xf32>, tensor<2x4x2xf32>) -> tensor<2x4x2xf32>
  %p4 = oneflow.mul %lcn, %r4 : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %p5 = oneflow.mul %qhn, %qhn : (tensor<1x4x2xf32>, tensor<1x4x2xf32>) -> tensor<1x4x2xf32>
  %p6 = oneflow.mul %shn, %shn : (tensor<1x4x3xf32>, tensor<1x4x3xf32>) -> tensor<1x4x3xf32>
  %s1 = oneflow.reduce_sum %p1 {axes = array<i64: 0, 1, 2>} : (tensor<3x4x2xf32>) -> tensor<f32>
  %s2 = oneflow.reduce_sum %p2 {axes = array<i64: 0, 1, 2>} : (tensor<3x4x3xf32>) -> tensor<f32>
  %s3 = oneflow.reduce_sum %p3 {axes = array<i64: 0, 1, 2>} : (tensor<2x4x2xf32>) -> tensor<f32>
  %s4 = oneflow.reduce_sum %p4 {axes = array<i64: 0, 1, 2>} : (tensor<1x4x2xf32>) -> tensor<f32>
  %s5 = oneflow.reduce_sum %p5 {axes = array<i64: 0, 1, 2>} : (tensor<1x4x2xf32>) -> tensor<f32>
  %s6 = oneflow.reduce_sum %p6 {axes = array<i64: 0, 1, 2>} : (tensor<1x4x3xf32>) -> tensor<f32>
  %a = oneflow.add %s1, %s2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c = oneflow.add %s3, %s4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %e = oneflow.add %s5, %s6 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %ac = oneflow.add %a, %c : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %l = oneflow.add %ac, %e : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}
