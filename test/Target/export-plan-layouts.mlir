// RUN: of-opt %s -oneflow-lower-boxing -oneflow-lower-to-actor-graph | of-translate --export-plan-text | FileCheck %s

// Plan version 2: what the per-rank lowering says about the other ranks
// leaves the op's attributes and becomes each actor's typed layout: a
// source's piece, a collective's group and axis, a transfer's sends and
// receives, a split mean's divisor, a sink's piece, partial and primary.
// Version 3: each actor's role (what the runtime makes of it).

// CHECK: version: CURRENT
// CHECK-LABEL: ranks {
// CHECK:         op: "oneflow.input"
// CHECK-NOT:     key: "logical_shape"
// CHECK:         piece {
// CHECK-NEXT:      logical_shape: 6
// CHECK-NEXT:      logical_shape: 4
// CHECK-NEXT:      begin: 0
// CHECK-NEXT:      begin: 0
// CHECK-NEXT:    }
// CHECK-NEXT:    role: ROLE_INPUT
// CHECK:         op: "oneflow.all_gather"
// CHECK-NOT:     key: "group"
// CHECK:         collective {
// CHECK-NEXT:      group: 0
// CHECK-NEXT:      group: 1
// CHECK-NEXT:    }
// CHECK-NEXT:    role: ROLE_ALL_GATHER
// CHECK:         op: "oneflow.transfer"
// CHECK:         transfer {
// CHECK-NEXT:      group: 0
// CHECK-NEXT:      group: 1
// CHECK-NEXT:      group: 2
// CHECK-NEXT:      sends {
// CHECK-NEXT:        peer: 2
// CHECK-NEXT:        begin: 0
// CHECK-NEXT:        begin: 0
// CHECK-NEXT:        size: 3
// CHECK-NEXT:        size: 4
// CHECK-NEXT:      }
// CHECK:         op: "oneflow.reduce_mean"
// CHECK:         divisor {
// CHECK-NEXT:      divisor: 6
// CHECK-NEXT:    }
// A kernel's role is the default (not written).
// CHECK-NOT:     role:
// CHECK:         op: "oneflow.output"
// CHECK:         sink {
// CHECK-NEXT:      piece {
// CHECK:           }
// CHECK-NEXT:      partial: true
// CHECK-NEXT:      primary: true
// CHECK-NEXT:    }
// CHECK-NEXT:    role: ROLE_OUTPUT
// CHECK:         firings_per_step: 1
// CHECK:         device {
// CHECK-NEXT:      kind: CPU
// CHECK-NEXT:    }
// CHECK-LABEL: ranks {
// CHECK-NEXT:    rank: 1
// CHECK-LABEL: ranks {
// CHECK-NEXT:    rank: 2
// CHECK:         op: "oneflow.transfer"
// CHECK:         transfer {
// CHECK:           recvs {

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
#cpu3 = #oneflow.placement<cpu, ranks = [2]>
func.func @layouts() {
  %x = oneflow.input "x" : tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>>
  %b = oneflow.boxing %x : tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#cpu2, [B]>>
  %t = oneflow.boxing %x : tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<6x4xf32, #oneflow.global<#cpu3, [B]>>
  %m = oneflow.reduce_mean %x {axes = array<i64: 0>} : (tensor<6x4xf32, #oneflow.global<#cpu2, [S(0)]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [P]>>
  oneflow.output "m", %m : tensor<4xf32, #oneflow.global<#cpu2, [P]>>
  oneflow.output "b", %b : tensor<6x4xf32, #oneflow.global<#cpu2, [B]>>
  oneflow.output "t", %t : tensor<6x4xf32, #oneflow.global<#cpu3, [B]>>
  return
}
