// RUN: of-opt %s -split-input-file -oneflow-insert-boxing | FileCheck %s
// RUN: of-opt %s -split-input-file -oneflow-insert-boxing -oneflow-lower-boxing | FileCheck %s --check-prefix=LOWER --implicit-check-not=oneflow.boxing

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// Data-parallel matmul: the broadcast input is sliced by rows, the weight
// already has its layout; the attribute is consumed.
// CHECK-LABEL: func.func @data_parallel_matmul
// CHECK-NEXT: %[[X:.*]] = oneflow.input "x" : tensor<16x8xf32, #oneflow.global<#cpu4, [B]>>
// CHECK-NEXT: %[[W:.*]] = oneflow.variable
// CHECK-NEXT: %[[XS:.*]] = oneflow.boxing %[[X]] : tensor<16x8xf32, #oneflow.global<#cpu4, [B]>> -> tensor<16x8xf32, #oneflow.global<#cpu4, [S(0)]>>
// CHECK-NEXT: oneflow.matmul %[[XS]], %[[W]] : (tensor<16x8xf32, #oneflow.global<#cpu4, [S(0)]>>, tensor<8x4xf32, #oneflow.global<#cpu4, [B]>>)
// CHECK-NOT: oneflow.operand_layouts
// LOWER-LABEL: func.func @data_parallel_matmul
// LOWER: %[[XS:.*]] = oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<16x8xf32, #oneflow.global<#cpu4, [B]>> -> tensor<16x8xf32, #oneflow.global<#cpu4, [S(0)]>>
// LOWER-NEXT: oneflow.matmul %[[XS]]
func.func @data_parallel_matmul() {
  %x = oneflow.input "x" : tensor<16x8xf32, #oneflow.global<#cpu4, [B]>>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<8x4xf32, #oneflow.global<#cpu4, [B]>>
  %y = oneflow.matmul %x, %w {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(0)]>, #oneflow.global<#cpu4, [B]>]}
      : (tensor<16x8xf32, #oneflow.global<#cpu4, [B]>>, tensor<8x4xf32, #oneflow.global<#cpu4, [B]>>) -> tensor<16x4xf32, #oneflow.global<#cpu4, [S(0)]>>
  oneflow.output "y", %y : tensor<16x4xf32, #oneflow.global<#cpu4, [S(0)]>>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// One boxing per value and layout, shared by the consumers after it; a
// second layout of the same value gets its own.
// CHECK-LABEL: func.func @reuse
// CHECK-NEXT: %[[B:.*]] = oneflow.boxing %arg0 : {{.*}} -> tensor<4x6xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: %[[R1:.*]] = oneflow.relu %[[B]]
// CHECK-NEXT: %[[R2:.*]] = oneflow.relu %[[B]]
// CHECK-NEXT: %[[S:.*]] = oneflow.boxing %arg0 : {{.*}} -> tensor<4x6xf32, #oneflow.global<#cpu2, [S(1)]>>
// CHECK-NEXT: oneflow.add %[[S]], %[[S]]
// CHECK-NEXT: oneflow.add %[[R1]], %[[R2]]
// CHECK-NEXT: return
func.func @reuse(%p: tensor<4x6xf32, #oneflow.global<#cpu2, [P]>>) {
  %0 = oneflow.relu %p {oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>]} : (tensor<4x6xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4x6xf32, #oneflow.global<#cpu2, [B]>>
  %1 = oneflow.relu %p {oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>]} : (tensor<4x6xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4x6xf32, #oneflow.global<#cpu2, [B]>>
  %2 = oneflow.add %p, %p {oneflow.operand_layouts = [#oneflow.global<#cpu2, [S(1)]>, #oneflow.global<#cpu2, [S(1)]>]} : (tensor<4x6xf32, #oneflow.global<#cpu2, [P]>>, tensor<4x6xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4x6xf32, #oneflow.global<#cpu2, [S(1)]>>
  %3 = oneflow.add %0, %1 {oneflow.operand_layouts = [#oneflow.global<#cpu2, [B]>, #oneflow.global<#cpu2, [B]>]} : (tensor<4x6xf32, #oneflow.global<#cpu2, [B]>>, tensor<4x6xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<4x6xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
#stage = #oneflow.placement<cpu, ranks = [4, 5]>

// Layouts on another placement (a pipeline stage) and on a 2-D mesh.
// CHECK-LABEL: func.func @placements
// CHECK-NEXT: %[[T:.*]] = oneflow.boxing %arg0 : tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), P]>> -> tensor<8x8xf32, #oneflow.global<#cpu2, [S(1)]>>
// CHECK-NEXT: oneflow.relu %[[T]]
// CHECK-NEXT: %[[M:.*]] = oneflow.boxing %arg0 : tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), P]>> -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(1)]>>
// CHECK-NEXT: oneflow.relu %[[M]]
func.func @placements(%x: tensor<8x8xf32, #oneflow.global<#mesh, [S(0), P]>>) {
  %0 = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#stage, [S(1)]>]} : (tensor<8x8xf32, #oneflow.global<#mesh, [S(0), P]>>) -> tensor<8x8xf32, #oneflow.global<#stage, [S(1)]>>
  %1 = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#mesh, [B, S(1)]>]} : (tensor<8x8xf32, #oneflow.global<#mesh, [S(0), P]>>) -> tensor<8x8xf32, #oneflow.global<#mesh, [B, S(1)]>>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// Ops without the attribute are left alone.
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT: oneflow.relu %arg0
// CHECK-NEXT: return
func.func @untouched(%x: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  %0 = oneflow.relu %x : (tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [P]>>
  return
}
