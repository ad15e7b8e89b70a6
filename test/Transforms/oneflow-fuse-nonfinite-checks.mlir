// RUN: of-opt %s -split-input-file -oneflow-fuse-nonfinite-checks | FileCheck %s

// The checks of a step's three gradients and their maximum chain, as
// oneflow-optimizer builds them with nonfinite=skip: one check of the three
// tensors in order, without `like`, where the last one was; the chain is
// gone and every update reads the one flag.

// CHECK-LABEL: func.func @step
// CHECK-NOT:  oneflow.maximum
// CHECK:      %[[F:.*]] = oneflow.find_nonfinite %arg3, %arg4, %arg5 {codes = array<i64: 3, 2, 1>, labels = ["gradient of 'a'", "gradient of 'b'", "gradient of 'c'"]} : (tensor<4xf32>, tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
// CHECK-NOT:  oneflow.maximum
// CHECK:      oneflow.output "nonfinite", %[[F]] {skips_updates}
// CHECK:      oneflow.sgd_update %arg0, %arg3 scale(%arg6) skip(%[[F]])
// CHECK:      oneflow.sgd_update %arg1, %arg4 scale(%arg6) skip(%[[F]])
// CHECK:      oneflow.sgd_update %arg2, %arg5 scale(%arg6) skip(%[[F]])
func.func @step(%a: tensor<4xf32>, %b: tensor<2x3xf32>, %c: tensor<f32>,
                %ga: tensor<4xf32>, %gb: tensor<2x3xf32>, %gc: tensor<f32>,
                %one: tensor<f32>) {
  %ca = oneflow.find_nonfinite %ga like %a {codes = array<i64: 3>, labels = ["gradient of 'a'"]} : (tensor<4xf32>, tensor<4xf32>) -> tensor<f32>
  %cb = oneflow.find_nonfinite %gb like %b {codes = array<i64: 2>, labels = ["gradient of 'b'"]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %m = oneflow.maximum %ca, %cb : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %cc = oneflow.find_nonfinite %gc like %c {codes = array<i64: 1>, labels = ["gradient of 'c'"]} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %flag = oneflow.maximum %m, %cc : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "nonfinite", %flag {skips_updates} : tensor<f32>
  oneflow.sgd_update %a, %ga scale(%one) skip(%flag) {lr = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>
  oneflow.sgd_update %b, %gb scale(%one) skip(%flag) {lr = 1.0 : f64} : tensor<2x3xf32>, tensor<2x3xf32>, tensor<f32>, tensor<f32>
  oneflow.sgd_update %c, %gc scale(%one) skip(%flag) {lr = 1.0 : f64} : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>
  return
}

// -----

// Two layouts (ZeRO-split gradients give P(max) flags, replicated ones B):
// one check per layout; the maximum of the two stays.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @layouts
// CHECK:      %[[P:.*]] = oneflow.find_nonfinite %arg0, %arg2 {codes = array<i64: 4, 2>, labels = ["p1", "p2"]} : ({{.*}}) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
// CHECK:      %[[B:.*]] = oneflow.find_nonfinite %arg1, %arg3 {codes = array<i64: 3, 1>, labels = ["b1", "b2"]} : ({{.*}}) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
// CHECK-NOT:  oneflow.find_nonfinite
// CHECK:      %[[R:.*]] = oneflow.all_reduce %[[P]]
// CHECK:      %[[M:.*]] = oneflow.maximum %[[R]], %[[B]]
// CHECK:      return %[[M]]
func.func @layouts(%p1: tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>, %b1: tensor<4xf32, #oneflow.global<#cpu2, [B]>>,
                   %p2: tensor<6xf32, #oneflow.global<#cpu2, [S(0)]>>, %b2: tensor<2xf32, #oneflow.global<#cpu2, [B]>>)
    -> tensor<f32, #oneflow.global<#cpu2, [B]>> {
  %c1 = oneflow.find_nonfinite %p1 {codes = array<i64: 4>, labels = ["p1"]} : (tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
  %c2 = oneflow.find_nonfinite %b1 {codes = array<i64: 3>, labels = ["b1"]} : (tensor<4xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %c3 = oneflow.find_nonfinite %p2 {codes = array<i64: 2>, labels = ["p2"]} : (tensor<6xf32, #oneflow.global<#cpu2, [S(0)]>>) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
  %c4 = oneflow.find_nonfinite %b2 {codes = array<i64: 1>, labels = ["b2"]} : (tensor<2xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %p = oneflow.maximum %c1, %c3 : (tensor<f32, #oneflow.global<#cpu2, [P(max)]>>, tensor<f32, #oneflow.global<#cpu2, [P(max)]>>) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
  %b = oneflow.maximum %c2, %c4 : (tensor<f32, #oneflow.global<#cpu2, [B]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %r = oneflow.all_reduce %p {mesh_axis = 0} : tensor<f32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %m = oneflow.maximum %r, %b : (tensor<f32, #oneflow.global<#cpu2, [B]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  return %m : tensor<f32, #oneflow.global<#cpu2, [B]>>
}

// -----

// Checks on two placements (pipeline stages) are not one op.

#s0 = #oneflow.placement<cpu, ranks = [0]>
#s1 = #oneflow.placement<cpu, ranks = [1]>

// CHECK-LABEL: func.func @stages
// CHECK-COUNT-2: oneflow.find_nonfinite
// CHECK-NOT:  oneflow.find_nonfinite
func.func @stages(%g0: tensor<4xf32, #oneflow.global<#s0, [B]>>, %g1: tensor<4xf32, #oneflow.global<#s1, [B]>>)
    -> (tensor<f32, #oneflow.global<#s0, [B]>>, tensor<f32, #oneflow.global<#s1, [B]>>) {
  %c0 = oneflow.find_nonfinite %g0 {codes = array<i64: 2>, labels = ["g0"]} : (tensor<4xf32, #oneflow.global<#s0, [B]>>) -> tensor<f32, #oneflow.global<#s0, [B]>>
  %c1 = oneflow.find_nonfinite %g1 {codes = array<i64: 1>, labels = ["g1"]} : (tensor<4xf32, #oneflow.global<#s1, [B]>>) -> tensor<f32, #oneflow.global<#s1, [B]>>
  return %c0, %c1 : tensor<f32, #oneflow.global<#s0, [B]>>, tensor<f32, #oneflow.global<#s1, [B]>>
}

// -----

// A check of a tensor made from another check's flag starts a new group:
// the first and third are one op, the second stays.

// CHECK-LABEL: func.func @depends
// CHECK:      %[[A:.*]] = oneflow.find_nonfinite %arg0 {codes = array<i64: 3>
// CHECK:      %[[X:.*]] = oneflow.mul %arg1, %[[A]]
// CHECK:      oneflow.find_nonfinite %[[X]], %arg2 {codes = array<i64: 2, 1>
func.func @depends(%g0: tensor<f32>, %g1: tensor<f32>, %g2: tensor<f32>) -> tensor<f32> {
  %c0 = oneflow.find_nonfinite %g0 {codes = array<i64: 3>, labels = ["g0"]} : (tensor<f32>) -> tensor<f32>
  %x = oneflow.mul %g1, %c0 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c1 = oneflow.find_nonfinite %x {codes = array<i64: 2>, labels = ["x"]} : (tensor<f32>) -> tensor<f32>
  %c2 = oneflow.find_nonfinite %g2 {codes = array<i64: 1>, labels = ["g2"]} : (tensor<f32>) -> tensor<f32>
  %m = oneflow.maximum %c0, %c1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %n = oneflow.maximum %m, %c2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %n : tensor<f32>
}

// -----

// An update that reads the first flag, followed by a reader of what it
// writes: fusing would move the update past that reader, so the checks
// stay as they are.

// CHECK-LABEL: func.func @write_order
// CHECK-COUNT-2: oneflow.find_nonfinite
// CHECK:      oneflow.maximum
func.func @write_order(%w: tensor<4xf32>, %g: tensor<4xf32>, %h: tensor<4xf32>, %one: tensor<f32>) -> (tensor<4xf32>, tensor<f32>) {
  %c0 = oneflow.find_nonfinite %g {codes = array<i64: 2>, labels = ["g"]} : (tensor<4xf32>) -> tensor<f32>
  oneflow.sgd_update %w, %g scale(%one) skip(%c0) {lr = 1.0 : f64} : tensor<4xf32>, tensor<4xf32>, tensor<f32>, tensor<f32>
  %r = oneflow.relu %w : (tensor<4xf32>) -> tensor<4xf32>
  %c1 = oneflow.find_nonfinite %h {codes = array<i64: 1>, labels = ["h"]} : (tensor<4xf32>) -> tensor<f32>
  %m = oneflow.maximum %c0, %c1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return %r, %m : tensor<4xf32>, tensor<f32>
}

// -----

// Two groups of independent checks that cross: b2 reads a1 (through an
// all-reduce), a2 reads b1. Fusing both would make a cycle; the first
// group is fused, and then b2 depends on b1 through it and stays apart.

// CHECK-LABEL: func.func @crossed
// CHECK:      %[[B1:.*]] = oneflow.find_nonfinite %arg2 {codes = array<i64: 2>
// CHECK:      %[[T2:.*]] = oneflow.add %arg1, %[[B1]]
// CHECK:      oneflow.find_nonfinite %arg0, %[[T2]] {codes = array<i64: 1, 3>
// CHECK:      oneflow.find_nonfinite {{.*}} {codes = array<i64: 4>
// CHECK:      return
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
func.func @crossed(%x0: tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>, %x1: tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>, %y0: tensor<4xf32, #oneflow.global<#cpu2, [B]>>, %y1: tensor<4xf32, #oneflow.global<#cpu2, [B]>>)
    -> (tensor<f32, #oneflow.global<#cpu2, [P(max)]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) {
  %a1 = oneflow.find_nonfinite %x0 {codes = array<i64: 1>, labels = ["a1"]} : (tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
  %b1 = oneflow.find_nonfinite %y0 {codes = array<i64: 2>, labels = ["b1"]} : (tensor<4xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %t2 = oneflow.add %x1, %b1 : (tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>
  %a2 = oneflow.find_nonfinite %t2 {codes = array<i64: 3>, labels = ["a2"]} : (tensor<4xf32, #oneflow.global<#cpu2, [S(0)]>>) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
  %r1 = oneflow.all_reduce %a1 {mesh_axis = 0} : tensor<f32, #oneflow.global<#cpu2, [P(max)]>> -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %t1 = oneflow.add %y1, %r1 : (tensor<4xf32, #oneflow.global<#cpu2, [B]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %b2 = oneflow.find_nonfinite %t1 {codes = array<i64: 4>, labels = ["b2"]} : (tensor<4xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  %m = oneflow.maximum %a1, %a2 : (tensor<f32, #oneflow.global<#cpu2, [P(max)]>>, tensor<f32, #oneflow.global<#cpu2, [P(max)]>>) -> tensor<f32, #oneflow.global<#cpu2, [P(max)]>>
  %n = oneflow.maximum %b1, %b2 : (tensor<f32, #oneflow.global<#cpu2, [B]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  return %m, %n : tensor<f32, #oneflow.global<#cpu2, [P(max)]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>
}
