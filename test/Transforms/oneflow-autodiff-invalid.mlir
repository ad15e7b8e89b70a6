// RUN: of-opt %s -split-input-file -oneflow-autodiff -verify-diagnostics

// expected-error@+1 {{has no output named 'loss' to differentiate}}
func.func @no_loss() {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  oneflow.output "y", %w : tensor<4xf32>
  return
}

// -----

func.func @loss_not_scalar() {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  // expected-error@+1 {{'oneflow.output' op is the loss and must be a scalar f32 (tensor<f32>), got 'tensor<4xf32>'}}
  oneflow.output "loss", %w : tensor<4xf32>
  return
}

// -----

func.func @loss_not_f32() {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<f64>
  // expected-error@+1 {{'oneflow.output' op is the loss and must be a scalar f32 (tensor<f32>), got 'tensor<f64>'}}
  oneflow.output "loss", %w : tensor<f64>
  return
}

// -----

// conv2d_bn (inference batch_norm folded into the convolution, built by
// oneflow-fuse-conv-bn-act after autodiff) has no gradient rule.
func.func @no_rule(%x: tensor<1x1x3x3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<1x1x1x1xf32>
  %c = oneflow.variable "c" {frozen, init = #oneflow.init<ones>} : tensor<1xf32>
  // expected-error@+1 {{'oneflow.conv2d_bn' op has no gradient rule, but the gradient of 'loss' flows through it}}
  %y = oneflow.conv2d_bn %x, %w, %c, %c, %c, %c : (tensor<1x1x3x3xf32>, tensor<1x1x1x1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x3x3xf32>
  %m = oneflow.reduce_sum %y {axes = array<i64: 0, 1, 2, 3>} : (tensor<1x1x3x3xf32>) -> tensor<f32>
  oneflow.output "loss", %m : tensor<f32>
  return
}

// -----

func.func @layer_norm_statistics(%x: tensor<2x4xf32>) {
  %g = oneflow.variable "g" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  // expected-error@+1 {{'oneflow.layer_norm' op has no gradient through its mean or inv_variance results}}
  %y, %mean, %inv = oneflow.layer_norm %x, %g, %b : (tensor<2x4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf32>, tensor<2xf32>, tensor<2xf32>)
  %s = oneflow.reduce_sum %inv {axes = array<i64: 0>} : (tensor<2xf32>) -> tensor<f32>
  oneflow.output "loss", %s : tensor<f32>
  return
}

// -----

func.func @zero_size_batch() {
  // expected-error@+1 {{'oneflow.input' op of type 'tensor<0x4xf32>' holds no elements (a zero-size batch); a training step needs at least one sample}}
  %x = oneflow.input "x" : tensor<0x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  %y = oneflow.mul %x, %w : (tensor<0x4xf32>, tensor<4xf32>) -> tensor<0x4xf32>
  %s = oneflow.reduce_sum %y {axes = array<i64: 0, 1>} : (tensor<0x4xf32>) -> tensor<f32>
  oneflow.output "loss", %s : tensor<f32>
  return
}
