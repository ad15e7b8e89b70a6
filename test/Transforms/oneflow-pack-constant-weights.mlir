// RUN: of-opt %s -split-input-file -oneflow-pack-constant-weights | FileCheck %s

// A weight nothing writes (inference) is packed once by the kernel; one an
// optimizer updates in place, a `b` that is no variable, and a variable
// read through another op are left alone.
// CHECK-LABEL: func.func @inference
// CHECK: oneflow.matmul %{{.*}}, %[[W:.*]] {constant_b}
// CHECK: oneflow.matmul %{{.*}}, %{{.*}} {constant_b, transpose_b}
// CHECK: oneflow.output "w"
func.func @inference() {
  %x = oneflow.input "x" : tensor<4x8xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<ones>} : tensor<8x16xf32>
  %v = oneflow.variable "v" {init = #oneflow.init<ones>} : tensor<16x16xf32>
  %h = oneflow.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %y = oneflow.matmul %h, %v {transpose_b} : (tensor<4x16xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
  oneflow.output "y", %y : tensor<4x16xf32>
  oneflow.output "w", %w : tensor<8x16xf32>
  return
}

// -----

// CHECK-LABEL: func.func @trained
// CHECK-NOT: constant_b
func.func @trained() {
  %x = oneflow.input "x" : tensor<4x8xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<ones>} : tensor<8x16xf32>
  %y = oneflow.matmul %x, %w : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %t = oneflow.matmul %x, %y {transpose_a} : (tensor<4x8xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  oneflow.sgd_update %w, %t {lr = 0.1 : f64} : tensor<8x16xf32>, tensor<8x16xf32>
  %r = oneflow.relu %w : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %z = oneflow.matmul %x, %r : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  oneflow.output "y", %y : tensor<4x16xf32>
  oneflow.output "z", %z : tensor<4x16xf32>
  return
}
