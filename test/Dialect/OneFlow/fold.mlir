// RUN: of-opt %s -split-input-file -canonicalize | FileCheck %s

// Each layout op's fold on constants (ConstantFolding.h, which the ONNX
// importer shares): the values move, the ops go.

// CHECK-LABEL: func.func @reshape
// CHECK-NEXT: %[[C:.*]] = oneflow.constant dense<{{\[\[}}1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
// CHECK-NEXT: oneflow.output "y", %[[C]]
func.func @reshape() {
  %c = oneflow.constant dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi64>
  %y = oneflow.reshape %c : (tensor<6xi64>) -> tensor<2x3xi64>
  oneflow.output "y", %y : tensor<2x3xi64>
  return
}

// -----

// A reshape to its own type is its operand.
// CHECK-LABEL: func.func @reshape_identity
// CHECK-NEXT: %[[X:.*]] = oneflow.input "x"
// CHECK-NEXT: oneflow.output "y", %[[X]]
func.func @reshape_identity() {
  %x = oneflow.input "x" : tensor<2x3xf32>
  %y = oneflow.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  oneflow.output "y", %y : tensor<2x3xf32>
  return
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-NEXT: oneflow.constant dense<{{\[\[}}1.000000e+00, 4.000000e+00], [2.000000e+00, 5.000000e+00], [3.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// CHECK-NOT: oneflow.transpose
func.func @transpose() {
  %c = oneflow.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = oneflow.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  oneflow.output "y", %y : tensor<3x2xf32>
  return
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-NEXT: oneflow.constant dense<{{\[\[}}1, 2, 5], [3, 4, 6]]> : tensor<2x3xi32>
// CHECK-NOT: oneflow.concat
func.func @concat() {
  %a = oneflow.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %b = oneflow.constant dense<[[5], [6]]> : tensor<2x1xi32>
  %y = oneflow.concat %a, %b {axis = -1 : i64} : (tensor<2x2xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
  oneflow.output "y", %y : tensor<2x3xi32>
  return
}

// -----

// Python slices: negative start, a step, an end past the axis.
// CHECK-LABEL: func.func @slice
// CHECK-NEXT: oneflow.constant dense<{{\[\[}}2, 4], [7, 9]]> : tensor<2x2xi64>
// CHECK-NOT: oneflow.slice
func.func @slice() {
  %c = oneflow.constant dense<[[0, 1, 2, 3, 4], [5, 6, 7, 8, 9]]> : tensor<2x5xi64>
  %y = oneflow.slice %c {starts = array<i64: 0, -3>, ends = array<i64: 2, 100>, steps = array<i64: 1, 2>} : (tensor<2x5xi64>) -> tensor<2x2xi64>
  oneflow.output "y", %y : tensor<2x2xi64>
  return
}

// -----

// Negative indices count from the end.
// CHECK-LABEL: func.func @gather
// CHECK-NEXT: oneflow.constant dense<{{\[\[}}3, 1], [6, 4]]> : tensor<2x2xi64>
// CHECK-NOT: oneflow.gather
func.func @gather() {
  %c = oneflow.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %i = oneflow.constant dense<[-1, 0]> : tensor<2xi64>
  %y = oneflow.gather %c, %i {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  oneflow.output "y", %y : tensor<2x2xi64>
  return
}

// -----

// Out-of-range indices are left to the kernel, which names them.
// CHECK-LABEL: func.func @gather_out_of_range
// CHECK: oneflow.gather
func.func @gather_out_of_range() {
  %c = oneflow.constant dense<[1, 2, 3]> : tensor<3xi64>
  %i = oneflow.constant dense<[3]> : tensor<1xi64>
  %y = oneflow.gather %c, %i {axis = 0 : i64} : (tensor<3xi64>, tensor<1xi64>) -> tensor<1xi64>
  oneflow.output "y", %y : tensor<1xi64>
  return
}

// -----

// Laid-out values are not folded (their pieces differ by rank).
#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
// CHECK-LABEL: func.func @laid_out
// CHECK: oneflow.transpose
func.func @laid_out() {
  %c = oneflow.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32> -> tensor<2x2xf32, #oneflow.global<#p2, [B]>>
  %y = oneflow.transpose %c {perm = array<i64: 1, 0>} : (tensor<2x2xf32, #oneflow.global<#p2, [B]>>) -> tensor<2x2xf32, #oneflow.global<#p2, [B]>>
  oneflow.output "y", %y : tensor<2x2xf32, #oneflow.global<#p2, [B]>>
  return
}

// -----

// Chains of layout ops fold into one op: reshape(reshape(x)) is one
// reshape, transpose(transpose(x)) one transpose of the composed
// permutation, and a transpose back to the identity is its operand.
// CHECK-LABEL: func.func @chains
// CHECK-NEXT: %[[X:.*]] = oneflow.input "x"
// CHECK-NEXT: %[[R:.*]] = oneflow.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-NEXT: oneflow.output "r", %[[R]]
// CHECK-NEXT: %[[T:.*]] = oneflow.transpose %[[X]] {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: oneflow.output "t", %[[T]]
// CHECK-NEXT: oneflow.output "back", %[[X]]
func.func @chains() {
  %x = oneflow.input "x" : tensor<2x3x4xf32>
  %a = oneflow.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %r = oneflow.reshape %a : (tensor<6x4xf32>) -> tensor<24xf32>
  oneflow.output "r", %r : tensor<24xf32>
  %t1 = oneflow.transpose %x {perm = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %t2 = oneflow.transpose %t1 {perm = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  oneflow.output "t", %t2 : tensor<4x2x3xf32>
  %u = oneflow.transpose %t1 {perm = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  oneflow.output "back", %u : tensor<2x3x4xf32>
  return
}

// -----

// Laid-out chains stay as propagation laid them out.
#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
// CHECK-LABEL: func.func @laid_out_chain
// CHECK-COUNT-2: oneflow.transpose
func.func @laid_out_chain() {
  %x = oneflow.input "x" : tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>
  %t1 = oneflow.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<4x2xf32, #oneflow.global<#p2, [S(1)]>>
  %t2 = oneflow.transpose %t1 {perm = array<i64: 1, 0>} : (tensor<4x2xf32, #oneflow.global<#p2, [S(1)]>>) -> tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>
  oneflow.output "y", %t2 : tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>
  return
}
