// RUN: of-opt %s -split-input-file -oneflow-lower-boxing -verify-diagnostics

// Boxings with no route are errors naming both layouts, and stay as they are.

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @empty_destination_piece(%x: tensor<3x4xf32, #oneflow.global<#cpu4, [B]>>) {
  // expected-error@+1 {{'oneflow.boxing' op cannot box tensor<3x4xf32> from #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [B]> to #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [S(0)]>: the destination layout leaves a rank an empty piece: tensor axis 0 of size 3 cannot be split into 4 non-empty parts}}
  %0 = oneflow.boxing %x : tensor<3x4xf32, #oneflow.global<#cpu4, [B]>> -> tensor<3x4xf32, #oneflow.global<#cpu4, [S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// 3 columns split by both mesh axes: 2, 1 then 1, 1, 1, 0.
func.func @empty_source_piece(%x: tensor<8x3xf32, #oneflow.global<#mesh, [S(1), S(1)]>>) {
  // expected-error@+1 {{the source layout leaves a rank an empty piece: tensor axis 1 of size 3 cannot be split into 4 non-empty parts}}
  %0 = oneflow.boxing %x : tensor<8x3xf32, #oneflow.global<#mesh, [S(1), S(1)]>> -> tensor<8x3xf32, #oneflow.global<#mesh, [B, B]>>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
#cpu3 = #oneflow.placement<cpu, ranks = [2, 3, 4]>

func.func @empty_piece_across_placements(%x: tensor<2xf32, #oneflow.global<#cpu2, [S(0)]>>) {
  // expected-error@+1 {{the destination layout leaves a rank an empty piece: tensor axis 0 of size 2 cannot be split into 3 non-empty parts}}
  %0 = oneflow.boxing %x : tensor<2xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<2xf32, #oneflow.global<#cpu3, [S(0)]>>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @dynamic_shape(%x: tensor<?x4xf32, #oneflow.global<#cpu2, [P]>>) {
  // expected-error@+1 {{'oneflow.boxing' op cannot box tensor<?x4xf32> from #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]> to #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>: the shape is not static}}
  %0 = oneflow.boxing %x : tensor<?x4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<?x4xf32, #oneflow.global<#cpu2, [B]>>
  return
}
