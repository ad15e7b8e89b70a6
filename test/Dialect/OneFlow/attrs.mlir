// RUN: of-opt %s | of-opt | FileCheck %s

// Placements print once, through aliases named after device and mesh.
// CHECK-DAG: #[[CPU4:cpu4]] = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
// CHECK-DAG: #[[MESH:cpu2x2]] = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
// CHECK-DAG: #[[GPU:cuda2]] = #oneflow.placement<cuda, ranks = [5, 4]>
// CHECK-DAG: #[[STAGE:cpu3]] = #oneflow.placement<cpu, ranks = [4, 5, 6]>

// CHECK-LABEL: func.func @sbp
// CHECK-SAME: a = #oneflow.sbp<S(1)>
// CHECK-SAME: b = #oneflow.sbp<B>
// CHECK-SAME: nd = #oneflow.nd_sbp<[S(0), B]>
// CHECK-SAME: nd3 = #oneflow.nd_sbp<[P, S(2), S(2)]>
// CHECK-SAME: p = #oneflow.sbp<P>
func.func @sbp() attributes {
    a = #oneflow.sbp<S(1)>, b = #oneflow.sbp<B>, p = #oneflow.sbp<P>,
    nd = #oneflow.nd_sbp<[S(0), B]>, nd3 = #oneflow.nd_sbp<[P, S(2), S(2)]>} {
  return
}

// Partial with another reduction prints its name; P(sum) is P.
// CHECK-LABEL: func.func @partial_reductions
// CHECK-SAME: max = #oneflow.sbp<P(max)>
// CHECK-SAME: min = #oneflow.sbp<P(min)>
// CHECK-SAME: nd = #oneflow.nd_sbp<[P(max), S(0), P(max)]>
// CHECK-SAME: sum = #oneflow.sbp<P>
func.func @partial_reductions() attributes {
    max = #oneflow.sbp<P(max)>, min = #oneflow.sbp<P(min)>,
    sum = #oneflow.sbp<P(sum)>, nd = #oneflow.nd_sbp<[P(max), S(0), P(max)]>} {
  return
}

// A one-axis mesh over all ranks is the default and is not printed; ranks
// keep their order (the position in the list is the parallel id).
// CHECK-LABEL: func.func @placements
// CHECK-SAME: explicit = #[[CPU4]]
// CHECK-SAME: flat = #[[CPU4]]
// CHECK-SAME: gpu = #[[GPU]]
// CHECK-SAME: mesh = #[[MESH]]
func.func @placements() attributes {
    flat = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>,
    explicit = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [4]>,
    mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>,
    gpu = #oneflow.placement<cuda, ranks = [5, 4]>} {
  return
}

// CHECK-LABEL: func.func @encodings
// CHECK-SAME: tensor<10x6xf32, #oneflow.global<#[[MESH]], [S(0), S(1)]>>
// CHECK-SAME: tensor<6xf32, #oneflow.global<#[[MESH]], [S(0), S(0)]>>
// CHECK-SAME: tensor<4x4xf16, #oneflow.global<#[[CPU4]], [P]>>
// CHECK-SAME: tensor<f32, #oneflow.global<#[[STAGE]], [B]>>
func.func @encodings(
    %a: tensor<10x6xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), S(1)]>>,
    %b: tensor<6xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), S(0)]>>,
    %c: tensor<4x4xf16, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3]>, [P]>>,
    %d: tensor<f32, #oneflow.global<#oneflow.placement<cpu, ranks = [4, 5, 6]>, [B]>>) {
  return
}

// CHECK-LABEL: func.func @initializers
// CHECK-SAME: c = #oneflow.init<constant(1.500000e+00)>
// CHECK-SAME: k = #oneflow.init<kaiming_uniform>
// CHECK-SAME: n = #oneflow.init<normal(0.000000e+00, 2.000000e-02)>
// CHECK-SAME: o = #oneflow.init<ones>
// CHECK-SAME: u = #oneflow.init<uniform(-1.000000e-01, 1.000000e-01)>
// CHECK-SAME: x = #oneflow.init<xavier_uniform>
// CHECK-SAME: z = #oneflow.init<zeros>
func.func @initializers() attributes {
    z = #oneflow.init<zeros>, o = #oneflow.init<ones>,
    c = #oneflow.init<constant(1.5)>, u = #oneflow.init<uniform(-0.1, 0.1)>,
    n = #oneflow.init<normal(0.0, 0.02)>, x = #oneflow.init<xavier_uniform>,
    k = #oneflow.init<kaiming_uniform>} {
  return
}
