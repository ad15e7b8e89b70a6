// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-update-moving-statistics))' | FileCheck %s

// A training batch norm with variable statistics: the moving mean takes the
// batch mean, the moving variance the unbiased batch variance
// (inv^-2 - eps) * n / (n - 1), n = 4 * 3 * 3 = 36, after everything else.

// CHECK-LABEL: func.func @training
// CHECK: %[[RM:.*]] = oneflow.variable "bn.running_mean"
// CHECK: %[[RV:.*]] = oneflow.variable "bn.running_var"
// CHECK: %{{.*}}, %[[MEAN:.*]], %[[INV:.*]] = oneflow.batch_norm
// CHECK: oneflow.output "y"
// CHECK-NEXT: %[[P:.*]] = oneflow.scalar_pow %[[INV]], -2.000000e+00
// CHECK-NEXT: %[[B:.*]] = oneflow.scalar_add %[[P]], -1.000000e-03
// CHECK-NEXT: %[[U:.*]] = oneflow.scalar_mul %[[B]], 1.0285714285714285
// CHECK-NEXT: oneflow.moving_average_update %[[RM]], %[[MEAN]] {momentum = 8.000000e-01 : f64} : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: oneflow.moving_average_update %[[RV]], %[[U]] {momentum = 8.000000e-01 : f64} : tensor<2xf32>, tensor<2xf32>
// CHECK-NEXT: return
func.func @training() {
  %x = oneflow.input "x" : tensor<4x2x3x3xf32>
  %g = oneflow.variable "bn.weight" {init = #oneflow.init<ones>} : tensor<2xf32>
  %b = oneflow.variable "bn.bias" {init = #oneflow.init<zeros>} : tensor<2xf32>
  %rm = oneflow.variable "bn.running_mean" {frozen, init = #oneflow.init<zeros>} : tensor<2xf32>
  %rv = oneflow.variable "bn.running_var" {frozen, init = #oneflow.init<ones>} : tensor<2xf32>
  %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training, momentum = 0.8 : f64, epsilon = 1.0e-3 : f64} : (tensor<4x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4x2x3x3xf32>, tensor<2xf32>, tensor<2xf32>)
  oneflow.output "y", %y : tensor<4x2x3x3xf32>
  return
}

// -----

// The channels on the last axis: n = 6.

// CHECK-LABEL: func.func @last_axis
// CHECK: oneflow.scalar_mul %{{.*}}, 1.2
// CHECK: oneflow.moving_average_update
// CHECK: oneflow.moving_average_update
func.func @last_axis() {
  %x = oneflow.input "x" : tensor<6x3xf32>
  %g = oneflow.variable "g" {init = #oneflow.init<ones>} : tensor<3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %rm = oneflow.variable "rm" {frozen, init = #oneflow.init<zeros>} : tensor<3xf32>
  %rv = oneflow.variable "rv" {frozen, init = #oneflow.init<ones>} : tensor<3xf32>
  %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training, axis = -1 : i64} : (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>)
  oneflow.output "y", %y : tensor<6x3xf32>
  return
}

// -----

// Inference, and statistics that are not variables: nothing to update.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: moving_average_update
// CHECK: return
func.func @left_alone() {
  %x = oneflow.input "x" : tensor<6x3xf32>
  %g = oneflow.variable "g" {init = #oneflow.init<ones>} : tensor<3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %rm = oneflow.variable "rm" {frozen, init = #oneflow.init<zeros>} : tensor<3xf32>
  %rv = oneflow.variable "rv" {frozen, init = #oneflow.init<ones>} : tensor<3xf32>
  %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {axis = -1 : i64} : (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>)
  %c = oneflow.constant dense<1.0> : tensor<3xf32>
  %y2, %mean2, %inv2 = oneflow.batch_norm %x, %g, %b, %c, %c {training, axis = -1 : i64} : (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>)
  oneflow.output "y", %y : tensor<6x3xf32>
  oneflow.output "y2", %y2 : tensor<6x3xf32>
  return
}
