// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=dp devices=4}))' | FileCheck %s --check-prefix=DP
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=tp devices=4}))' | FileCheck %s --check-prefix=TP
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=hybrid devices=4}))' | FileCheck %s --check-prefix=HYBRID
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=zero devices=4}))' | FileCheck %s --check-prefix=ZERO
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=%S/Inputs/strategy-2x2.json devices=4}))' | FileCheck %s --check-prefix=FILE
// The same layouts on GPUs: the placement's device kind.
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-apply-strategy{strategy=dp devices=4 device=cuda}))' | FileCheck %s --check-prefix=CUDA
// CUDA: #oneflow.placement<cuda, ranks = [0, 1, 2, 3]>

// An MLP after oneflow-optimizer (SGD with momentum): inputs and variables
// get layouts, momentum buffers their parameter's, the rest is left to
// propagation.

func.func @mlp(%g1: tensor<4x8xf32>, %g2: tensor<8xf32>, %g3: tensor<8x2xf32>, %g4: tensor<2xf32>) {
  %x = oneflow.input "images" : tensor<8x4xf32>
  %y = oneflow.input "labels" : tensor<8xi64>
  %w1 = oneflow.variable "fc1.weight" {init = #oneflow.init<zeros>} : tensor<4x8xf32>
  %b1 = oneflow.variable "fc1.bias" {init = #oneflow.init<zeros>} : tensor<8xf32>
  %w2 = oneflow.variable "fc2.weight" {init = #oneflow.init<zeros>} : tensor<8x2xf32>
  %b2 = oneflow.variable "fc2.bias" {init = #oneflow.init<zeros>} : tensor<2xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %hb = oneflow.add %h, %b1 : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %a = oneflow.relu %hb : (tensor<8x8xf32>) -> tensor<8x8xf32>
  %o = oneflow.matmul %a, %w2 : (tensor<8x8xf32>, tensor<8x2xf32>) -> tensor<8x2xf32>
  %logits = oneflow.add %o, %b2 : (tensor<8x2xf32>, tensor<2xf32>) -> tensor<8x2xf32>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %y : (tensor<8x2xf32>, tensor<8xi64>) -> (tensor<8x2xf32>, tensor<8xf32>)
  %mean = oneflow.reduce_mean %loss {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  oneflow.output "loss", %mean : tensor<f32>
  %m1 = oneflow.variable "fc1.weight.momentum" {init = #oneflow.init<zeros>} : tensor<4x8xf32>
  oneflow.sgd_update %w1, %g1 states(%m1) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
  %m2 = oneflow.variable "fc1.bias.momentum" {init = #oneflow.init<zeros>} : tensor<8xf32>
  oneflow.sgd_update %b1, %g2 states(%m2) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>
  %m3 = oneflow.variable "fc2.weight.momentum" {init = #oneflow.init<zeros>} : tensor<8x2xf32>
  oneflow.sgd_update %w2, %g3 states(%m3) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<8x2xf32>, tensor<8x2xf32>, tensor<8x2xf32>
  %m4 = oneflow.variable "fc2.bias.momentum" {init = #oneflow.init<zeros>} : tensor<2xf32>
  oneflow.sgd_update %b2, %g4 states(%m4) {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
  return
}

// DP: #[[P:.*]] = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
// DP-LABEL: func.func @mlp
// DP-SAME: tensor<4x8xf32>
// DP: oneflow.input "images" : tensor<8x4xf32, #oneflow.global<#[[P]], [S(0)]>>
// DP: oneflow.input "labels" : tensor<8xi64, #oneflow.global<#[[P]], [S(0)]>>
// DP: oneflow.variable "fc1.weight" {{.*}} : tensor<4x8xf32, #oneflow.global<#[[P]], [B]>>
// DP: oneflow.variable "fc1.bias" {{.*}} [B]>>
// DP: oneflow.variable "fc2.weight" {{.*}} [B]>>
// DP: oneflow.variable "fc2.bias" {{.*}} [B]>>
// DP: oneflow.matmul {{.*}} -> tensor<8x8xf32>{{$}}
// DP: oneflow.variable "fc1.weight.momentum" {{.*}} [B]>>

// Megatron: fc1 by columns (its bias too), fc2 by rows (its bias whole);
// inputs whole; momentum buffers as their parameters.
// TP-LABEL: func.func @mlp
// TP: oneflow.input "images" : {{.*}} [B]>>
// TP: oneflow.input "labels" : {{.*}} [B]>>
// TP: oneflow.variable "fc1.weight" {{.*}} [S(1)]>>
// TP: oneflow.variable "fc1.bias" {{.*}} [S(0)]>>
// TP: oneflow.variable "fc2.weight" {{.*}} [S(0)]>>
// TP: oneflow.variable "fc2.bias" {{.*}} [B]>>
// TP: oneflow.variable "fc1.weight.momentum" {{.*}} [S(1)]>>
// TP: oneflow.variable "fc1.bias.momentum" {{.*}} [S(0)]>>
// TP: oneflow.variable "fc2.weight.momentum" {{.*}} [S(0)]>>
// TP: oneflow.variable "fc2.bias.momentum" {{.*}} [B]>>

// HYBRID: #[[P:.*]] = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
// HYBRID-LABEL: func.func @mlp
// HYBRID: oneflow.input "images" : tensor<8x4xf32, #oneflow.global<#[[P]], [S(0), B]>>
// HYBRID: oneflow.variable "fc1.weight" {{.*}} [B, S(1)]>>
// HYBRID: oneflow.variable "fc1.bias" {{.*}} [B, S(0)]>>
// HYBRID: oneflow.variable "fc2.weight" {{.*}} [B, S(0)]>>
// HYBRID: oneflow.variable "fc2.bias" {{.*}} [B, B]>>
// HYBRID: oneflow.variable "fc2.weight.momentum" {{.*}} [B, S(0)]>>

// ZeRO: variables whose dimension 0 divides by 4 are split on it; every
// reader but the update reads a gathered copy; states are split too.
// ZERO-LABEL: func.func @mlp
// ZERO: %[[W1:.*]] = oneflow.variable "fc1.weight" {{.*}} [S(0)]>>
// ZERO-NEXT: %[[W1B:.*]] = oneflow.boxing %[[W1]] : {{.*}} [S(0)]>> -> {{.*}} [B]>>
// ZERO: %[[B1:.*]] = oneflow.variable "fc1.bias" {{.*}} [S(0)]>>
// ZERO-NEXT: %[[B1B:.*]] = oneflow.boxing %[[B1]]
// ZERO: %[[W2:.*]] = oneflow.variable "fc2.weight" {{.*}} [S(0)]>>
// ZERO-NEXT: oneflow.boxing %[[W2]]
// ZERO: %[[B2:.*]] = oneflow.variable "fc2.bias" {{.*}} [B]>>
// ZERO-NOT: oneflow.boxing
// ZERO: oneflow.matmul %{{.*}}, %[[W1B]]
// ZERO: oneflow.add %{{.*}}, %[[B1B]]
// ZERO: %[[M1:.*]] = oneflow.variable "fc1.weight.momentum" {{.*}} [S(0)]>>
// ZERO: oneflow.sgd_update %[[W1]], %{{.*}} states(%[[M1]])
// ZERO: oneflow.variable "fc2.bias.momentum" {{.*}} [B]>>
// ZERO: oneflow.sgd_update %[[B2]],

// A strategy file: the first matching rule wins, defaults for the rest.
// FILE: #[[P:.*]] = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
// FILE-LABEL: func.func @mlp
// FILE: oneflow.input "images" : {{.*}} [S(0), B]>>
// FILE: oneflow.variable "fc1.weight" {{.*}} [B, S(0)]>>
// FILE: oneflow.variable "fc1.bias" {{.*}} [B, S(0)]>>
// FILE: oneflow.variable "fc2.weight" {{.*}} [S(1), B]>>
// FILE: oneflow.variable "fc2.bias" {{.*}} [B, B]>>
// FILE: oneflow.variable "fc2.weight.momentum" {{.*}} [S(1), B]>>

// -----

// A GPT block: the embedding table by rows, qkv and fc1 by columns, the
// attention output and fc2 by rows, layer norms whole. A weight used
// transposed ((out, in), `transpose_b`) is split on the other axis.

func.func @gpt_block(%ids: tensor<8xi64>) {
  %ids0 = oneflow.input "ids" : tensor<8xi64>
  %wte = oneflow.variable "wte" {init = #oneflow.init<zeros>} : tensor<32x16xf32>
  %g = oneflow.variable "ln.weight" {init = #oneflow.init<ones>} : tensor<16xf32>
  %bb = oneflow.variable "ln.bias" {init = #oneflow.init<zeros>} : tensor<16xf32>
  %wqkv = oneflow.variable "attn.qkv.weight" {init = #oneflow.init<zeros>} : tensor<16x48xf32>
  %bqkv = oneflow.variable "attn.qkv.bias" {init = #oneflow.init<zeros>} : tensor<48xf32>
  %wo = oneflow.variable "attn.out.weight" {init = #oneflow.init<zeros>} : tensor<16x16xf32>
  %w1 = oneflow.variable "mlp.fc1.weight" {init = #oneflow.init<zeros>} : tensor<64x16xf32>
  %w2 = oneflow.variable "mlp.fc2.weight" {init = #oneflow.init<zeros>} : tensor<64x16xf32>
  %b2 = oneflow.variable "mlp.fc2.bias" {init = #oneflow.init<zeros>} : tensor<16xf32>
  %x = oneflow.gather %wte, %ids0 : (tensor<32x16xf32>, tensor<8xi64>) -> tensor<8x16xf32>
  %n, %mean, %inv = oneflow.layer_norm %x, %g, %bb {begin_norm_axis = 1, begin_params_axis = 1, epsilon = 1.0e-5} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<8xf32>, tensor<8xf32>)
  %qkv = oneflow.matmul %n, %wqkv : (tensor<8x16xf32>, tensor<16x48xf32>) -> tensor<8x48xf32>
  %qkvb = oneflow.add %qkv, %bqkv : (tensor<8x48xf32>, tensor<48xf32>) -> tensor<8x48xf32>
  %q = oneflow.slice %qkvb {starts = array<i64: 0, 0>, ends = array<i64: 8, 16>, steps = array<i64: 1, 1>} : (tensor<8x48xf32>) -> tensor<8x16xf32>
  %att = oneflow.tanh %q : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %o = oneflow.matmul %att, %wo : (tensor<8x16xf32>, tensor<16x16xf32>) -> tensor<8x16xf32>
  %r = oneflow.add %x, %o : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %h = oneflow.matmul %r, %w1 {transpose_b} : (tensor<8x16xf32>, tensor<64x16xf32>) -> tensor<8x64xf32>
  %a = oneflow.gelu %h : (tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = oneflow.matmul %a, %w2 : (tensor<8x64xf32>, tensor<64x16xf32>) -> tensor<8x16xf32>
  %yb = oneflow.add %y, %b2 : (tensor<8x16xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %s = oneflow.reduce_sum %yb {axes = array<i64: 0, 1>} : (tensor<8x16xf32>) -> tensor<f32>
  oneflow.output "loss", %s : tensor<f32>
  return
}

// TP-LABEL: func.func @gpt_block
// TP: oneflow.variable "wte" {{.*}} [S(0)]>>
// TP: oneflow.variable "ln.weight" {{.*}} [B]>>
// TP: oneflow.variable "ln.bias" {{.*}} [B]>>
// TP: oneflow.variable "attn.qkv.weight" {{.*}} [S(1)]>>
// TP: oneflow.variable "attn.qkv.bias" {{.*}} [S(0)]>>
// TP: oneflow.variable "attn.out.weight" {{.*}} [S(0)]>>
// TP: oneflow.variable "mlp.fc1.weight" {{.*}} tensor<64x16xf32, {{.*}} [S(0)]>>
// TP: oneflow.variable "mlp.fc2.weight" {{.*}} [S(0)]>>
// TP: oneflow.variable "mlp.fc2.bias" {{.*}} [B]>>

// HYBRID-LABEL: func.func @gpt_block
// HYBRID: oneflow.input "ids" : {{.*}} [S(0), B]>>
// HYBRID: oneflow.variable "wte" {{.*}} [B, S(0)]>>
// HYBRID: oneflow.variable "attn.qkv.weight" {{.*}} [B, S(1)]>>

// -----

// Stale layouts of a program that was laid out before are cleared, and
// splits that would leave a rank an empty piece are not made.

func.func @relayout() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x2xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>
  %y = oneflow.matmul %x, %w {oneflow.operand_layouts = [#oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>]} : (tensor<8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>, tensor<4x2xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>) -> tensor<8x2xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  oneflow.output "y", %y : tensor<8x2xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  return
}

// DP-LABEL: func.func @relayout
// DP-NOT: ranks = [0, 1]>
// DP: oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#{{.*}}, [S(0)]>>
// DP-NOT: operand_layouts
// DP: oneflow.matmul {{.*}} -> tensor<8x2xf32>{{$}}
// DP: oneflow.output "y", %{{.*}} : tensor<8x2xf32>{{$}}

// fc-like weight of 2 columns cannot be split 4 ways: it stays whole.
// TP-LABEL: func.func @relayout
// TP: oneflow.variable "w" {{.*}} [B]>>
