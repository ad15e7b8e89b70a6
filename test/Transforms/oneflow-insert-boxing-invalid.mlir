// RUN: of-opt %s -split-input-file -oneflow-insert-boxing -verify-diagnostics

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @not_an_array(%x: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  // expected-error@+1 {{'oneflow.relu' op 'oneflow.operand_layouts' must be an array of #oneflow.global layouts}}
  %0 = oneflow.relu %x {oneflow.operand_layouts = #oneflow.global<#cpu2, [B]>} : (tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @wrong_count(%x: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  // expected-error@+1 {{'oneflow.add' op 'oneflow.operand_layouts' has 1 entries but the op has 2 operands}}
  %0 = oneflow.add %x, %x {oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>]} : (tensor<4xf32, #oneflow.global<#cpu2, [P]>>, tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @not_a_layout(%x: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  // expected-error@+1 {{'oneflow.relu' op entry 0 of 'oneflow.operand_layouts' is #oneflow.sbp<B>, not a #oneflow.global layout}}
  %0 = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.sbp<B>]} : (tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @operand_without_layout(%x: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.relu' op operand #0 has no #oneflow.global layout to box from}}
  %0 = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>]} : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @layout_out_of_range(%x: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  // expected-error@+1 {{'oneflow.relu' op operand #0 cannot take the layout in 'oneflow.operand_layouts': split axis 1 is out of range for rank-1 tensor (mesh axis 0)}}
  %0 = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#cpu2, [S(1)]>]} : (tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @not_a_tensor(%i: index) -> index {
  // expected-error@+1 {{'func.return' op operand #0 of type 'index' cannot take a layout}}
  return {oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>]} %i : index
}
