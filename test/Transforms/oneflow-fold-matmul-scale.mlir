// RUN: of-opt %s -split-input-file -verify-diagnostics -oneflow-fold-matmul-scale | FileCheck %s

// Attention's scale on the scores, and on their gradient read by two
// products: each becomes the product's alpha (multiplied into one already
// there), and the scalar_muls go.
// CHECK-LABEL: func.func @attention
// CHECK-NOT: oneflow.scalar_mul
// CHECK: %[[S:.*]] = oneflow.batch_matmul %arg0, %arg1 {alpha = 1.250000e-01 : f64, transpose_b}
// CHECK: %[[DQ:.*]] = oneflow.batch_matmul %arg2, %arg1 {alpha = 1.250000e-01 : f64}
// CHECK: %[[DK:.*]] = oneflow.batch_matmul %arg2, %arg0 {alpha = 2.500000e-01 : f64, transpose_a}
// CHECK: return %[[S]], %[[DQ]], %[[DK]]
func.func @attention(%q: tensor<2x4x16x8xf32>, %k: tensor<2x4x16x8xf32>, %ds: tensor<2x4x16x16xf32>) -> (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) {
  %s = oneflow.batch_matmul %q, %k {transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
  %t = oneflow.scalar_mul %s, 0.125 : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %d = oneflow.scalar_mul %ds, 0.125 : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
  %dq = oneflow.batch_matmul %d, %k : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  %dk = oneflow.batch_matmul %d, %q {transpose_a, alpha = 2.0 : f64} : (tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x8xf32>
  return %t, %dq, %dk : tensor<2x4x16x16xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>
}

// -----

// A partial product folds (the scaled sum of the pieces); the layout is
// kept.
// CHECK-LABEL: func.func @partial
// CHECK-NEXT: %[[P:.*]] = oneflow.batch_matmul %arg0, %arg1 {alpha = 5.000000e-01 : f64}
// CHECK-NEXT: return %[[P]]
func.func @partial(%a: tensor<2x4x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(2)]>>, %b: tensor<2x8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(1)]>>) -> tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>> {
  %p = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(2)]>>, tensor<2x8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(1)]>>) -> tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  %s = oneflow.scalar_mul %p, 0.5 : (tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>) -> tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  return %s : tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
}

// -----

// Left alone: a product read by something else too, a scalar_mul in another
// pipeline stage, a scale that changes the layout (a boxing between), and
// an alpha that would overflow. A scaled operand that something else also
// reads folds into the product and stays for its other reader.
// CHECK-LABEL: func.func @not_folded
// CHECK-COUNT-5: oneflow.scalar_mul
// CHECK-NOT: oneflow.scalar_mul
// CHECK: oneflow.batch_matmul %arg2, %arg1 {alpha = 3.000000e+00 : f64}
// CHECK: return
func.func @not_folded(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>, %c: tensor<2x4x8xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x8xf32>) {
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %1 = oneflow.scalar_mul %0, 0.5 : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %2 = oneflow.batch_matmul %a, %b {stage = 0 : i64} : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %3 = oneflow.scalar_mul %2, 0.5 {stage = 1 : i64} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %ap = oneflow.input "ap" : tensor<2x4x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(2)]>>
  %bp = oneflow.input "bp" : tensor<2x8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(1)]>>
  %4 = oneflow.batch_matmul %ap, %bp : (tensor<2x4x8xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(2)]>>, tensor<2x8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(1)]>>) -> tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>
  %5 = oneflow.scalar_mul %4, 0.5 : (tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [P]>>) -> tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>
  %6 = oneflow.batch_matmul %a, %b {alpha = 1.0e300 : f64} : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  %7 = oneflow.scalar_mul %6, 1.0e300 : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %s = oneflow.scalar_mul %c, 3.0 : (tensor<2x4x8xf32>) -> tensor<2x4x8xf32>
  %8 = oneflow.batch_matmul %s, %b : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  return %0, %1, %3, %5, %7, %8, %s : tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>, tensor<2x4x4xf32>, tensor<2x4x4xf32>, tensor<2x4x8xf32>
}

// -----

// An alpha that is not finite is refused where the op is made.
func.func @infinite(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf32>) -> tensor<2x4x4xf32> {
  // expected-error @+2 {{alpha must be finite, got INF}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b {alpha = 0x7FF0000000000000 : f64} : (tensor<2x4x8xf32>, tensor<2x8x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}
