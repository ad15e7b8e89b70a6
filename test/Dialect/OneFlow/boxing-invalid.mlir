// RUN: of-opt %s -split-input-file -verify-diagnostics

// Every error of the boxing ops' verifiers.

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @boxing_changes_shape(%x: tensor<8x6xf32, #oneflow.global<#cpu4, [P]>>) {
  // expected-error@+1 {{'oneflow.boxing' op changes the logical type from 'tensor<8x6xf32>' to 'tensor<6x8xf32>'}}
  %0 = oneflow.boxing %x : tensor<8x6xf32, #oneflow.global<#cpu4, [P]>> -> tensor<6x8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @boxing_changes_element_type(%x: tensor<8xf32, #oneflow.global<#cpu4, [P]>>) {
  // expected-error@+1 {{'oneflow.boxing' op changes the logical type from 'tensor<8xf32>' to 'tensor<8xf16>'}}
  %0 = oneflow.boxing %x : tensor<8xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8xf16, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @boxing_operand_without_layout(%x: tensor<8xf32>) {
  // expected-error@+1 {{'oneflow.boxing' op operand needs a #oneflow.global layout}}
  %0 = oneflow.boxing %x : tensor<8xf32> -> tensor<8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @boxing_result_without_layout(%x: tensor<8xf32, #oneflow.global<#cpu4, [B]>>) {
  // expected-error@+1 {{'oneflow.boxing' op result needs a #oneflow.global layout}}
  %0 = oneflow.boxing %x : tensor<8xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8xf32>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @step_changes_placement(%x: tensor<8xf32, #oneflow.global<#cpu4, [P]>>) {
  // expected-error@+1 {{'oneflow.all_reduce' op changes the placement; only oneflow.transfer does}}
  %0 = oneflow.all_reduce %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @step_axis_out_of_range(%x: tensor<8xf32, #oneflow.global<#cpu4, [P]>>) {
  // expected-error@+1 {{'oneflow.all_reduce' op mesh_axis 1 is out of range for a rank-1 mesh}}
  %0 = oneflow.all_reduce %x {mesh_axis = 1} : tensor<8xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

func.func @step_changes_two_axes(%x: tensor<8xf32, #oneflow.global<#mesh, [P, P]>>) {
  // expected-error@+1 {{'oneflow.all_reduce' op changes mesh axis 1 (P -> B), not only mesh_axis 0}}
  %0 = oneflow.all_reduce %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#mesh, [P, P]>> -> tensor<8xf32, #oneflow.global<#mesh, [B, B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @all_reduce_wrong_kinds(%x: tensor<8xf32, #oneflow.global<#cpu4, [S(0)]>>) {
  // expected-error@+1 {{'oneflow.all_reduce' op turns S(0) into B on mesh axis 0, expected P -> B}}
  %0 = oneflow.all_reduce %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @reduce_scatter_wrong_kinds(%x: tensor<8xf32, #oneflow.global<#cpu4, [P]>>) {
  // expected-error@+1 {{'oneflow.reduce_scatter' op turns P into B on mesh axis 0, expected P -> S(i)}}
  %0 = oneflow.reduce_scatter %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @all_gather_wrong_kinds(%x: tensor<8xf32, #oneflow.global<#cpu4, [B]>>) {
  // expected-error@+1 {{'oneflow.all_gather' op turns B into B on mesh axis 0, expected S(i) -> B}}
  %0 = oneflow.all_gather %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @all_to_all_same_axis(%x: tensor<8x4xf32, #oneflow.global<#cpu4, [S(0)]>>) {
  // expected-error@+1 {{'oneflow.all_to_all' op turns S(0) into S(0) on mesh axis 0, expected S(i) -> S(j) with i != j}}
  %0 = oneflow.all_to_all %x {mesh_axis = 0} : tensor<8x4xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<8x4xf32, #oneflow.global<#cpu4, [S(0)]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @local_slice_wrong_kinds(%x: tensor<8xf32, #oneflow.global<#cpu4, [P]>>) {
  // expected-error@+1 {{'oneflow.local_slice' op turns P into S(0) on mesh axis 0, expected B -> S(i)}}
  %0 = oneflow.local_slice %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8xf32, #oneflow.global<#cpu4, [S(0)]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @to_partial_wrong_kinds(%x: tensor<8xf32, #oneflow.global<#cpu4, [B]>>) {
  // expected-error@+1 {{'oneflow.to_partial' op turns B into S(0) on mesh axis 0, expected B -> P or S(i) -> P}}
  %0 = oneflow.to_partial %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8xf32, #oneflow.global<#cpu4, [S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Axis 1 subdivides the rows axis 0 leaves: the pieces of an axis-0 group
// (rows 0-1 and 4-5) do not tile one range.
func.func @gather_under_a_later_split(%x: tensor<8xf32, #oneflow.global<#mesh, [S(0), S(0)]>>) {
  // expected-error@+1 {{'oneflow.all_gather' op splits or gathers tensor axis 0 on mesh axis 0 while the later mesh axis 1 splits it too}}
  %0 = oneflow.all_gather %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#mesh, [S(0), S(0)]>> -> tensor<8xf32, #oneflow.global<#mesh, [B, S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

func.func @split_under_a_later_split(%x: tensor<8x4xf32, #oneflow.global<#mesh, [S(0), S(1)]>>) {
  // expected-error@+1 {{'oneflow.all_to_all' op splits or gathers tensor axis 1 on mesh axis 0 while the later mesh axis 1 splits it too}}
  %0 = oneflow.all_to_all %x {mesh_axis = 0} : tensor<8x4xf32, #oneflow.global<#mesh, [S(0), S(1)]>> -> tensor<8x4xf32, #oneflow.global<#mesh, [S(1), S(1)]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @transfer_to_partial(%x: tensor<8xf32, #oneflow.global<#cpu4, [B]>>) {
  // expected-error@+1 {{'oneflow.transfer' op cannot produce P (mesh axis 0 of the result); transfer to B, then oneflow.to_partial}}
  %0 = oneflow.transfer %x : tensor<8xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8xf32, #oneflow.global<#cpu2, [P]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @transfer_without_layout(%x: tensor<8xf32>) {
  // expected-error@+1 {{'oneflow.transfer' op operand needs a #oneflow.global layout}}
  %0 = oneflow.transfer %x : tensor<8xf32> -> tensor<8xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @transfer_from_max(%x: tensor<8xf32, #oneflow.global<#cpu4, [P(max)]>>) {
  // expected-error@+1 {{'oneflow.transfer' op sums partial sources but mesh axis 0 of its operand is P(max); all-reduce it to B first}}
  %0 = oneflow.transfer %x : tensor<8xf32, #oneflow.global<#cpu4, [P(max)]>> -> tensor<8xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @split_to_max(%x: tensor<8xf32, #oneflow.global<#cpu4, [S(0)]>>) {
  // expected-error@+1 {{'oneflow.to_partial' op turns S(0) into P(max) on mesh axis 0; only P (a sum) comes from a split, P(max) and P(min) from B}}
  %0 = oneflow.to_partial %x {mesh_axis = 0} : tensor<8xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<8xf32, #oneflow.global<#cpu4, [P(max)]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @output_max(%x: tensor<8xf32, #oneflow.global<#cpu4, [P(max)]>>) {
  // expected-error@+1 {{'oneflow.output' op cannot output a #oneflow.nd_sbp<[P(max)]> value; all-reduce its P(max) or P(min) axes to B first}}
  oneflow.output "y", %x : tensor<8xf32, #oneflow.global<#cpu4, [P(max)]>>
  return
}
