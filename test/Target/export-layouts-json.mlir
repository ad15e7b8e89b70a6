// RUN: of-translate --export-layouts-json %s -split-input-file -verify-diagnostics | FileCheck %s

// Two mesh axes splitting two tensor axes, broadcast and partial.
// CHECK: "nd_sbp":"[S(1), S(0)]"
// CHECK-SAME: {"coordinate":[1,1],"offsets":[4,3],"rank":3,"shape":[4,3]}

// Balanced splits: 10 over 4 ranks is 3, 3, 2, 2.
// CHECK: "mesh":[4],"name":"x","nd_sbp":"[S(0)]","op":"oneflow.input"
// CHECK-SAME: {"coordinate":[0],"offsets":[0,0],"rank":0,"shape":[3,5]}
// CHECK-SAME: {"coordinate":[1],"offsets":[3,0],"rank":1,"shape":[3,5]}
// CHECK-SAME: {"coordinate":[2],"offsets":[6,0],"rank":2,"shape":[2,5]}
// CHECK-SAME: {"coordinate":[3],"offsets":[8,0],"rank":3,"shape":[2,5]}
// CHECK-SAME: "shape":[10,5]

// Nested split on a 2x2 mesh: length 6 under (S(0), S(0)) is 2, 1, 2, 1.
// CHECK: "mesh":[2,2],"name":"y","nd_sbp":"[S(0), S(0)]"
// CHECK-SAME: {"coordinate":[0,0],"offsets":[0],"rank":4,"shape":[2]}
// CHECK-SAME: {"coordinate":[0,1],"offsets":[2],"rank":5,"shape":[1]}
// CHECK-SAME: {"coordinate":[1,0],"offsets":[3],"rank":6,"shape":[2]}
// CHECK-SAME: {"coordinate":[1,1],"offsets":[5],"rank":7,"shape":[1]}

// Broadcast and partial keep the whole tensor.
// CHECK: "nd_sbp":"[B, P]"
// CHECK-SAME: {"coordinate":[1,1],"offsets":[0,0],"rank":3,"shape":[8,6]}
func.func @layouts(%a: tensor<8x6xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(1), S(0)]>>) {
  %x = oneflow.input "x" : tensor<10x5xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [S(0)]>>
  %y = oneflow.input "y" : tensor<6xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [4, 5, 6, 7], mesh = [2, 2]>, [S(0), S(0)]>>
  %z = oneflow.relu %a : (tensor<8x6xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(1), S(0)]>>) -> tensor<8x6xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, P]>>
  return
}

// -----

func.func @negative_dynamic(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{cannot report the layout of a tensor with unknown dimensions; run oneflow-infer-shapes first}}
  %y = oneflow.relu %x : (tensor<4x4xf32>) -> tensor<?x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  return
}
