// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=sgd lr=0.1 momentum=0.9 nesterov=true weight-decay=0.01}))' | FileCheck %s --check-prefix=SGD
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=sgd lr=0.5}))' | FileCheck %s --check-prefix=PLAIN
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=adamw lr=0.001 weight-decay=0.1 warmup-steps=10 total-steps=100 min-lr=0.0001 clip-norm=1.0}))' | FileCheck %s --check-prefix=ADAMW
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=sgd lr=0.5 nonfinite=skip}))' | FileCheck %s --check-prefix=SKIP
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=adamw lr=0.001 clip-norm=1.0 nonfinite=skip}))' | FileCheck %s --check-prefix=SKIP-CLIP
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=sgd lr=0.5 nonfinite=report}))' | FileCheck %s --check-prefix=REPORT

// Two gradient outputs become two updates at the end; the loss stays.

// SGD-LABEL: func.func @two_params
// SGD: %[[W:.*]] = oneflow.variable "w"
// SGD: %[[B:.*]] = oneflow.variable "b"
// SGD: oneflow.output "loss"
// SGD-NOT: oneflow.output
// SGD: %[[WM:.*]] = oneflow.variable "w.momentum" {init = #oneflow.init<zeros>} : tensor<4x3xf32>
// SGD: oneflow.sgd_update %[[W]], %{{.*}} states(%[[WM]]) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-02 : f64}
// SGD: %[[BM:.*]] = oneflow.variable "b.momentum"
// SGD: oneflow.sgd_update %[[B]], %{{.*}} states(%[[BM]])
// SGD-NEXT: return

// PLAIN-LABEL: func.func @two_params
// PLAIN-NOT: momentum
// PLAIN: oneflow.sgd_update %{{.*}}, %{{.*}} {lr = 5.000000e-01 : f64} : tensor<4x3xf32>, tensor<4x3xf32>
// PLAIN: oneflow.sgd_update %{{.*}}, %{{.*}} {lr = 5.000000e-01 : f64} : tensor<3xf32>, tensor<3xf32>

// Clipping: the squares of every gradient summed (one pass each), the square root, and
// min(1, clip / (norm + 1e-6)) as every update's scale.

// ADAMW-LABEL: func.func @two_params
// ADAMW: %[[GW:.*]] = oneflow.scalar_mul %{{.*}}, 2.000000e+00
// ADAMW: %[[GB:.*]] = oneflow.reduce_sum
// ADAMW: %[[SW:.*]] = oneflow.reduce_sum_square %[[GW]] {axes = array<i64: 0, 1>}
// ADAMW: %[[SB:.*]] = oneflow.reduce_sum_square %[[GB]] {axes = array<i64: 0>}
// ADAMW: %[[T:.*]] = oneflow.add %[[SW]], %[[SB]]
// ADAMW: %[[N:.*]] = oneflow.sqrt %[[T]]
// ADAMW: %[[N1:.*]] = oneflow.scalar_add %[[N]], 9.99{{.*}}E-7
// ADAMW: %[[INV:.*]] = oneflow.scalar_pow %[[N1]], -1.000000e+00
// ADAMW: %[[R:.*]] = oneflow.scalar_mul %[[INV]], 1.000000e+00
// ADAMW: %[[ONE:.*]] = oneflow.fill 1.000000e+00 : tensor<f32>
// ADAMW: %[[S:.*]] = oneflow.minimum %[[R]], %[[ONE]]
// ADAMW: %[[M:.*]] = oneflow.variable "w.m" {init = #oneflow.init<zeros>}
// ADAMW: %[[V:.*]] = oneflow.variable "w.v" {init = #oneflow.init<zeros>}
// ADAMW: oneflow.adam_update %{{.*}}, %[[GW]] states(%[[M]], %[[V]]) scale(%[[S]]) {decoupled, lr = 1.000000e-03 : f64, min_lr = 1.000000e-04 : f64, total_steps = 100 : i64, warmup_steps = 10 : i64, weight_decay = 1.000000e-01 : f64}
// ADAMW: oneflow.adam_update %{{.*}}, %[[GB]] states(%{{.*}}, %{{.*}}) scale(%[[S]])
// The gradient check: codes 2 (w, the first gradient) and 1 (b), each like
// its variable (the update's layout), and the variables as the step
// begins, codes 4 (w) and 3 (b); their maximum fetched as "nonfinite"
// and, with skip, every update's skip flag (with a scale of 1 without
// clipping, the clip scale with it).

// SKIP-LABEL: func.func @two_params
// SKIP: %[[W:.*]] = oneflow.variable "w"
// SKIP: %[[B:.*]] = oneflow.variable "b"
// SKIP: %[[GW:.*]] = oneflow.scalar_mul %{{.*}}, 2.000000e+00
// SKIP: %[[GB:.*]] = oneflow.reduce_sum
// SKIP: %[[CW:.*]] = oneflow.find_nonfinite %[[GW]] like %[[W]] {codes = array<i64: 2>, labels = ["gradient of 'w'"]} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
// SKIP: %[[VW:.*]] = oneflow.find_nonfinite %[[W]] like %[[W]] {codes = array<i64: 4>, labels = ["variable 'w'"]} : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<f32>
// SKIP: %[[M1:.*]] = oneflow.maximum %[[CW]], %[[VW]]
// SKIP: %[[CB:.*]] = oneflow.find_nonfinite %[[GB]] like %[[B]] {codes = array<i64: 1>, labels = ["gradient of 'b'"]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// SKIP: %[[M2:.*]] = oneflow.maximum %[[M1]], %[[CB]]
// SKIP: %[[VB:.*]] = oneflow.find_nonfinite %[[B]] like %[[B]] {codes = array<i64: 3>, labels = ["variable 'b'"]} : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
// SKIP: %[[FLAG:.*]] = oneflow.maximum %[[M2]], %[[VB]]
// SKIP: oneflow.output "nonfinite", %[[FLAG]] {skips_updates} : tensor<f32>
// SKIP: %[[ONE:.*]] = oneflow.fill 1.000000e+00 : tensor<f32>
// SKIP: oneflow.sgd_update %{{.*}}, %[[GW]] scale(%[[ONE]]) skip(%[[FLAG]]) {lr = 5.000000e-01 : f64}
// SKIP: oneflow.sgd_update %{{.*}}, %[[GB]] scale(%[[ONE]]) skip(%[[FLAG]]) {lr = 5.000000e-01 : f64}

// SKIP-CLIP-LABEL: func.func @two_params
// SKIP-CLIP: %[[S:.*]] = oneflow.minimum
// SKIP-CLIP-COUNT-2: oneflow.maximum
// SKIP-CLIP: %[[FLAG:.*]] = oneflow.maximum
// SKIP-CLIP-NEXT: oneflow.output "nonfinite", %[[FLAG]]
// SKIP-CLIP-NOT: oneflow.fill
// SKIP-CLIP: oneflow.adam_update {{.*}} scale(%[[S]]) skip(%[[FLAG]])
// SKIP-CLIP: oneflow.adam_update {{.*}} scale(%[[S]]) skip(%[[FLAG]])

// REPORT-LABEL: func.func @two_params
// REPORT-COUNT-4: oneflow.find_nonfinite
// REPORT: oneflow.output "nonfinite", %{{.*}} : tensor<f32>
// REPORT-NOT: skip
// REPORT: oneflow.sgd_update %{{.*}}, %{{.*}} {lr = 5.000000e-01 : f64}
func.func @two_params() {
  %x = oneflow.input "x" : tensor<2x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %y = oneflow.matmul %x, %w : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32>
  %z = oneflow.add %y, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %loss = oneflow.reduce_sum %z {axes = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  %gw = oneflow.scalar_mul %w, 2.0 : (tensor<4x3xf32>) -> tensor<4x3xf32>
  oneflow.output "w.grad", %gw {grad_of = "w"} : tensor<4x3xf32>
  %gb = oneflow.reduce_sum %z {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  oneflow.output "b.grad", %gb {grad_of = "b"} : tensor<3xf32>
  return
}

// -----

// States follow their parameter's stated layout.

#p2 = #oneflow.placement<cpu, ranks = [0, 1]>

// SGD-LABEL: func.func @stated_layout
// SGD: oneflow.variable "w.momentum" {init = #oneflow.init<zeros>} : tensor<4x3xf32, #oneflow.global<#cpu2, [S(1)]>>
func.func @stated_layout() {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x3xf32, #oneflow.global<#p2, [S(1)]>>
  %g = oneflow.scalar_mul %w, 2.0 : (tensor<4x3xf32, #oneflow.global<#p2, [S(1)]>>) -> tensor<4x3xf32>
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<4x3xf32>
  return
}

// -----

// Without gradients nothing changes.

// PLAIN-LABEL: func.func @inference
// PLAIN-NOT: update
// PLAIN: oneflow.output "y"
func.func @inference() {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  oneflow.output "y", %w : tensor<3xf32>
  return
}
