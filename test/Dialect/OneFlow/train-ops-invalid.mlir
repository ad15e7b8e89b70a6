// RUN: of-opt %s -split-input-file -verify-diagnostics

func.func @negative_grad_type(%w: tensor<4xf32>, %g: tensor<3xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op gradient of type 'tensor<3xf32>' does not match the parameter's 'tensor<4xf32>'}}
  oneflow.sgd_update %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<3xf32>
  return
}

// -----

func.func @negative_sgd_states(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op has 0 states but needs 1 (the momentum buffer)}}
  oneflow.sgd_update %w, %g {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_adam_states(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.adam_update' op has 1 states but needs 2 (m and v)}}
  oneflow.adam_update %w, %g states(%g) {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_state_type(%w: tensor<4xf32>, %g: tensor<4xf32>, %m: tensor<4xf64>) {
  // expected-error@+1 {{'oneflow.sgd_update' op state #0 of type 'tensor<4xf64>' does not match the parameter's 'tensor<4xf32>'}}
  oneflow.sgd_update %w, %g states(%m) {lr = 0.1 : f64, momentum = 0.5 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf64>
  return
}

// -----

func.func @negative_scale(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op scale must be a rank-0 tensor of 'f32', got 'tensor<4xf32>'}}
  oneflow.sgd_update %w, %g scale(%g) {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_lr(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op learning rate -1 is negative}}
  oneflow.sgd_update %w, %g {lr = -1.0 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_weight_decay(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op weight decay -0.5 is negative}}
  oneflow.sgd_update %w, %g {lr = 1.0 : f64, weight_decay = -0.5 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_steps(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op warmup_steps -1 and total_steps 0 must not be negative}}
  oneflow.sgd_update %w, %g {lr = 1.0 : f64, warmup_steps = -1} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_total_steps(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op total_steps 10 must exceed warmup_steps 10}}
  oneflow.sgd_update %w, %g {lr = 1.0 : f64, warmup_steps = 10, total_steps = 10} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_min_lr(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op min_lr 2 is not in [0, lr = 1]}}
  oneflow.sgd_update %w, %g {lr = 1.0 : f64, min_lr = 2.0 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_momentum(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op momentum 1 is not in [0, 1)}}
  oneflow.sgd_update %w, %g states(%g) {lr = 1.0 : f64, momentum = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_nesterov(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op nesterov needs a positive momentum}}
  oneflow.sgd_update %w, %g {lr = 1.0 : f64, nesterov} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_beta(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.adam_update' op beta2 1 is not in [0, 1)}}
  oneflow.adam_update %w, %g states(%g, %g) {lr = 1.0 : f64, beta2 = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @negative_epsilon(%w: tensor<4xf32>, %g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.adam_update' op epsilon 0 is not positive}}
  oneflow.adam_update %w, %g states(%g, %g) {lr = 1.0 : f64, epsilon = 0.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @moving_average_types(%rm: tensor<16xf32>, %mean: tensor<8xf32>) {
  // expected-error@+1 {{'oneflow.moving_average_update' op value of type 'tensor<8xf32>' does not match the moving average's 'tensor<16xf32>'}}
  oneflow.moving_average_update %rm, %mean {momentum = 0.9 : f64} : tensor<16xf32>, tensor<8xf32>
  return
}

// -----

func.func @moving_average_momentum(%rm: tensor<16xf32>, %mean: tensor<16xf32>) {
  // expected-error@+1 {{'oneflow.moving_average_update' op momentum 1.5 is not in [0, 1]}}
  oneflow.moving_average_update %rm, %mean {momentum = 1.5 : f64} : tensor<16xf32>, tensor<16xf32>
  return
}

// -----

func.func @skip_without_scale(%w: tensor<4xf32>, %s: tensor<f32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op has a skip flag but no scale; a skip comes with a scale (1 without clipping)}}
  oneflow.sgd_update %w, %w skip(%s) {lr = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<f32>
  return
}

// -----

func.func @skip_type(%w: tensor<4xf32>, %s: tensor<f32>, %k: tensor<2xf32>) {
  // expected-error@+1 {{'oneflow.sgd_update' op skip must be a rank-0 tensor of f32, got 'tensor<2xf32>'}}
  oneflow.sgd_update %w, %w scale(%s) skip(%k) {lr = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<2xf32>
  return
}

// -----

func.func @find_nonfinite_code(%g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.find_nonfinite' op code 0 is not in [1, 16777216]}}
  %c = oneflow.find_nonfinite %g {codes = array<i64: 0>, labels = ["g"]} : (tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @find_nonfinite_result(%g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.find_nonfinite' op result must be a rank-0 tensor of f32, got 'tensor<1xf32>'}}
  %c = oneflow.find_nonfinite %g {codes = array<i64: 1>, labels = ["g"]} : (tensor<4xf32>) -> tensor<1xf32>
  return
}

// -----

func.func @find_nonfinite_like(%g: tensor<4xf32>, %w: tensor<5xf32>) {
  // expected-error@+1 {{'oneflow.find_nonfinite' op like #0 of type 'tensor<5xf32>' does not have the shape of x #0's 'tensor<4xf32>'}}
  %c = oneflow.find_nonfinite %g like %w {codes = array<i64: 1>, labels = ["g"]} : (tensor<4xf32>, tensor<5xf32>) -> tensor<f32>
  return
}

// -----

func.func @find_nonfinite_codes(%g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.find_nonfinite' op has 2 codes and 1 labels for 2 tensors}}
  %c = oneflow.find_nonfinite %g, %g {codes = array<i64: 2, 1>, labels = ["g"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @find_nonfinite_like_count(%g: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.find_nonfinite' op has 1 like operands for 2 tensors}}
  %c = oneflow.find_nonfinite %g, %g like %g {codes = array<i64: 2, 1>, labels = ["g", "h"]} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @find_nonfinite_nothing() {
  // expected-error@+1 {{'oneflow.find_nonfinite' op checks no tensor}}
  %c = oneflow.find_nonfinite {codes = array<i64>, labels = []} : () -> tensor<f32>
  return
}
