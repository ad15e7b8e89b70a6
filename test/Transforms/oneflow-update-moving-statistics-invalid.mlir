// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-update-moving-statistics))' -verify-diagnostics

func.func @one_per_channel() {
  %x = oneflow.input "x" : tensor<1x3xf32>
  %g = oneflow.variable "g" {init = #oneflow.init<ones>} : tensor<3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %rm = oneflow.variable "rm" {frozen, init = #oneflow.init<zeros>} : tensor<3xf32>
  %rv = oneflow.variable "rv" {frozen, init = #oneflow.init<ones>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.batch_norm' op normalizes 1 element per channel in training; its running variance (unbiased) is undefined}}
  %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training, axis = -1 : i64} : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>)
  oneflow.output "y", %y : tensor<1x3xf32>
  return
}

// -----

func.func @unknown_batch(%x: tensor<?x3xf32>) {
  %g = oneflow.variable "g" {init = #oneflow.init<ones>} : tensor<3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %rm = oneflow.variable "rm" {frozen, init = #oneflow.init<zeros>} : tensor<3xf32>
  %rv = oneflow.variable "rv" {frozen, init = #oneflow.init<ones>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.batch_norm' op has an input of unknown dimensions; run oneflow-infer-shapes before updating its running statistics}}
  %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training, axis = -1 : i64} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>)
  oneflow.output "y", %y : tensor<?x3xf32>
  return
}
