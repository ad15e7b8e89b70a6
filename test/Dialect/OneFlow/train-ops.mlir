// RUN: of-opt %s | of-opt | FileCheck %s
// RUN: of-opt %s -test-oneflow-print-sbp-signatures -verify-diagnostics -o /dev/null

// Update ops round-trip: states and scale are optional groups.

// CHECK-LABEL: func.func @updates
func.func @updates(%w: tensor<4x6xf32>, %g: tensor<4x6xf32>, %m: tensor<4x6xf32>, %v: tensor<4x6xf32>, %s: tensor<f32>) {
  // CHECK: oneflow.sgd_update %{{.*}}, %{{.*}} {lr = 1.000000e-01 : f64} : tensor<4x6xf32>, tensor<4x6xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> | S(1), S(1) ->}}
  oneflow.sgd_update %w, %g {lr = 0.1 : f64} : tensor<4x6xf32>, tensor<4x6xf32>
  // CHECK: oneflow.sgd_update %{{.*}}, %{{.*}} states(%{{.*}}) scale(%{{.*}}) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov}
  // expected-remark@+1 {{sbp: S(0), S(0), S(0), B -> | S(1), S(1), S(1), B ->}}
  oneflow.sgd_update %w, %g states(%m) scale(%s) {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov} : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>
  // CHECK: oneflow.adam_update %{{.*}}, %{{.*}} states(%{{.*}}, %{{.*}}) {decoupled, lr = 1.000000e-03 : f64, total_steps = 100 : i64, warmup_steps = 10 : i64, weight_decay = 1.000000e-02 : f64}
  // expected-remark@+1 {{sbp: S(0), S(0), S(0), S(0) -> | S(1), S(1), S(1), S(1) ->}}
  oneflow.adam_update %w, %g states(%m, %v) {lr = 1.0e-3 : f64, weight_decay = 0.01 : f64, decoupled, warmup_steps = 10, total_steps = 100} : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  // CHECK: oneflow.adam_update %{{.*}}, %{{.*}} states(%{{.*}}, %{{.*}}) scale(%{{.*}}) skip(%{{.*}}) {lr = 1.000000e-03 : f64}
  // expected-remark@+1 {{sbp: S(0), S(0), S(0), S(0), B, B -> | S(1), S(1), S(1), S(1), B, B ->}}
  oneflow.adam_update %w, %g states(%m, %v) scale(%s) skip(%s) {lr = 1.0e-3 : f64} : tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<f32>, tensor<f32>
  return
}

// The gradient check: a split operand leaves P(max), each rank's piece its
// own flag.

// CHECK-LABEL: func.func @find_nonfinite
func.func @find_nonfinite(%g: tensor<4x6xf32>, %b: tensor<6xbf16>) {
  // CHECK: oneflow.find_nonfinite %{{.*}} {codes = array<i64: 3>, labels = ["gradient of 'w'"]} : (tensor<4x6xf32>) -> tensor<f32>
  // expected-remark@+1 {{sbp: S(0) -> P(max) | S(1) -> P(max)}}
  %c = oneflow.find_nonfinite %g {codes = array<i64: 3>, labels = ["gradient of 'w'"]} : (tensor<4x6xf32>) -> tensor<f32>
  // expected-remark@+1 {{sbp: S(0) -> P(max)}}
  %d = oneflow.find_nonfinite %b {codes = array<i64: 1>, labels = ["b"]} : (tensor<6xbf16>) -> tensor<f32>
  // Like a tensor of its shape: split with it.
  // CHECK: oneflow.find_nonfinite %{{.*}} like %{{.*}} {codes = array<i64: 2>, labels = ["g"]} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  // expected-remark@+1 {{sbp: S(0), S(0) -> P(max) | S(1), S(1) -> P(max)}}
  %e = oneflow.find_nonfinite %g like %g {codes = array<i64: 2>, labels = ["g"]} : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<f32>
  // Several tensors (as oneflow-fuse-nonfinite-checks makes them): one is
  // split at a time, the others repeat their codes on every rank.
  // CHECK: oneflow.find_nonfinite %{{.*}}, %{{.*}} {codes = array<i64: 2, 1>, labels = ["g", "b"]} : (tensor<4x6xf32>, tensor<6xbf16>) -> tensor<f32>
  // expected-remark@+1 {{sbp: S(0), B -> P(max) | S(1), B -> P(max) | B, S(0) -> P(max)}}
  %f = oneflow.find_nonfinite %g, %b {codes = array<i64: 2, 1>, labels = ["g", "b"]} : (tensor<4x6xf32>, tensor<6xbf16>) -> tensor<f32>
  return
}

// The moving average of batch norm's running statistics: element-wise, no
// results.

// CHECK-LABEL: func.func @moving_average
func.func @moving_average(%rm: tensor<16xf32>, %mean: tensor<16xf32>) {
  // CHECK: oneflow.moving_average_update %{{.*}}, %{{.*}} {momentum = 9.000000e-01 : f64} : tensor<16xf32>, tensor<16xf32>
  // expected-remark@+1 {{sbp: S(0), S(0) ->}}
  oneflow.moving_average_update %rm, %mean {momentum = 0.9 : f64} : tensor<16xf32>, tensor<16xf32>
  return
}
