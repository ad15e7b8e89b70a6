// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-local-batch-statistics{groups=3}))' -verify-diagnostics
// RUN: not of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-local-batch-statistics{groups=0}))' 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: oneflow-local-batch-statistics: groups 0 is not at least 1

func.func @not_dividing() {
  %x = oneflow.input "x" : tensor<8x3xf32>
  %c = oneflow.variable "c" {init = #oneflow.init<ones>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.batch_norm' op statistics_groups 3 does not divide the batch of 8}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training} : (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>)
  oneflow.output "y", %y : tensor<8x3xf32>
  return
}

// -----

func.func @statistics_read() {
  %x = oneflow.input "x" : tensor<6x3xf32>
  %c = oneflow.variable "c" {init = #oneflow.init<ones>} : tensor<3xf32>
  // expected-error@+1 {{'oneflow.batch_norm' op has its batch statistics read (by oneflow.output); with statistics groups they would be one per group}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training} : (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>)
  oneflow.output "mean", %m : tensor<3xf32>
  return
}
