// RUN: of-opt %s -split-input-file -verify-diagnostics -oneflow-expand-split-softmax

// Every error of oneflow-expand-split-softmax: a cross-entropy laid out by
// hand whose layouts the expansion cannot keep.

#p2 = #oneflow.placement<cpu, ranks = [0, 1]>

// A split class axis makes the loss partial; a hand-pinned B loss is refused.
func.func @loss_not_partial(%x: tensor<4x6xf32, #oneflow.global<#p2, [S(1)]>>, %l: tensor<4xi64, #oneflow.global<#p2, [B]>>) {
  // expected-error@+1 {{'oneflow.sparse_softmax_cross_entropy' op has its loss laid out #oneflow.nd_sbp<[B]>, but its class axis split on some mesh axes makes the loss partial there (#oneflow.nd_sbp<[P]>)}}
  %p, %loss = oneflow.sparse_softmax_cross_entropy %x, %l {oneflow.operand_layouts = [#oneflow.global<#p2, [S(1)]>, #oneflow.global<#p2, [B]>]} : (tensor<4x6xf32, #oneflow.global<#p2, [S(1)]>>, tensor<4xi64, #oneflow.global<#p2, [B]>>) -> (tensor<4x6xf32, #oneflow.global<#p2, [S(1)]>>, tensor<4xf32, #oneflow.global<#p2, [B]>>)
  return
}

// -----

#p2 = #oneflow.placement<cpu, ranks = [0, 1]>

// The labels' layout comes from propagation's operand layouts.
func.func @no_label_layout(%x: tensor<4x6xf32, #oneflow.global<#p2, [S(1)]>>, %l: tensor<4xi64, #oneflow.global<#p2, [B]>>) {
  // expected-error@+1 {{'oneflow.sparse_softmax_cross_entropy' op has no layout for its labels in 'oneflow.operand_layouts'; run oneflow-sbp-propagation first}}
  %p, %loss = oneflow.sparse_softmax_cross_entropy %x, %l : (tensor<4x6xf32, #oneflow.global<#p2, [S(1)]>>, tensor<4xi64, #oneflow.global<#p2, [B]>>) -> (tensor<4x6xf32, #oneflow.global<#p2, [S(1)]>>, tensor<4xf32, #oneflow.global<#p2, [P]>>)
  return
}
