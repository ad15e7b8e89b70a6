// RUN: of-opt %s -split-input-file -oneflow-sbp-propagation -oneflow-expand-split-softmax | FileCheck %s
// RUN: of-opt %s -split-input-file -oneflow-sbp-propagation -oneflow-expand-split-softmax -oneflow-insert-boxing -oneflow-lower-boxing | FileCheck %s --check-prefix=STEPS
// RUN: not of-opt %s -split-input-file -oneflow-sbp-propagation -oneflow-insert-boxing -oneflow-lower-boxing -oneflow-lower-to-actor-graph 2>&1 | FileCheck %s --check-prefix=UNEXPANDED

// Vocabulary-parallel cross-entropy: logits from a column-parallel LM head
// (split by classes), the labels whole. Propagation keeps the split (the
// model-split signature: probabilities split, the loss partial) and the
// expansion runs it as Megatron does.

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

// CHECK-LABEL: func.func @vocab_parallel_cross_entropy
// CHECK: %[[X:.*]] = oneflow.input "logits" : tensor<8x16xf32, #oneflow.global<#cpu4, [S(1)]>>
// CHECK: %[[L:.*]] = oneflow.input "labels"
// CHECK: %[[M:.*]] = oneflow.reduce_max %[[X]] {axes = array<i64: 1>, keepdims, oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(1)]>]} : {{.*}} -> tensor<8x1xf32, #oneflow.global<#cpu4, [P(max)]>>
// CHECK: %[[Z:.*]] = oneflow.sub %[[X]], %[[M]] {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(1)]>, #oneflow.global<#cpu4, [B]>]}
// CHECK: %[[E:.*]] = oneflow.exp %[[Z]]
// CHECK: %[[S:.*]] = oneflow.reduce_sum %[[E]] {axes = array<i64: 1>, keepdims, {{.*}}} : {{.*}} -> tensor<8x1xf32, #oneflow.global<#cpu4, [P]>>
// CHECK: %[[P:.*]] = oneflow.div %[[E]], %[[S]] {oneflow.operand_layouts = [#oneflow.global<#cpu4, [S(1)]>, #oneflow.global<#cpu4, [B]>]} : {{.*}} -> tensor<8x16xf32, #oneflow.global<#cpu4, [S(1)]>>
// CHECK: %[[C:.*]] = oneflow.reshape %[[L]] {oneflow.operand_layouts = [#oneflow.global<#cpu4, [B]>]} : {{.*}} -> tensor<8x1xi64, #oneflow.global<#cpu4, [B]>>
// CHECK: %[[G:.*]] = oneflow.gather_elements %[[Z]], %[[C]] {axis = 1 : i64, {{.*}}} : {{.*}} -> tensor<8x1xf32, #oneflow.global<#cpu4, [P]>>
// CHECK: %[[LOG:.*]] = oneflow.log %[[S]] {oneflow.operand_layouts = [#oneflow.global<#cpu4, [B]>]}
// CHECK: %[[D:.*]] = oneflow.sub %[[LOG]], %[[G]] {oneflow.operand_layouts = [#oneflow.global<#cpu4, [P]>, #oneflow.global<#cpu4, [P]>]}
// CHECK: %[[LOSS:.*]] = oneflow.reshape %[[D]] {{.*}} -> tensor<8xf32, #oneflow.global<#cpu4, [P]>>
// CHECK-NOT: sparse_softmax_cross_entropy
// CHECK: oneflow.output "prob", %[[P]]
// CHECK: oneflow.output "loss", %[[LOSS]]
//
// The forward's collectives: an all-reduce max and an all-reduce sum of one
// value per sample (log(s) made partial by a to_partial; the loss output
// stays partial).
// STEPS-LABEL: func.func @vocab_parallel_cross_entropy
// STEPS: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<8x1xf32, #oneflow.global<#cpu4, [P(max)]>> -> tensor<8x1xf32, #oneflow.global<#cpu4, [B]>>
// STEPS: oneflow.all_reduce %{{.*}} {mesh_axis = 0 : i64} : tensor<8x1xf32, #oneflow.global<#cpu4, [P]>> -> tensor<8x1xf32, #oneflow.global<#cpu4, [B]>>
// STEPS: oneflow.to_partial %{{.*}} {mesh_axis = 0 : i64} : tensor<8x1xf32, #oneflow.global<#cpu4, [B]>> -> tensor<8x1xf32, #oneflow.global<#cpu4, [P]>>
// STEPS-NOT: all_gather
// STEPS: return
//
// Without the expansion the actor lowering refuses the op.
// UNEXPANDED: error: 'oneflow.sparse_softmax_cross_entropy' op normalizes over axis 1, which its layout splits; no kernel runs it per piece, run oneflow-expand-split-softmax first
func.func @vocab_parallel_cross_entropy() {
  %x = oneflow.input "logits" : tensor<8x16xf32, #oneflow.global<#p4, [S(1)]>>
  %l = oneflow.input "labels" : tensor<8xi64, #oneflow.global<#p4, [B]>>
  %p, %loss = oneflow.sparse_softmax_cross_entropy %x, %l : (tensor<8x16xf32, #oneflow.global<#p4, [S(1)]>>, tensor<8xi64, #oneflow.global<#p4, [B]>>) -> (tensor<8x16xf32>, tensor<8xf32>)
  oneflow.output "prob", %p : tensor<8x16xf32>
  oneflow.output "loss", %loss : tensor<8xf32>
  return
}

// -----

// softmax and log_softmax over a split axis on a 2x2 mesh: the batch split
// on mesh axis 0 stays, the classes split on mesh axis 1 become P(max) and
// P there.

#m = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// CHECK-LABEL: func.func @softmax_on_a_mesh
// CHECK: oneflow.reduce_max {{.*}} -> tensor<4x1xf32, #oneflow.global<#cpu2x2, [S(0), P(max)]>>
// CHECK: oneflow.reduce_sum {{.*}} -> tensor<4x1xf32, #oneflow.global<#cpu2x2, [S(0), P]>>
// CHECK: oneflow.div {{.*}}, #oneflow.global<#cpu2x2, [S(0), B]>]} {{.*}} -> tensor<4x6xf32, #oneflow.global<#cpu2x2, [S(0), S(1)]>>
// CHECK: oneflow.reduce_max {{.*}} -> tensor<4x1xf32, #oneflow.global<#cpu2x2, [S(0), P(max)]>>
// CHECK: oneflow.reduce_sum {{.*}} -> tensor<4x1xf32, #oneflow.global<#cpu2x2, [S(0), P]>>
// CHECK: oneflow.log {{.*}} -> tensor<4x1xf32, #oneflow.global<#cpu2x2, [S(0), B]>>
// CHECK: oneflow.sub {{.*}} -> tensor<4x6xf32, #oneflow.global<#cpu2x2, [S(0), S(1)]>>
// CHECK-NOT: softmax
func.func @softmax_on_a_mesh() {
  %x = oneflow.input "x" : tensor<4x6xf32, #oneflow.global<#m, [S(0), S(1)]>>
  %y = oneflow.softmax %x {axis = 1 : i64} : (tensor<4x6xf32, #oneflow.global<#m, [S(0), S(1)]>>) -> tensor<4x6xf32>
  %z = oneflow.log_softmax %x : (tensor<4x6xf32, #oneflow.global<#m, [S(0), S(1)]>>) -> tensor<4x6xf32>
  oneflow.output "y", %y : tensor<4x6xf32>
  oneflow.output "z", %z : tensor<4x6xf32>
  return
}

// -----

// A softmax over a whole axis is left alone.

#p2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @whole_axis
// CHECK: oneflow.softmax
// CHECK-NOT: reduce_max
func.func @whole_axis() {
  %x = oneflow.input "x" : tensor<4x6xf32, #oneflow.global<#p2, [S(0)]>>
  %y = oneflow.softmax %x : (tensor<4x6xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<4x6xf32>
  oneflow.output "y", %y : tensor<4x6xf32>
  return
}
