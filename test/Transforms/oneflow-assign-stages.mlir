// RUN: of-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(oneflow-assign-stages{stages=2}))' | FileCheck %s
// RUN: of-opt %S/../../examples/gpt/gpt.mlir -pass-pipeline='builtin.module(func.func(oneflow-assign-stages{stages=2 strategy=%S/../../examples/gpt/stages.json}))' | FileCheck %s --check-prefix=LAYERS
// RUN: sed '/^\/\/ -\{5\}/,$d' %s | of-opt -pass-pipeline='builtin.module(func.func(oneflow-assign-stages{stages=4}))' | FileCheck %s --check-prefix=FOUR

// A cut by layers (examples/gpt/stages.json): the variables of layer 1, the
// final norm and the head on stage 1; the ops follow their variables.
// LAYERS:     oneflow.variable "h0.ln1.weight" {{.*}}oneflow.stage = 0
// LAYERS:     oneflow.layer_norm %{{.*}} {{.*}}oneflow.stage = 0
// LAYERS:     oneflow.layer_norm %{{.*}} {{.*}}oneflow.stage = 0
// LAYERS:     oneflow.variable "h1.ln1.weight" {{.*}}oneflow.stage = 1
// LAYERS:     oneflow.layer_norm %{{.*}} {{.*}}oneflow.stage = 1
// LAYERS:     oneflow.sparse_softmax_cross_entropy {{.*}}oneflow.stage = 1

// Four matmuls of equal cost: two per stage, one per stage with four.
// Sources go to the first stage that reads them, the output to its
// operand's.
// CHECK-LABEL: func.func @chain
// CHECK:      oneflow.input "x" {oneflow.stage = 0 : i64}
// CHECK-NEXT: oneflow.variable "w0" {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.variable "w1" {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.variable "w2" {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.variable "w3" {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.reduce_mean {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.output "loss", {{.*}} {oneflow.stage = 1 : i64}
// CHECK-NEXT: return{{$}}
// FOUR-LABEL: func.func @chain
// FOUR-COUNT-2: oneflow.stage = 0 : i64
// FOUR-NEXT:    oneflow.stage = 1 : i64
// FOUR-NEXT:    oneflow.stage = 2 : i64
// FOUR-NEXT:    oneflow.stage = 3 : i64
// FOUR-NEXT:    oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// FOUR-NEXT:    oneflow.matmul {{.*}}oneflow.stage = 1 : i64
// FOUR-NEXT:    oneflow.matmul {{.*}}oneflow.stage = 2 : i64
// FOUR-NEXT:    oneflow.matmul {{.*}}oneflow.stage = 3 : i64
func.func @chain() {
  %x = oneflow.input "x" : tensor<16x32xf32>
  %w0 = oneflow.variable "w0" {init = #oneflow.init<zeros>} : tensor<32x32xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<32x32xf32>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<zeros>} : tensor<32x32xf32>
  %w3 = oneflow.variable "w3" {init = #oneflow.init<zeros>} : tensor<32x32xf32>
  %h0 = oneflow.matmul %x, %w0 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %h1 = oneflow.matmul %h0, %w1 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %h2 = oneflow.matmul %h1, %w2 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %h3 = oneflow.matmul %h2, %w3 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %l = oneflow.reduce_mean %h3 {axes = array<i64: 0, 1>} : (tensor<16x32xf32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}

// -----

// A weight's cast (as oneflow-mixed-precision places it, before the first
// matmul) goes to the stage of the matmul that reads it, and the weight with
// it: the f32 weight crosses the cut, and its gradient is made and summed
// over micro-batches in f32 where the matmul is.
// CHECK-LABEL: func.func @weight_cast
// CHECK:      oneflow.variable "w1" {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.cast {{.*}}oneflow.stage = 1 : i64{{.*}} -> tensor<32x32xbf16>
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// CHECK:      oneflow.matmul {{.*}}oneflow.stage = 1 : i64
func.func @weight_cast() {
  %x = oneflow.input "x" : tensor<16x32xf32>
  %w0 = oneflow.variable "w0" {init = #oneflow.init<zeros>} : tensor<32x32xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<32x32xf32>
  %c1 = oneflow.cast %w1 : (tensor<32x32xf32>) -> tensor<32x32xbf16>
  %h0 = oneflow.matmul %x, %w0 : (tensor<16x32xf32>, tensor<32x32xf32>) -> tensor<16x32xf32>
  %b0 = oneflow.cast %h0 : (tensor<16x32xf32>) -> tensor<16x32xbf16>
  %h1 = oneflow.matmul %b0, %c1 : (tensor<16x32xbf16>, tensor<32x32xbf16>) -> tensor<16x32xbf16>
  %f1 = oneflow.cast %h1 : (tensor<16x32xbf16>) -> tensor<16x32xf32>
  %l = oneflow.reduce_mean %f1 {axes = array<i64: 0, 1>} : (tensor<16x32xf32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}

// -----

// A cut by hand: marked ops keep their stage, the others take the latest
// stage of their operands.
// CHECK-LABEL: func.func @by_hand
// CHECK:      oneflow.relu {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.relu {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.relu {{.*}}oneflow.stage = 1 : i64
func.func @by_hand() {
  %x = oneflow.input "x" : tensor<4xf32>
  %a = oneflow.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = oneflow.relu %a {oneflow.stage = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  %c = oneflow.relu %b : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.output "y", %c : tensor<4xf32>
  return
}

// -----

func.func @out_of_range() {
  %x = oneflow.input "x" : tensor<4xf32>
  // expected-error @+1 {{'oneflow.relu' op is marked for stage 7, but the program has 2 stages}}
  %a = oneflow.relu %x {oneflow.stage = 7 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.output "y", %a : tensor<4xf32>
  return
}

// -----

// expected-error @+1 {{oneflow-assign-stages: cannot cut @one_op into 2 stages of about equal cost: stage 0 gets no op (the program has 1 ops that compute; one op costs more than a stage)}}
func.func @one_op() {
  %x = oneflow.input "x" : tensor<4xf32>
  %a = oneflow.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.output "y", %a : tensor<4xf32>
  return
}

// -----

// The cut weighs the backward pass. Matmuls of 1.25, 1 and 1 units: the
// first reads an input, so its gradient is one matmul (dw), the others'
// two (dx, dw). Forward only, the middle one's midpoint lies past half of
// the total (1.75 of 3.25) and it goes to stage 1; forward and backward
// (2.5, 3 and 3) it lies before (4 of 8.5): stage 0.
// CHECK-LABEL: func.func @backward_weighs
// CHECK:      oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 1 : i64
func.func @backward_weighs() {
  %x = oneflow.input "x" : tensor<256x320xf32>
  %w0 = oneflow.variable "w0" {init = #oneflow.init<zeros>} : tensor<320x256xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<256x256xf32>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<zeros>} : tensor<256x256xf32>
  %h0 = oneflow.matmul %x, %w0 : (tensor<256x320xf32>, tensor<320x256xf32>) -> tensor<256x256xf32>
  %h1 = oneflow.matmul %h0, %w1 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %h2 = oneflow.matmul %h1, %w2 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %l = oneflow.reduce_sum %h2 {axes = array<i64: 0, 1>} : (tensor<256x256xf32>) -> tensor<f32>
  oneflow.output "loss", %l : tensor<f32>
  return
}

// -----

// Without an output named loss (an inference program, or another loss
// name than the pass's) the cut weighs the forward pass alone.
// CHECK-LABEL: func.func @forward_only
// CHECK:      oneflow.matmul {{.*}}oneflow.stage = 0 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 1 : i64
// CHECK-NEXT: oneflow.matmul {{.*}}oneflow.stage = 1 : i64
func.func @forward_only() {
  %x = oneflow.input "x" : tensor<256x320xf32>
  %w0 = oneflow.variable "w0" {init = #oneflow.init<zeros>} : tensor<320x256xf32>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<256x256xf32>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<zeros>} : tensor<256x256xf32>
  %h0 = oneflow.matmul %x, %w0 : (tensor<256x320xf32>, tensor<320x256xf32>) -> tensor<256x256xf32>
  %h1 = oneflow.matmul %h0, %w1 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %h2 = oneflow.matmul %h1, %w2 : (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>
  %l = oneflow.reduce_sum %h2 {axes = array<i64: 0, 1>} : (tensor<256x256xf32>) -> tensor<f32>
  oneflow.output "y", %l : tensor<f32>
  return
}
