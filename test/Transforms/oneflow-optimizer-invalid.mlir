// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer))' -verify-diagnostics

func.func @negative_no_variable(%g: tensor<3xf32>) {
  // expected-error@+1 {{'oneflow.output' op is the gradient of 'w', which names no oneflow.variable in @negative_no_variable}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}

// -----

func.func @negative_not_string(%g: tensor<3xf32>) {
  // expected-error@+1 {{'oneflow.output' op has a grad_of that is not a string}}
  oneflow.output "w.grad", %g {grad_of = 1} : tensor<3xf32>
  return
}

// -----

func.func @negative_frozen(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>, frozen} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.output' op is the gradient of frozen variable 'w'}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}

// -----

func.func @negative_int_variable(%g: tensor<3xi32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xi32>
  // expected-error@+1 {{'oneflow.output' op is the gradient of variable 'w' of type 'tensor<3xi32>', which is not a float tensor}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xi32>
  return
}

// -----

func.func @negative_grad_type(%g: tensor<4xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.output' op gradient of type 'tensor<4xf32>' does not match variable 'w' of type 'tensor<3xf32>'}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<4xf32>
  return
}

// -----

func.func @negative_second_grad(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.output' op is a second gradient of variable 'w'}}
  oneflow.output "w.grad2", %g {grad_of = "w"} : tensor<3xf32>
  return
}
