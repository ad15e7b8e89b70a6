// RUN: of-opt %s | of-opt | FileCheck %s
// RUN: of-opt %s --mlir-print-op-generic | of-opt | FileCheck %s
// RUN: of-opt %s --verify-roundtrip > /dev/null

// Every boxing op in its custom assembly form.

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
#stage = #oneflow.placement<cpu, ranks = [4, 5]>

// CHECK-LABEL: func.func @one_axis
func.func @one_axis(%p: tensor<8x6xf32, #oneflow.global<#cpu4, [P]>>) {
  // CHECK: oneflow.boxing %{{.*}} : tensor<8x6xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  %0 = oneflow.boxing %p : tensor<8x6xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  // CHECK: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [B]>>
  %b = oneflow.all_reduce %p {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [B]>>
  // CHECK: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(0)]>>
  %s0 = oneflow.reduce_scatter %p {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(0)]>>
  // CHECK: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x6xf32, #oneflow.global<#cpu4, [B]>>
  %g = oneflow.all_gather %s0 {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [B]>>
  // CHECK: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  %s1 = oneflow.all_to_all %s0 {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  // CHECK: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  %l = oneflow.local_slice %b {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  // CHECK: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [P]>>
  %q = oneflow.to_partial %b {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [P]>>
  // CHECK: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [P]>>
  %r = oneflow.to_partial %s1 {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [P]>>
  return
}

// The reducing steps take the operand's reduction; P(max) and P(min) come
// from B.
// CHECK-LABEL: func.func @max_and_min
func.func @max_and_min(%m: tensor<8x6xf32, #oneflow.global<#cpu4, [P(max)]>>) {
  // CHECK: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu4, [P(max)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [B]>>
  %b = oneflow.all_reduce %m {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [P(max)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [B]>>
  // CHECK: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu4, [P(max)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  %s = oneflow.reduce_scatter %m {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [P(max)]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [S(1)]>>
  // CHECK: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [P(min)]>>
  %n = oneflow.to_partial %b {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8x6xf32, #oneflow.global<#cpu4, [P(min)]>>
  return
}

// CHECK-LABEL: func.func @mesh_and_transfer
func.func @mesh_and_transfer(%x: tensor<8x6xf32, #oneflow.global<#mesh, [S(0), P]>>) {
  // A step on the first mesh axis may split a tensor axis no later axis splits.
  // CHECK: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<8x6xf32, #oneflow.global<#cpu2x2, [S(0), P]>> -> tensor<8x6xf32, #oneflow.global<#cpu2x2, [S(1), P]>>
  %0 = oneflow.all_to_all %x {mesh_axis = 0} : tensor<8x6xf32, #oneflow.global<#mesh, [S(0), P]>> -> tensor<8x6xf32, #oneflow.global<#mesh, [S(1), P]>>
  // CHECK: oneflow.reduce_scatter %{{.*}} {mesh_axis = 1 : i64} : {{.*}} -> tensor<8x6xf32, #oneflow.global<#cpu2x2, [S(1), S(1)]>>
  %1 = oneflow.reduce_scatter %0 {mesh_axis = 1} : tensor<8x6xf32, #oneflow.global<#mesh, [S(1), P]>> -> tensor<8x6xf32, #oneflow.global<#mesh, [S(1), S(1)]>>
  // A transfer may start from P and change the mesh.
  // CHECK: oneflow.transfer %{{.*}} : tensor<8x6xf32, #oneflow.global<#cpu2x2, [S(0), P]>> -> tensor<8x6xf32, #oneflow.global<#cpu2, [B]>>
  %2 = oneflow.transfer %x : tensor<8x6xf32, #oneflow.global<#mesh, [S(0), P]>> -> tensor<8x6xf32, #oneflow.global<#stage, [B]>>
  return
}
