// RUN: of-opt %s -split-input-file -oneflow-sbp-propagation -verify-diagnostics

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// A stated result layout that no signature gives.
func.func @negative_no_signature_gives() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  // expected-error@+1 {{no signature of oneflow.relu gives [P] on mesh [4]; it can give: [S(0)] | [S(1)] | [B]}}
  %y = oneflow.relu %x : (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<8x4xf32, #oneflow.global<#p4, [P]>>
  return
}

// -----

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#q2 = #oneflow.placement<cpu, ranks = [4, 5]>

// Two stated result layouts on different placements.
func.func @negative_stated_layouts_clash() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  %l = oneflow.input "labels" : tensor<8xi64, #oneflow.global<#p4, [S(0)]>>
  // expected-error@+1 {{stated layouts of 'oneflow.sparse_softmax_cross_entropy' clash: result 0 is on #oneflow.placement<cpu, ranks = [0, 1, 2, 3]> but result 1 on #oneflow.placement<cpu, ranks = [4, 5]>}}
  %p, %loss = oneflow.sparse_softmax_cross_entropy %x, %l : (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>, tensor<8xi64, #oneflow.global<#p4, [S(0)]>>) -> (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>, tensor<8xf32, #oneflow.global<#q2, [S(0)]>>)
  return
}

// -----

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func private @helper(tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<8x4xf32>

// An op without SBP rule.
func.func @negative_no_sbp_rule() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  // expected-error@+1 {{op 'func.call' has no SBP rule (SbpInterface)}}
  %y = func.call @helper(%x) : (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<8x4xf32>
  return
}

// -----

#p22 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Each mesh axis alone may split 3 rows, but [S(0), S(0)] leaves the second
// axis 1 row for 2 devices.
func.func @negative_no_candidate_fits() {
  %x = oneflow.input "x" : tensor<3x4xf32, #oneflow.global<#p22, [B, B]>>
  // expected-error@+1 {{no signature of oneflow.relu that gives [S(0), S(0)] fits the shapes: every one leaves some device an empty piece}}
  %y = oneflow.relu %x : (tensor<3x4xf32, #oneflow.global<#p22, [B, B]>>) -> tensor<3x4xf32, #oneflow.global<#p22, [S(0), S(0)]>>
  return
}

// -----

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// A stated source layout that leaves a device nothing.
func.func @negative_source_does_not_fit() {
  // expected-error@+1 {{layout [S(0)] of 'tensor<2x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [S(0)]>>' leaves some device an empty piece}}
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<2x4xf32, #oneflow.global<#p4, [S(0)]>>
  return
}

// -----

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#q2 = #oneflow.placement<cpu, ranks = [4, 5]>

// An operand layout pinned on another placement than the op's.
func.func @negative_pinned_elsewhere() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  // expected-error@+1 {{'oneflow.relu' has operand 0 pinned on #oneflow.placement<cpu, ranks = [4, 5]>, not on its placement #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>}}
  %y = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#q2, [B]>]} : (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<8x4xf32>
  return
}

// -----

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// A pinned operand layout that no signature giving the stated result takes:
// logits split by class give a partial loss, not one split by rows.
func.func @negative_pinned_and_stated() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>
  %l = oneflow.input "labels" : tensor<8xi64, #oneflow.global<#p4, [S(0)]>>
  // expected-error@+1 {{no signature of oneflow.sparse_softmax_cross_entropy that gives (_, [S(0)]) takes the operand layouts pinned on it}}
  %p, %loss = oneflow.sparse_softmax_cross_entropy %x, %l {oneflow.operand_layouts = [#oneflow.global<#p4, [S(1)]>, #oneflow.global<#p4, [B]>]} : (tensor<8x4xf32, #oneflow.global<#p4, [S(0)]>>, tensor<8xi64, #oneflow.global<#p4, [S(0)]>>) -> (tensor<8x4xf32>, tensor<8xf32, #oneflow.global<#p4, [S(0)]>>)
  return
}
