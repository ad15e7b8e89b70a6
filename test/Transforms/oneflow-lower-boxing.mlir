// RUN: of-opt %s -split-input-file -oneflow-lower-boxing | FileCheck %s --implicit-check-not=oneflow.boxing

// Every pair of 1-D layouts on 2, 3 and 4 ranks is one step (the table of
// docs/multi-rank-plans.md); 12x8 splits evenly over 2 ranks, 7x5
// unevenly over 3 and 4.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @one_axis_2
// CHECK-NEXT: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
// CHECK-NEXT: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>
// CHECK-NEXT: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>
// CHECK-NEXT: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
// CHECK-NEXT: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: return
func.func @one_axis_2(%s0: tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>, %s1: tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>, %b: tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>, %p: tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>) {
  %s0_s1 = oneflow.boxing %s0 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
  %s0_b = oneflow.boxing %s0 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
  %s0_p = oneflow.boxing %s0 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
  %s1_s0 = oneflow.boxing %s1 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>
  %s1_b = oneflow.boxing %s1 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
  %s1_p = oneflow.boxing %s1 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
  %b_s0 = oneflow.boxing %b : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>
  %b_s1 = oneflow.boxing %b : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
  %b_p = oneflow.boxing %b : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
  %p_s0 = oneflow.boxing %p : tensor<12x8xf32, #oneflow.global<#cpu2, [P]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>
  %p_s1 = oneflow.boxing %p : tensor<12x8xf32, #oneflow.global<#cpu2, [P]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
  %p_b = oneflow.boxing %p : tensor<12x8xf32, #oneflow.global<#cpu2, [P]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

#cpu3 = #oneflow.placement<cpu, ranks = [0, 1, 2]>

// CHECK-LABEL: func.func @one_axis_3
// CHECK-NEXT: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>
// CHECK-NEXT: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>
// CHECK-NEXT: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>
// CHECK-NEXT: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>
// CHECK-NEXT: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>
// CHECK-NEXT: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>
// CHECK-NEXT: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu3, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>
// CHECK-NEXT: return
func.func @one_axis_3(%s0: tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>, %s1: tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>, %b: tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>, %p: tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>) {
  %s0_s1 = oneflow.boxing %s0 : tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>
  %s0_b = oneflow.boxing %s0 : tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>
  %s0_p = oneflow.boxing %s0 : tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>
  %s1_s0 = oneflow.boxing %s1 : tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>
  %s1_b = oneflow.boxing %s1 : tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>
  %s1_p = oneflow.boxing %s1 : tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>
  %b_s0 = oneflow.boxing %b : tensor<7x5xf32, #oneflow.global<#cpu3, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>
  %b_s1 = oneflow.boxing %b : tensor<7x5xf32, #oneflow.global<#cpu3, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>
  %b_p = oneflow.boxing %b : tensor<7x5xf32, #oneflow.global<#cpu3, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [P]>>
  %p_s0 = oneflow.boxing %p : tensor<7x5xf32, #oneflow.global<#cpu3, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(0)]>>
  %p_s1 = oneflow.boxing %p : tensor<7x5xf32, #oneflow.global<#cpu3, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [S(1)]>>
  %p_b = oneflow.boxing %p : tensor<7x5xf32, #oneflow.global<#cpu3, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu3, [B]>>
  return
}

// -----

#cpu4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// CHECK-LABEL: func.func @one_axis_4
// CHECK-NEXT: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>
// CHECK-NEXT: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>
// CHECK-NEXT: oneflow.all_to_all %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>
// CHECK-NEXT: oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>
// CHECK-NEXT: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>
// CHECK-NEXT: oneflow.local_slice %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>
// CHECK-NEXT: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>
// CHECK-NEXT: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<7x5xf32, #oneflow.global<#cpu4, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>
// CHECK-NEXT: return
func.func @one_axis_4(%s0: tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>, %s1: tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>, %b: tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>, %p: tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>) {
  %s0_s1 = oneflow.boxing %s0 : tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>
  %s0_b = oneflow.boxing %s0 : tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>
  %s0_p = oneflow.boxing %s0 : tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>
  %s1_s0 = oneflow.boxing %s1 : tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>
  %s1_b = oneflow.boxing %s1 : tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>
  %s1_p = oneflow.boxing %s1 : tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>
  %b_s0 = oneflow.boxing %b : tensor<7x5xf32, #oneflow.global<#cpu4, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>
  %b_s1 = oneflow.boxing %b : tensor<7x5xf32, #oneflow.global<#cpu4, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>
  %b_p = oneflow.boxing %b : tensor<7x5xf32, #oneflow.global<#cpu4, [B]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [P]>>
  %p_s0 = oneflow.boxing %p : tensor<7x5xf32, #oneflow.global<#cpu4, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(0)]>>
  %p_s1 = oneflow.boxing %p : tensor<7x5xf32, #oneflow.global<#cpu4, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [S(1)]>>
  %p_b = oneflow.boxing %p : tensor<7x5xf32, #oneflow.global<#cpu4, [P]>> -> tensor<7x5xf32, #oneflow.global<#cpu4, [B]>>
  return
}

// -----
// Equal layouts need nothing.
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @same_layout
// CHECK-NEXT: return %arg0
func.func @same_layout(%x: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [P]>> {
  %0 = oneflow.boxing %x : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [P]>>
  return %0 : tensor<4xf32, #oneflow.global<#cpu2, [P]>>
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Reduce first: the all-reduce moves half of what it would after gathering.
// CHECK-LABEL: func.func @partial_first
// CHECK-NEXT: %[[R:.*]] = oneflow.all_reduce %arg0 {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(0)]>>
// CHECK-NEXT: oneflow.all_gather %[[R]] {mesh_axis = 1 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, B]>>
func.func @partial_first(%x: tensor<8x8xf32, #oneflow.global<#mesh, [P, S(0)]>>) {
  %0 = oneflow.boxing %x : tensor<8x8xf32, #oneflow.global<#mesh, [P, S(0)]>> -> tensor<8x8xf32, #oneflow.global<#mesh, [B, B]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// One axis differs: a reduce-scatter inside each row of the mesh.
// CHECK-LABEL: func.func @one_axis_differs
// CHECK-NEXT: oneflow.reduce_scatter %arg0 {mesh_axis = 1 : i64} : tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), P]>> -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), S(0)]>>
// CHECK-NEXT: return
func.func @one_axis_differs(%x: tensor<8x8xf32, #oneflow.global<#mesh, [S(0), P]>>) {
  %0 = oneflow.boxing %x : tensor<8x8xf32, #oneflow.global<#mesh, [S(0), P]>> -> tensor<8x8xf32, #oneflow.global<#mesh, [S(0), S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Axis 1 splits what axis 0 leaves, so axis 0 must reduce-scatter first.
// CHECK-LABEL: func.func @order_by_nesting
// CHECK-NEXT: %[[A:.*]] = oneflow.reduce_scatter %arg0 {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), P]>>
// CHECK-NEXT: oneflow.reduce_scatter %[[A]] {mesh_axis = 1 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), S(0)]>>
func.func @order_by_nesting(%x: tensor<8x8xf32, #oneflow.global<#mesh, [P, P]>>) {
  %0 = oneflow.boxing %x : tensor<8x8xf32, #oneflow.global<#mesh, [P, P]>> -> tensor<8x8xf32, #oneflow.global<#mesh, [S(0), S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Cyclic: neither axis can go first, so the route gathers axis 0, swaps the
// split of axis 1 and slices axis 0 again.
// CHECK-LABEL: func.func @cyclic_swap
// CHECK-NEXT: %[[G:.*]] = oneflow.all_gather %arg0 {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(1)]>>
// CHECK-NEXT: %[[T:.*]] = oneflow.all_to_all %[[G]] {mesh_axis = 1 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(0)]>>
// CHECK-NEXT: oneflow.local_slice %[[T]] {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(1), S(0)]>>
func.func @cyclic_swap(%x: tensor<8x8xf32, #oneflow.global<#mesh, [S(0), S(1)]>>) {
  %0 = oneflow.boxing %x : tensor<8x8xf32, #oneflow.global<#mesh, [S(0), S(1)]>> -> tensor<8x8xf32, #oneflow.global<#mesh, [S(1), S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Axis 0 cannot gather rows that axis 1 subdivides: gather axis 1 first,
// then axis 0, and slice axis 1 again.
// CHECK-LABEL: func.func @cyclic_same_split
// CHECK-NEXT: %[[A:.*]] = oneflow.all_gather %arg0 {mesh_axis = 1 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [S(0), B]>>
// CHECK-NEXT: %[[B:.*]] = oneflow.all_gather %[[A]] {mesh_axis = 0 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, B]>>
// CHECK-NEXT: oneflow.local_slice %[[B]] {mesh_axis = 1 : i64} : {{.*}} -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(0)]>>
func.func @cyclic_same_split(%x: tensor<8x8xf32, #oneflow.global<#mesh, [S(0), S(0)]>>) {
  %0 = oneflow.boxing %x : tensor<8x8xf32, #oneflow.global<#mesh, [S(0), S(0)]>> -> tensor<8x8xf32, #oneflow.global<#mesh, [B, S(0)]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// Uneven: 7 rows over 2 (4, 3) and 5 columns over 2 (3, 2). Both orders
// move the same number of elements; the planner breaks the tie the same
// way every time (here: mesh axis 0 first).
// CHECK-LABEL: func.func @uneven
// CHECK-NEXT: %[[A:.*]] = oneflow.all_gather %arg0 {mesh_axis = 0 : i64} : {{.*}} -> tensor<7x5xf32, #oneflow.global<#cpu2x2, [B, S(1)]>>
// CHECK-NEXT: oneflow.all_gather %[[A]] {mesh_axis = 1 : i64} : {{.*}} -> tensor<7x5xf32, #oneflow.global<#cpu2x2, [B, B]>>
func.func @uneven(%x: tensor<7x5xf32, #oneflow.global<#mesh, [S(0), S(1)]>>) {
  %0 = oneflow.boxing %x : tensor<7x5xf32, #oneflow.global<#mesh, [S(0), S(1)]>> -> tensor<7x5xf32, #oneflow.global<#mesh, [B, B]>>
  return
}

// -----

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
#cpu3 = #oneflow.placement<cpu, ranks = [0, 1, 2]>

// From 2 ranks to 3: one transfer; a partial source is summed on the way.
// CHECK-LABEL: func.func @two_to_three
// CHECK-NEXT: oneflow.transfer %arg0 : tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#cpu3, [B]>>
// CHECK-NEXT: oneflow.transfer %arg1 : tensor<6x4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<6x4xf32, #oneflow.global<#cpu3, [S(0)]>>
// CHECK-NEXT: return
func.func @two_to_three(%x: tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>>, %p: tensor<6x4xf32, #oneflow.global<#cpu2, [P]>>) {
  %0 = oneflow.boxing %x : tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#cpu3, [B]>>
  %1 = oneflow.boxing %p : tensor<6x4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<6x4xf32, #oneflow.global<#cpu3, [S(0)]>>
  return
}

// -----

#stage0 = #oneflow.placement<cpu, ranks = [0, 1]>
#stage1 = #oneflow.placement<cpu, ranks = [2, 3]>

// Pipeline stages on disjoint ranks; a partial destination is a transfer to
// B followed by to_partial.
// CHECK: #[[S0:.*]] = #oneflow.placement<cpu, ranks = [0, 1]>
// CHECK: #[[S1:.*]] = #oneflow.placement<cpu, ranks = [2, 3]>
// CHECK-LABEL: func.func @pipeline_stages
// CHECK-NEXT: oneflow.transfer %arg0 : tensor<6x4xf32, #oneflow.global<#[[S0]], [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#[[S1]], [S(0)]>>
// CHECK-NEXT: %[[T:.*]] = oneflow.transfer %arg0 : tensor<6x4xf32, #oneflow.global<#[[S0]], [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#[[S1]], [B]>>
// CHECK-NEXT: oneflow.to_partial %[[T]] {mesh_axis = 0 : i64} : tensor<6x4xf32, #oneflow.global<#[[S1]], [B]>> -> tensor<6x4xf32, #oneflow.global<#[[S1]], [P]>>
// CHECK-NEXT: return
func.func @pipeline_stages(%x: tensor<6x4xf32, #oneflow.global<#stage0, [S(0)]>>) {
  %0 = oneflow.boxing %x : tensor<6x4xf32, #oneflow.global<#stage0, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#stage1, [S(0)]>>
  %1 = oneflow.boxing %x : tensor<6x4xf32, #oneflow.global<#stage0, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#stage1, [P]>>
  return
}

// -----

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
#stage = #oneflow.placement<cpu, ranks = [4, 5]>

// A 2x2 mesh to a stage of two ranks, partial on both sides.
// CHECK-LABEL: func.func @mesh_to_stage
// CHECK-NEXT: %[[T:.*]] = oneflow.transfer %arg0 : tensor<6x4xf32, #oneflow.global<#cpu2x2, [S(1), P]>> -> tensor<6x4xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.to_partial %[[T]] {mesh_axis = 0 : i64} : {{.*}} -> tensor<6x4xf32, #oneflow.global<#cpu2, [P]>>
func.func @mesh_to_stage(%x: tensor<6x4xf32, #oneflow.global<#mesh, [S(1), P]>>) {
  %0 = oneflow.boxing %x : tensor<6x4xf32, #oneflow.global<#mesh, [S(1), P]>> -> tensor<6x4xf32, #oneflow.global<#stage, [P]>>
  return
}

// -----

// P(max) and P(min) reduce with their own reduction; between two
// reductions, and from a split to P(max), the route goes through B; a
// P(max) source is all-reduced before it moves to another placement.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
#stage = #oneflow.placement<cpu, ranks = [2, 3]>

// CHECK-LABEL: func.func @max_and_min
// CHECK-NEXT: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.reduce_scatter %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P(min)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
// CHECK-NEXT: %[[B:.*]] = oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.to_partial %[[B]] {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: %[[G:.*]] = oneflow.all_gather %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.to_partial %[[G]] {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>>
// CHECK-NEXT: %[[R:.*]] = oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.transfer %[[R]] : tensor<12x8xf32, #oneflow.global<#cpu2, [B]>> -> tensor<12x8xf32, #oneflow.global<{{#cpu2_[0-9]+}}, [S(0)]>>
// CHECK-NEXT: return
func.func @max_and_min(%m: tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>>, %n: tensor<12x8xf32, #oneflow.global<#cpu2, [P(min)]>>, %s0: tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>>) {
  %m_b = oneflow.boxing %m : tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [B]>>
  %n_s1 = oneflow.boxing %n : tensor<12x8xf32, #oneflow.global<#cpu2, [P(min)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [S(1)]>>
  %m_p = oneflow.boxing %m : tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P]>>
  %s0_m = oneflow.boxing %s0 : tensor<12x8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>>
  %m_stage = oneflow.boxing %m : tensor<12x8xf32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<12x8xf32, #oneflow.global<#stage, [S(0)]>>
  return
}
