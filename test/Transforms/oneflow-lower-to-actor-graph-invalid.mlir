// RUN: of-opt %s -split-input-file -oneflow-lower-to-actor-graph -verify-diagnostics
// RUN: of-opt %S/Inputs/empty-module.mlir -oneflow-lower-to-actor-graph=regst-count=0 -verify-diagnostics
// RUN: not of-opt %S/Inputs/empty-module.mlir -oneflow-lower-to-actor-graph=device=tpu 2>&1 | FileCheck %s --check-prefix=DEVICE
// DEVICE: error: oneflow-lower-to-actor-graph: device 'tpu' is not cpu or cuda

// expected-error@+1 {{'func.func' op @negative_arguments takes arguments; programs take data through oneflow.input}}
func.func @negative_arguments(%x: tensor<4xf32>) {
  return
}

// -----

// expected-error@+1 {{'func.func' op @negative_external has no body; only defined programs lower to actors}}
func.func private @negative_external()

// -----

// expected-error@+1 {{'func.func' op @negative_blocks has several blocks; programs have one}}
func.func @negative_blocks() {
  return
^bb1:
  return
}

// -----

func.func @negative_returns() -> tensor<4xf32> {
  %z = oneflow.fill 0.0 : tensor<4xf32>
  // expected-error@+1 {{'func.return' op returns values from @negative_returns; programs give results through oneflow.output}}
  return %z : tensor<4xf32>
}

// -----

func.func @negative_foreign_op() {
  // expected-error@+1 {{'arith.constant' op is not a oneflow op and has no SBP rules (SbpInterface); only those lower to actors}}
  %c = arith.constant 1.0 : f32
  return
}

// -----

func.func @negative_dynamic() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  // expected-error@+1 {{'oneflow.relu' op result #0 of type 'tensor<?x4xf32>' has unknown dimensions; run oneflow-infer-shapes first}}
  %y = oneflow.relu %x : (tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

// Every function is checked before any is lowered: both errors show.
// expected-error@+1 {{'func.func' op @negative_first takes arguments}}
func.func @negative_first(%x: tensor<4xf32>) {
  return
}
// expected-error@+1 {{'func.func' op @negative_second takes arguments}}
func.func @negative_second(%x: tensor<4xf32>) {
  return
}

// -----

func.func @mixed() {
  %x = oneflow.input "x" : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  // expected-error@+1 {{'oneflow.relu' op mixes single-device and global tensors; run oneflow-sbp-propagation first}}
  %y = oneflow.relu %x : (tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>) -> tensor<4xf32>
  return
}

// -----

func.func @two_placements() {
  %x = oneflow.input "x" : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  // expected-error@+1 {{'oneflow.relu' op operand #0 is on #oneflow.placement<cpu, ranks = [0, 1]> but the op runs on #oneflow.placement<cpu, ranks = [2, 3]>; run oneflow-insert-boxing and oneflow-lower-boxing first}}
  %y = oneflow.relu %x : (tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>) -> tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [2, 3]>, [S(0)]>>
  return
}

// -----

func.func @negative_update_not_variable() {
  %w = oneflow.fill 1.0 : tensor<4xf32>
  %g = oneflow.fill 2.0 : tensor<4xf32>
  // expected-error@+1 {{'oneflow.sgd_update' op writes operand #0 in place, but it is not a oneflow.variable's value}}
  oneflow.sgd_update %w, %g {lr = 0.1 : f64} : tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @rank_on_two_kinds() {
  %x = oneflow.input "x" : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  // expected-error@+1 {{'oneflow.input' op puts rank 1 on a cuda device, but another placement puts it on a cpu device; a rank has one device}}
  %y = oneflow.input "y" : tensor<4xf32, #oneflow.global<#oneflow.placement<cuda, ranks = [1, 2]>, [S(0)]>>
  return
}
