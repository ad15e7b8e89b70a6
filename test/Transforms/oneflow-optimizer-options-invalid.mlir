// Errors that depend on the pass options: one program per option set.
//
// RUN: split-file %s %t
// RUN: of-opt %t/kind.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=lamb}))' -verify-diagnostics
// RUN: of-opt %t/clip.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{clip-norm=-1}))' -verify-diagnostics
// RUN: of-opt %t/adam-momentum.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=adam momentum=0.9}))' -verify-diagnostics
// RUN: of-opt %t/lr.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{lr=-0.1}))' -verify-diagnostics
// RUN: of-opt %t/beta.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{kind=adam beta1=1.5}))' -verify-diagnostics
// RUN: of-opt %t/schedule.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{warmup-steps=5 total-steps=3}))' -verify-diagnostics
// RUN: of-opt %t/name.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{momentum=0.9}))' -verify-diagnostics
// RUN: of-opt %t/nonfinite.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{nonfinite=maybe}))' -verify-diagnostics
// RUN: of-opt %t/nonfinite-taken.mlir -pass-pipeline='builtin.module(func.func(oneflow-optimizer{nonfinite=report}))' -verify-diagnostics

//--- kind.mlir
// expected-error@+1 {{unknown optimizer kind 'lamb'; expected sgd, adam or adamw}}
func.func @negative_kind() {
  return
}

//--- clip.mlir
// expected-error@+1 {{clip-norm -1 is negative}}
func.func @negative_clip() {
  return
}

//--- adam-momentum.mlir
// expected-error@+1 {{momentum and nesterov are options of sgd, not adam}}
func.func @negative_adam_momentum() {
  return
}

//--- lr.mlir
func.func @negative_lr(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.sgd_update' op learning rate -0.1 is negative}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}

//--- beta.mlir
func.func @negative_beta(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.adam_update' op beta1 1.5 is not in [0, 1)}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}

//--- schedule.mlir
func.func @negative_schedule(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.sgd_update' op total_steps 3 must exceed warmup_steps 5}}
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}

//--- name.mlir
func.func @negative_state_name_taken(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.variable' op takes the name 'w.momentum' that the optimizer needs for a state of 'w'}}
  %m = oneflow.variable "w.momentum" {init = #oneflow.init<zeros>} : tensor<3xf32>
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}

//--- nonfinite.mlir
// expected-error@+1 {{unknown nonfinite 'maybe'; expected off, report or skip}}
func.func @unknown_nonfinite() {
  return
}

//--- nonfinite-taken.mlir
func.func @nonfinite_output_taken(%g: tensor<3xf32>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.output' op takes the name 'nonfinite' that oneflow-optimizer needs for its check of the gradients (nonfinite=report)}}
  oneflow.output "nonfinite", %g : tensor<3xf32>
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<3xf32>
  return
}
