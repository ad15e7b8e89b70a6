// RUN: of-opt %s -split-input-file -oneflow-sbp-propagation | FileCheck %s

// Data parallelism: the batch is split, the unstated weight broadcast, and
// the matmul takes OneFlow's first signature, S(0), B -> S(0).

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// CHECK-LABEL: func.func @data_parallel_matmul
func.func @data_parallel_matmul() {
  %x = oneflow.input "x" : tensor<16x8xf32, #oneflow.global<#p4, [S(0)]>>
  // CHECK: %[[W:.*]] = oneflow.variable "w" {{.*}} : tensor<8x4xf32, #oneflow.global<#cpu4, [B]>>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<8x4xf32>
  // CHECK: oneflow.matmul %{{.*}}, %[[W]] {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(0)]>, #oneflow.global<#cpu4, [B]>]}
  // CHECK-SAME: -> tensor<16x4xf32, #oneflow.global<#cpu4, [S(0)]>>
  %y = oneflow.matmul %x, %w : (tensor<16x8xf32, #oneflow.global<#p4, [S(0)]>>, tensor<8x4xf32>) -> tensor<16x4xf32>
  // CHECK: oneflow.output "y", %{{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(0)]>]}
  oneflow.output "y", %y : tensor<16x4xf32>
  return
}

// -----

// Megatron MLP: W1 split by columns, W2 by rows. Every op runs on what it is
// given until the block output, stated B, turns the row-parallel partial
// sum into a broadcast: the one P -> B of the forward pass.

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// CHECK-LABEL: func.func @megatron_mlp
func.func @megatron_mlp() {
  %x = oneflow.input "x" : tensor<16x8xf32, #oneflow.global<#p4, [B]>>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<8x32xf32, #oneflow.global<#p4, [S(1)]>>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<zeros>} : tensor<32x8xf32, #oneflow.global<#p4, [S(0)]>>
  // CHECK: oneflow.matmul {{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [B]>, #oneflow.global<#cpu4, [S(1)]>]}
  // CHECK-SAME: -> tensor<16x32xf32, #oneflow.global<#cpu4, [S(1)]>>
  %h = oneflow.matmul %x, %w1 : (tensor<16x8xf32, #oneflow.global<#p4, [B]>>, tensor<8x32xf32, #oneflow.global<#p4, [S(1)]>>) -> tensor<16x32xf32>
  // CHECK: oneflow.gelu {{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(1)]>]}
  // CHECK-SAME: -> tensor<16x32xf32, #oneflow.global<#cpu4, [S(1)]>>
  %a = oneflow.gelu %h : (tensor<16x32xf32>) -> tensor<16x32xf32>
  // CHECK: oneflow.matmul {{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(1)]>, #oneflow.global<#cpu4, [S(0)]>]}
  // CHECK-SAME: -> tensor<16x8xf32, #oneflow.global<#cpu4, [P]>>
  %o = oneflow.matmul %a, %w2 : (tensor<16x32xf32>, tensor<32x8xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<16x8xf32>
  // CHECK: oneflow.add {{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [B]>, #oneflow.global<#cpu4, [B]>]}
  // CHECK-SAME: -> tensor<16x8xf32, #oneflow.global<#cpu4, [B]>>
  %y = oneflow.add %o, %x : (tensor<16x8xf32>, tensor<16x8xf32, #oneflow.global<#p4, [B]>>) -> tensor<16x8xf32, #oneflow.global<#p4, [B]>>
  oneflow.output "y", %y : tensor<16x8xf32, #oneflow.global<#p4, [B]>>
  return
}

// -----

// Sources without a stated layout: inputs split their batch on every mesh
// axis that still gives each device a row; variables are broadcast. Both go
// to the function's first placement.

#p22 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// CHECK-LABEL: func.func @source_defaults
func.func @source_defaults() {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32, #oneflow.global<#p22, [B, S(0)]>>
  // CHECK: oneflow.input "six" : tensor<6x4xf32, #oneflow.global<#cpu2x2, [S(0), S(0)]>>
  %a = oneflow.input "six" : tensor<6x4xf32>
  // CHECK: oneflow.input "three" : tensor<3x4xf32, #oneflow.global<#cpu2x2, [S(0), B]>>
  %b = oneflow.input "three" : tensor<3x4xf32>
  // CHECK: oneflow.input "one" : tensor<1x4xf32, #oneflow.global<#cpu2x2, [B, B]>>
  %c = oneflow.input "one" : tensor<1x4xf32>
  // CHECK: oneflow.variable "v" {{.*}} : tensor<4x4xf32, #oneflow.global<#cpu2x2, [B, B]>>
  %v = oneflow.variable "v" {init = #oneflow.init<zeros>} : tensor<4x4xf32>
  return
}

// -----

// A stated result placement moves the op there: its operand is asked for
// on the new placement (a transfer for oneflow-insert-boxing).

#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
#q2 = #oneflow.placement<cpu, ranks = [2, 3]>

// CHECK-LABEL: func.func @stated_placement
func.func @stated_placement() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p2, [S(0)]>>
  // CHECK: oneflow.relu {{.*}} {oneflow.operand_layouts = [#oneflow.global<#[[Q:.*]], [S(0)]>]}
  // CHECK-SAME: -> tensor<8x4xf32, #oneflow.global<#[[Q]], [S(0)]>>
  %y = oneflow.relu %x : (tensor<8x4xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<8x4xf32, #oneflow.global<#q2, [S(0)]>>
  // CHECK: oneflow.exp {{.*}} -> tensor<8x4xf32, #oneflow.global<#[[Q]], [S(0)]>>
  %z = oneflow.exp %y : (tensor<8x4xf32, #oneflow.global<#q2, [S(0)]>>) -> tensor<8x4xf32>
  return
}

// -----

// No candidate matches what it is given: the cheapest wins. Making both
// operands partial would be a local copy now but an all-reduce later
// (the partial penalty); an all-to-all of one operand is cheaper.

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// CHECK-LABEL: func.func @cheapest_when_nothing_matches
func.func @cheapest_when_nothing_matches() {
  %a = oneflow.input "a" : tensor<16x16xf32, #oneflow.global<#p4, [S(0)]>>
  %b = oneflow.input "b" : tensor<16x16xf32, #oneflow.global<#p4, [S(1)]>>
  // CHECK: oneflow.add {{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(0)]>, #oneflow.global<#cpu4, [S(0)]>]}
  // CHECK-SAME: -> tensor<16x16xf32, #oneflow.global<#cpu4, [S(0)]>>
  %c = oneflow.add %a, %b : (tensor<16x16xf32, #oneflow.global<#p4, [S(0)]>>, tensor<16x16xf32, #oneflow.global<#p4, [S(1)]>>) -> tensor<16x16xf32>
  return
}

// -----

// A function that states no layout is left alone.

// CHECK-LABEL: func.func @no_layout
func.func @no_layout() {
  // CHECK: oneflow.input "x" : tensor<8x4xf32>
  %x = oneflow.input "x" : tensor<8x4xf32>
  // CHECK: oneflow.relu %{{.*}} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  %y = oneflow.relu %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

// A signature pinned by hand (operand layouts and result layouts stated) is
// kept, even where another would be cheaper.
// CHECK-LABEL: func.func @pinned
// CHECK:         oneflow.relu %{{.*}} {oneflow.operand_layouts = [#oneflow.global<#{{.*}}, [B]>]}
func.func @pinned() {
  %x = oneflow.input "x" : tensor<4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %y = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>]} : (tensor<4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>) -> tensor<4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>
  oneflow.output "y", %y : tensor<4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>
  return
}

// -----

// An update op writes its variable and states in place, so they are never
// boxed: the partial gradient is all-reduced for a broadcast parameter
// (rather than reduce-scattered to S(0) with the parameter sliced), and
// reduce-scattered for a split one.

#p2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @in_place_update
func.func @in_place_update() {
  %x = oneflow.input "x" : tensor<4x8xf32, #oneflow.global<#p2, [S(0)]>>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<8xf32>
  %v = oneflow.variable "v" {init = #oneflow.init<zeros>} : tensor<8xf32, #oneflow.global<#p2, [S(0)]>>
  %g = oneflow.reduce_sum %x {axes = array<i64: 0>} : (tensor<4x8xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<8xf32>
  // CHECK: oneflow.sgd_update {{.*}} {lr = 1.000000e-01 : f64, oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>, #oneflow.global<#cpu2, [B]>]}
  oneflow.sgd_update %w, %g {lr = 0.1 : f64} : tensor<8xf32>, tensor<8xf32>
  // CHECK: oneflow.sgd_update {{.*}} {lr = 1.000000e-01 : f64, oneflow.operand_layouts = [#oneflow.global<#cpu2, [S(0)]>, #oneflow.global<#cpu2, [S(0)]>]}
  oneflow.sgd_update %v, %g {lr = 0.1 : f64} : tensor<8xf32, #oneflow.global<#p2, [S(0)]>>, tensor<8xf32>
  return
}

// -----

// A tie: all-gathering the S(0) activation (B, S(1) -> S(1)) moves as many
// bytes as all-gathering the S(1) weight (S(0), B -> S(0)), and the compute
// splits alike. The variable keeps its stated layout; the activation moves.

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// CHECK-LABEL: func.func @tie_keeps_variable_layout
func.func @tie_keeps_variable_layout() {
  %x = oneflow.input "x" : tensor<16x8xf32, #oneflow.global<#p4, [S(0)]>>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<8x16xf32, #oneflow.global<#p4, [S(1)]>>
  // CHECK: oneflow.matmul {{.*}} {oneflow.operand_layouts = [#oneflow.global<#cpu4, [B]>, #oneflow.global<#cpu4, [S(1)]>]}
  // CHECK-SAME: -> tensor<16x16xf32, #oneflow.global<#cpu4, [S(1)]>>
  %y = oneflow.matmul %x, %w : (tensor<16x8xf32, #oneflow.global<#p4, [S(0)]>>, tensor<8x16xf32, #oneflow.global<#p4, [S(1)]>>) -> tensor<16x16xf32>
  oneflow.output "y", %y : tensor<16x16xf32>
  return
}

// -----

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// An operand layout pinned by hand (oneflow.operand_layouts) is the one
// the op takes, although the producer's S(0) matches another signature:
// the op runs S(1) -> S(1) and insert-boxing moves x.
// CHECK-LABEL: func.func @pinned_operand
// CHECK: oneflow.relu %{{.*}} {oneflow.operand_layouts = [#oneflow.global<#{{.*}}, [S(1)]>]} : {{.*}} -> tensor<8x4xf32, #oneflow.global<#{{.*}}, [S(1)]>>
func.func @pinned_operand() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  %y = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#p4, [S(1)]>]} : (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<8x4xf32>
  oneflow.output "y", %y : tensor<8x4xf32>
  return
}
