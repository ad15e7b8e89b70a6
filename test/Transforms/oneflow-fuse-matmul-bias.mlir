// RUN: of-opt %s -split-input-file -oneflow-fuse-matmul-bias | FileCheck %s

// A linear layer, the bias on either side of the add, becomes one op that
// keeps the matmul's attributes.
// CHECK-LABEL: func.func @linear
// CHECK-NEXT: %[[Y:.*]] = oneflow.matmul_bias %arg0, %arg1, %arg2 {transpose_b} : (tensor<8x4xf32>, tensor<3x4xf32>, tensor<3xf32>) -> tensor<8x3xf32>
// CHECK-NEXT: %[[Z:.*]] = oneflow.matmul_bias %[[Y]], %arg3, %arg4 : (tensor<8x3xf32>, tensor<3x5xf32>, tensor<5xf32>) -> tensor<8x5xf32>
// CHECK-NEXT: return %[[Z]]
func.func @linear(%x: tensor<8x4xf32>, %w: tensor<3x4xf32>, %b: tensor<3xf32>, %w2: tensor<3x5xf32>, %b2: tensor<5xf32>) -> tensor<8x5xf32> {
  %0 = oneflow.matmul %x, %w {transpose_b} : (tensor<8x4xf32>, tensor<3x4xf32>) -> tensor<8x3xf32>
  %1 = oneflow.add %0, %b : (tensor<8x3xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %2 = oneflow.matmul %1, %w2 : (tensor<8x3xf32>, tensor<3x5xf32>) -> tensor<8x5xf32>
  %3 = oneflow.add %b2, %2 : (tensor<5xf32>, tensor<8x5xf32>) -> tensor<8x5xf32>
  return %3 : tensor<8x5xf32>
}

// -----

// Left alone: a product read twice, a residual add (not a bias), a bias of
// one value per row, a partial product, an empty contraction, and a matmul
// in another pipeline stage than its add.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: oneflow.matmul_bias
// CHECK: return
func.func @not_fused(%x: tensor<8x4xf32>, %w: tensor<4x8xf32>, %b: tensor<8xf32>, %e: tensor<8x0xf32>, %f: tensor<0x8xf32>) -> (tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>) {
  %0 = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %1 = oneflow.add %0, %b : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %2 = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %3 = oneflow.add %2, %1 : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  %c = oneflow.reshape %b : (tensor<8xf32>) -> tensor<8x1xf32>
  %4 = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %5 = oneflow.add %4, %c : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x8xf32>
  %6 = oneflow.matmul %e, %f : (tensor<8x0xf32>, tensor<0x8xf32>) -> tensor<8x8xf32>
  %7 = oneflow.add %6, %b : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %8 = oneflow.matmul %x, %w {stage = 0 : i64} : (tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  %9 = oneflow.add %8, %b {stage = 1 : i64} : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8x8xf32>
  %xp = oneflow.input "xp" : tensor<8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(1)]>>
  %wp = oneflow.input "wp" : tensor<4x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %bp = oneflow.input "bp" : tensor<8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  %10 = oneflow.matmul %xp, %wp : (tensor<8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(1)]>>, tensor<4x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>) -> tensor<8x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  %11 = oneflow.add %10, %bp : (tensor<8x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>, tensor<8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>) -> tensor<8x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  return %0, %3, %5, %7, %9, %11 : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
}
