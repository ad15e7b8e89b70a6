// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-mixed-precision))' | FileCheck %s
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-mixed-precision{dtype=f16 deny=oneflow.gelu}))' | FileCheck %s --check-prefix=F16
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-mixed-precision{allow=oneflow.softmax}))' | FileCheck %s --check-prefix=ALLOW
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-mixed-precision,oneflow-autodiff,oneflow-optimizer{kind=adam}))' | FileCheck %s --check-prefix=TRAIN
// RUN: not of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-mixed-precision{dtype=f8}))' 2>&1 | FileCheck %s --check-prefix=BAD

// An MLP block with a residual: the matmuls run in bf16, and so do the bias
// add and the GELU between them (every reader is bf16); the second bias add
// is read by the residual add, which a layer norm reads: both stay f32, as
// do the layer norm, softmax, loss and variables. One cast per value and
// direction; the variables' casts sit before their first reader.

// CHECK-LABEL: func.func @block
// CHECK: %[[LN:.*]], %{{.*}}, %{{.*}} = oneflow.layer_norm {{.*}} -> (tensor<8x4xf32>
// CHECK: %[[X16:.*]] = oneflow.cast %[[LN]] : (tensor<8x4xf32>) -> tensor<8x4xbf16>
// CHECK: %[[W16:.*]] = oneflow.cast %{{.*}} : (tensor<4x16xf32>) -> tensor<4x16xbf16>
// CHECK: %[[H:.*]] = oneflow.matmul %[[X16]], %[[W16]] : (tensor<8x4xbf16>, tensor<4x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[B16:.*]] = oneflow.cast %{{.*}} : (tensor<16xf32>) -> tensor<16xbf16>
// CHECK: %[[HB:.*]] = oneflow.add %[[H]], %[[B16]] : (tensor<8x16xbf16>, tensor<16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[G:.*]] = oneflow.gelu %[[HB]] : (tensor<8x16xbf16>) -> tensor<8x16xbf16>
// CHECK: %[[Y:.*]] = oneflow.matmul %[[G]], %{{.*}} : (tensor<8x16xbf16>, tensor<16x4xbf16>) -> tensor<8x4xbf16>
// CHECK: %[[Y32:.*]] = oneflow.cast %[[Y]] : (tensor<8x4xbf16>) -> tensor<8x4xf32>
// CHECK: %[[YB:.*]] = oneflow.add %[[Y32]], %{{.*}} : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
// CHECK: oneflow.add %{{.*}}, %[[YB]] : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK: oneflow.softmax %{{.*}} : (tensor<8x4xf32>) -> tensor<8x4xf32>
// CHECK-NOT: oneflow.cast
// CHECK: oneflow.output "loss"

// f16 and a denied GELU: the bias add before it is read by an f32 op now,
// so it keeps f32 too, and the second matmul's input is cast back.
// F16-LABEL: func.func @block
// F16: oneflow.matmul {{.*}} -> tensor<8x16xf16>
// F16: oneflow.cast %{{.*}} : (tensor<8x16xf16>) -> tensor<8x16xf32>
// F16: oneflow.add {{.*}} -> tensor<8x16xf32>
// F16: oneflow.gelu {{.*}} -> tensor<8x16xf32>
// F16: oneflow.cast %{{.*}} : (tensor<8x16xf32>) -> tensor<8x16xf16>
// F16: oneflow.matmul {{.*}} -> tensor<8x4xf16>

// allow=: the softmax joins the allow list.
// ALLOW-LABEL: func.func @block
// ALLOW: oneflow.softmax %{{.*}} : (tensor<8x4xbf16>) -> tensor<8x4xbf16>

// Training: the variables, their gradients and Adam's states are f32; the
// casts' gradients bring the bf16 gradients of the weights back to f32.
// TRAIN-LABEL: func.func @block
// TRAIN: oneflow.matmul {{.*}} {transpose_a} : (tensor<8x4xbf16>, tensor<8x16xbf16>) -> tensor<4x16xbf16>
// TRAIN: oneflow.cast %{{.*}} : (tensor<4x16xbf16>) -> tensor<4x16xf32>
// TRAIN: oneflow.variable "w1.m" {{.*}} : tensor<4x16xf32>
// TRAIN: oneflow.adam_update {{.*}} : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x16xf32>

// BAD: oneflow-mixed-precision: dtype 'f8' is not bf16 or f16
func.func @block() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %labels = oneflow.input "labels" : tensor<8xi64>
  %g = oneflow.variable "g" {init = #oneflow.init<ones>} : tensor<4xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<4xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<normal(0.0, 0.1)>} : tensor<4x16xf32>
  %b1 = oneflow.variable "b1" {init = #oneflow.init<zeros>} : tensor<16xf32>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<normal(0.0, 0.1)>} : tensor<16x4xf32>
  %b2 = oneflow.variable "b2" {init = #oneflow.init<zeros>} : tensor<4xf32>
  %ln, %mean, %rstd = oneflow.layer_norm %x, %g, %b {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4xf32>, tensor<8xf32>, tensor<8xf32>)
  %h = oneflow.matmul %ln, %w1 : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %hb = oneflow.add %h, %b1 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %a = oneflow.gelu %hb : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<8x16xf32>, tensor<16x4xf32>) -> tensor<8x4xf32>
  %yb = oneflow.add %y, %b2 : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %r = oneflow.add %x, %yb : (tensor<8x4xf32>, tensor<8x4xf32>) -> tensor<8x4xf32>
  %p = oneflow.softmax %r : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %r, %labels : (tensor<8x4xf32>, tensor<8xi64>) -> (tensor<8x4xf32>, tensor<8xf32>)
  %loss = oneflow.reduce_mean %ce {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  oneflow.output "p", %p : tensor<8x4xf32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}

// -----

// Clear ops follow: a reshape and transpose between two matmuls run in
// bf16; one after a matmul whose readers are f32 runs in bf16 too (its only
// float operand is bf16). f64 matmuls and integer ops are left alone.

// CHECK-LABEL: func.func @clear
// CHECK: %[[A:.*]] = oneflow.matmul {{.*}} -> tensor<4x6xbf16>
// CHECK: %[[R:.*]] = oneflow.reshape %[[A]] : (tensor<4x6xbf16>) -> tensor<6x4xbf16>
// CHECK: oneflow.matmul %[[R]], {{.*}} -> tensor<6x4xbf16>
// CHECK: %[[T:.*]] = oneflow.transpose {{.*}} -> tensor<4x6xbf16>
// CHECK: oneflow.cast %[[T]] : (tensor<4x6xbf16>) -> tensor<4x6xf32>
// CHECK: oneflow.matmul {{.*}} : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
// CHECK: oneflow.add {{.*}} : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
func.func @clear() {
  %x = oneflow.input "x" : tensor<4x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<ones>} : tensor<4x6xf32>
  %v = oneflow.variable "v" {init = #oneflow.init<ones>} : tensor<4x4xf32>
  %a = oneflow.matmul %x, %w : (tensor<4x4xf32>, tensor<4x6xf32>) -> tensor<4x6xf32>
  %r = oneflow.reshape %a : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %b = oneflow.matmul %r, %v : (tensor<6x4xf32>, tensor<4x4xf32>) -> tensor<6x4xf32>
  %c = oneflow.reshape %b : (tensor<6x4xf32>) -> tensor<4x6xf32>
  %t = oneflow.transpose %c {perm = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<4x6xf32>
  oneflow.output "t", %t : tensor<4x6xf32>
  %loss = oneflow.reduce_mean %t {axes = array<i64: 0, 1>} : (tensor<4x6xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  %d = oneflow.input "d" : tensor<2x2xf64>
  %dd = oneflow.matmul %d, %d : (tensor<2x2xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  oneflow.output "dd", %dd : tensor<2x2xf64>
  %i = oneflow.input "i" : tensor<3xi64>
  %ii = oneflow.add %i, %i : (tensor<3xi64>, tensor<3xi64>) -> tensor<3xi64>
  oneflow.output "ii", %ii : tensor<3xi64>
  return
}
