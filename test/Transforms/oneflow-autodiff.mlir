// RUN: of-opt %s -split-input-file -oneflow-autodiff | FileCheck %s
// RUN: of-opt %s -split-input-file -oneflow-autodiff=loss=objective | FileCheck %s --check-prefix=NAMED

// A linear layer: the seed, the mean's and the broadcast add's gradients,
// the weight's through a transposed matmul; a value used twice sums its
// gradients; frozen and unused variables and the function argument get no
// gradient (the backward ops for them are erased).
// CHECK-LABEL: func.func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>)
// CHECK: %[[W:.*]] = oneflow.variable "w"
// CHECK: %[[F:.*]] = oneflow.variable "frozen"
// CHECK: oneflow.output "objective"
// CHECK-NEXT: %[[SEED:.*]] = oneflow.fill 1.000000e+00 : tensor<f32>
// CHECK-NEXT: %[[KEPT:.*]] = oneflow.reshape %[[SEED]] : (tensor<f32>) -> tensor<1x1xf32>
// CHECK-NEXT: %[[SCALED:.*]] = oneflow.scalar_mul %[[KEPT]], 0.041666666666666664
// CHECK-NEXT: %[[ZERO:.*]] = oneflow.fill 0.000000e+00 : tensor<8x3xf32>
// CHECK-NEXT: %[[D3:.*]] = oneflow.add %[[ZERO]], %[[SCALED]]
// CHECK-NEXT: %[[D1A:.*]] = oneflow.mul %[[D3]], %[[F]]
// CHECK-NEXT: %[[D1:.*]] = oneflow.add %[[D3]], %[[D1A]] : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[DB:.*]] = oneflow.reduce_sum %[[D1]] {axes = array<i64: 0>} : (tensor<8x3xf32>) -> tensor<3xf32>
// CHECK-NEXT: %[[DW:.*]] = oneflow.matmul %[[X]], %[[D1]] {transpose_a} : (tensor<8x4xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>
// CHECK-NEXT: oneflow.output "w.grad", %[[DW]] {grad_of = "w"} : tensor<4x3xf32>
// CHECK-NEXT: oneflow.output "b.grad", %[[DB]] {grad_of = "b"} : tensor<3xf32>
// CHECK-NEXT: return
func.func @linear(%x: tensor<8x4xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<3xf32>
  %f = oneflow.variable "frozen" {init = #oneflow.init<normal(0.0, 1.0)>, frozen} : tensor<3xf32>
  %u = oneflow.variable "unused" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<3xf32>
  %0 = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %1 = oneflow.add %0, %b : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %2 = oneflow.mul %1, %f : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %3 = oneflow.add %2, %1 : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  %loss = oneflow.reduce_mean %3 {axes = array<i64: 0, 1>} : (tensor<8x3xf32>) -> tensor<f32>
  oneflow.output "unused", %u : tensor<3xf32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "objective", %loss : tensor<f32>
  return
}

// -----

// Forward layouts stay on forward values; gradients carry none. The loss
// may be any output (`loss` option), here also named "objective".
#p2 = #oneflow.placement<cpu, ranks = [0, 1], mesh = [2]>
// CHECK-LABEL: func.func @layouts
// CHECK: oneflow.variable "v" {{.*}} : tensor<4xf32, #oneflow.global
// CHECK: %[[G:.*]] = oneflow.scalar_mul {{.*}} : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: oneflow.output "v.grad", %[[G]] {grad_of = "v"} : tensor<4xf32>
// NAMED-LABEL: func.func @layouts
// NAMED: oneflow.output "v.grad"
func.func @layouts() {
  %v = oneflow.variable "v" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32, #oneflow.global<#p2, [S(0)]>>
  %0 = oneflow.scalar_mul %v, 2.0 : (tensor<4xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<4xf32>
  %1 = oneflow.reduce_sum %0 {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  oneflow.output "loss", %1 : tensor<f32>
  oneflow.output "objective", %1 : tensor<f32>
  return
}

// -----

// No variable reaches the loss: nothing is added.
// CHECK-LABEL: func.func @constant_loss
// CHECK-NOT: grad_of
// CHECK: return
// NAMED-LABEL: func.func @constant_loss
func.func @constant_loss(%x: tensor<4xf32>) {
  %v = oneflow.variable "v" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  %s = oneflow.reduce_sum %x {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  oneflow.output "v", %v : tensor<4xf32>
  oneflow.output "loss", %s : tensor<f32>
  oneflow.output "objective", %s : tensor<f32>
  return
}

// -----

// gelu's gradient is one gelu_grad of its input and the incoming gradient,
// not the composition of erf, exp and nine arithmetic ops.
// CHECK-LABEL: func.func @gelu
// CHECK: %[[H:.*]] = oneflow.matmul
// CHECK: %[[DG:.*]] = oneflow.gelu_grad %[[H]], %{{.*}} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NOT: oneflow.erf
// CHECK-NOT: oneflow.exp
// CHECK: oneflow.matmul %{{.*}}, %[[DG]] {transpose_a}
func.func @gelu(%x: tensor<8x4xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x3xf32>
  %0 = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %1 = oneflow.gelu %0 : (tensor<8x3xf32>) -> tensor<8x3xf32>
  %loss = oneflow.reduce_mean %1 {axes = array<i64: 0, 1>} : (tensor<8x3xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "objective", %loss : tensor<f32>
  return
}

// -----

// layer_norm's gradient is one layer_norm_grad when gamma covers exactly
// the normalized axes; its three results are the gradients of x, gamma
// and beta.
// CHECK-LABEL: func.func @layer_norm
// CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[INV:[^ ]*]] = oneflow.layer_norm %[[X:.*]], %[[G:.*]], %{{.*}} {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64}
// CHECK: %[[DX:.*]], %[[DG:.*]], %[[DB:.*]] = oneflow.layer_norm_grad %[[X]], %{{.*}}, %[[MEAN]], %[[INV]], %[[G]] {begin_norm_axis = 1 : i64} : (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NOT: oneflow.reduce_mean
// CHECK-DAG: oneflow.output "g.grad", %[[DG]]
// CHECK-DAG: oneflow.output "b.grad", %[[DB]]
func.func @layer_norm() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<8x4xf32>
  %g = oneflow.variable "g" {init = #oneflow.init<normal(1.0, 0.1)>, seed = 2} : tensor<4xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<normal(0.0, 0.1)>, seed = 3} : tensor<4xf32>
  %y, %mean, %inv = oneflow.layer_norm %x, %g, %b {begin_norm_axis = 1 : i64, begin_params_axis = 1 : i64} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>)
  %sq = oneflow.mul %y, %y : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %loss = oneflow.reduce_mean %sq {axes = array<i64: 0, 1>} : (tensor<8x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "objective", %loss : tensor<f32>
  return
}

// -----

// The gradients of slices that partition a tensor (a GPT's q, k and v) sum
// to one concat of the pieces: no zero fills and no additions.
// CHECK-LABEL: func.func @partition
// CHECK: %[[Q:.*]] = oneflow.slice
// CHECK-NEXT: %[[K:.*]] = oneflow.slice
// CHECK: oneflow.output "objective"
// CHECK: %[[DQ:.*]] = oneflow.mul %{{.*}}, %[[K]]
// CHECK-NEXT: %[[DK:.*]] = oneflow.mul %{{.*}}, %[[Q]]
// CHECK-NEXT: %[[D:.*]] = oneflow.concat %[[DQ]], %[[DK]], %[[DV:[^ ]*]] {axis = 1 : i64} : (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x12xf32>
// CHECK-NOT: oneflow.fill 0.0
// CHECK-NOT: oneflow.add
// CHECK: oneflow.output "x.grad", %[[D]]
func.func @partition() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<2x12xf32>
  %q = oneflow.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 4>, steps = array<i64: 1, 1>} : (tensor<2x12xf32>) -> tensor<2x4xf32>
  %k = oneflow.slice %x {starts = array<i64: 0, 4>, ends = array<i64: 2, 8>, steps = array<i64: 1, 1>} : (tensor<2x12xf32>) -> tensor<2x4xf32>
  %v = oneflow.slice %x {starts = array<i64: 0, 8>, ends = array<i64: 2, 12>, steps = array<i64: 1, 1>} : (tensor<2x12xf32>) -> tensor<2x4xf32>
  %qk = oneflow.mul %q, %k : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = oneflow.add %qk, %v : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %loss = oneflow.reduce_mean %s {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "objective", %loss : tensor<f32>
  return
}

// -----

// Slices with a gap between them: the zeros of the gap stay, one fill; the
// gradients of overlapping slices are added as before.
// CHECK-LABEL: func.func @gap_and_overlap
// CHECK: %[[SUM:.*]] = oneflow.add %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
// CHECK: %[[GAP:.*]] = oneflow.fill 0.000000e+00 : tensor<2x2xf32>
// CHECK-NEXT: %[[D:.*]] = oneflow.concat %{{.*}}, %[[GAP]], %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x2xf32>, tensor<2x3xf32>) -> tensor<2x8xf32>
// CHECK-NEXT: oneflow.output "x.grad", %[[D]]
// CHECK-NEXT: oneflow.output "y.grad", %[[SUM]]
func.func @gap_and_overlap() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<2x8xf32>
  %a = oneflow.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  %b = oneflow.slice %x {starts = array<i64: 0, 5>, ends = array<i64: 2, 8>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  %y = oneflow.variable "y" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 2} : tensor<2x8xf32>
  %c = oneflow.slice %y {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  %d = oneflow.slice %y {starts = array<i64: 0, 2>, ends = array<i64: 2, 5>, steps = array<i64: 1, 1>} : (tensor<2x8xf32>) -> tensor<2x3xf32>
  %ab = oneflow.mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %cd = oneflow.mul %c, %d : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = oneflow.add %ab, %cd : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %loss = oneflow.reduce_mean %s {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "objective", %loss : tensor<f32>
  return
}

// -----

// softmax's gradient is one softmax_grad of its result and the incoming
// gradient, not two products, a reduction and a difference.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[Y:.*]] = oneflow.softmax
// CHECK: oneflow.output "objective"
// CHECK-NOT: oneflow.reduce_sum
// CHECK: %[[DX:.*]] = oneflow.softmax_grad %[[Y]], %{{.*}} {axis = 1 : i64} : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
// CHECK-NOT: oneflow.sub
// CHECK: oneflow.matmul %{{.*}}, %[[DX]] {transpose_a}
func.func @softmax(%x: tensor<8x4xf32>, %t: tensor<8x3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x3xf32>
  %0 = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  %1 = oneflow.softmax %0 {axis = -1 : i64} : (tensor<8x3xf32>) -> tensor<8x3xf32>
  %2 = oneflow.mul %1, %t : (tensor<8x3xf32>, tensor<8x3xf32>) -> tensor<8x3xf32>
  %loss = oneflow.reduce_mean %2 {axes = array<i64: 0, 1>} : (tensor<8x3xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "objective", %loss : tensor<f32>
  return
}
