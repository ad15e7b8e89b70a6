// The predicted cost of every boxing, before and after lowering, with the
// default cluster (ranks as threads over shared memory), with Gloo's
// built-in figures and with figures read from a file.
// RUN: of-opt %s --pass-pipeline='builtin.module(func.func(oneflow-sbp-propagation,oneflow-insert-boxing),oneflow-report-boxing-cost)' -o /dev/null | FileCheck %s --check-prefix=BOXING
// RUN: of-opt %s --pass-pipeline='builtin.module(func.func(oneflow-sbp-propagation,oneflow-insert-boxing,oneflow-lower-boxing),oneflow-report-boxing-cost)' -o /dev/null | FileCheck %s --check-prefix=LOWERED
// RUN: of-opt %s --pass-pipeline='builtin.module(func.func(oneflow-sbp-propagation,oneflow-insert-boxing),oneflow-report-boxing-cost{cluster=builtin:gloo})' -o /dev/null | FileCheck %s --check-prefix=GLOO
// RUN: not of-opt %s --pass-pipeline='builtin.module(func.func(oneflow-sbp-propagation,oneflow-insert-boxing),oneflow-report-boxing-cost{cluster=builtin:tcp})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: cluster 'builtin:tcp': no such built-in figures (expected builtin:inproc, builtin:gloo or builtin:nccl)
// RUN: echo '{"intra_node": {"alpha": 1e-5, "beta": 1e9}}' > %t.json
// RUN: of-opt %s --pass-pipeline='builtin.module(func.func(oneflow-sbp-propagation,oneflow-insert-boxing),oneflow-report-boxing-cost{cluster=%t.json})' -o /dev/null | FileCheck %s --check-prefix=FILE

#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
#q2 = #oneflow.placement<cpu, ranks = [4, 5]>

func.func @megatron_then_stage() {
  %x = oneflow.input "x" : tensor<16x8xf32, #oneflow.global<#p4, [B]>>
  %w1 = oneflow.variable "w1" {init = #oneflow.init<zeros>} : tensor<8x32xf32, #oneflow.global<#p4, [S(1)]>>
  %w2 = oneflow.variable "w2" {init = #oneflow.init<zeros>} : tensor<32x8xf32, #oneflow.global<#p4, [S(0)]>>
  %h = oneflow.matmul %x, %w1 : (tensor<16x8xf32, #oneflow.global<#p4, [B]>>, tensor<8x32xf32, #oneflow.global<#p4, [S(1)]>>) -> tensor<16x32xf32>
  %o = oneflow.matmul %h, %w2 : (tensor<16x32xf32>, tensor<32x8xf32, #oneflow.global<#p4, [S(0)]>>) -> tensor<16x8xf32>
  %y = oneflow.add %o, %x : (tensor<16x8xf32>, tensor<16x8xf32, #oneflow.global<#p4, [B]>>) -> tensor<16x8xf32, #oneflow.global<#p4, [B]>>
  %z = oneflow.relu %y : (tensor<16x8xf32, #oneflow.global<#p4, [B]>>) -> tensor<16x8xf32, #oneflow.global<#q2, [S(0)]>>
  oneflow.output "z", %z : tensor<16x8xf32, #oneflow.global<#q2, [S(0)]>>
  return
}

// A P -> B all-reduce of 512 bytes over 4 ranks: 6 alpha + 1.5 * 512 / beta,
// 768 bytes per rank, and the copies of its 512 bytes into and out of
// oneflow-fuse-all-reduce's bucket (0.06 us at the default memory
// bandwidth): 12.25 us with the defaults (alpha 2 us, beta 4 GB/s),
// 781.02 us with Gloo's (alpha 130 us, beta 0.8 GB/s), 60.83 us with the
// file's alpha 10 us and beta 1 GB/s.
// Then the transfer of the broadcast result to the second stage: each of
// its ranks receives its 256 bytes in one message: alpha + 256 / beta.
// BOXING: location from -> to route bytes/rank us
// BOXING-NEXT: report-boxing-cost.mlir:21:8 [P] -> [B] on cpu{0,1,2,3}:4 all_reduce@0 768 12.25
// BOXING-NEXT: report-boxing-cost.mlir:22:8 [B] on cpu{0,1,2,3}:4 -> [S(0)] on cpu{4,5}:2 transfer 256 2.06
// BOXING-NEXT: total: 2 boxing ops, 2 steps, 1024 bytes/rank, 14.32 us
// LOWERED: report-boxing-cost.mlir:21:8 [P] -> [B] on cpu{0,1,2,3}:4 all_reduce@0 768 12.25
// LOWERED-NEXT: report-boxing-cost.mlir:22:8 [B] on cpu{0,1,2,3}:4 -> [S(0)] on cpu{4,5}:2 transfer 256 2.06
// LOWERED-NEXT: total: 2 boxing ops, 2 steps, 1024 bytes/rank, 14.32 us
// GLOO: report-boxing-cost.mlir:21:8 [P] -> [B] on cpu{0,1,2,3}:4 all_reduce@0 768 781.02
// GLOO-NEXT: report-boxing-cost.mlir:22:8 [B] on cpu{0,1,2,3}:4 -> [S(0)] on cpu{4,5}:2 transfer 256 130.32
// GLOO-NEXT: total: 2 boxing ops, 2 steps, 1024 bytes/rank, 911.34 us
// FILE: report-boxing-cost.mlir:21:8 [P] -> [B] on cpu{0,1,2,3}:4 all_reduce@0 768 60.83
// FILE-NEXT: report-boxing-cost.mlir:22:8 [B] on cpu{0,1,2,3}:4 -> [S(0)] on cpu{4,5}:2 transfer 256 10.26
// FILE-NEXT: total: 2 boxing ops, 2 steps, 1024 bytes/rank, 71.08 us
