// Every error of oneflow-auto-parallel; each part runs with its own options.
//
// RUN: split-file %s %t
// RUN: of-opt %t/memory.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2 memory-limit-bytes=1000}))' -verify-diagnostics
// RUN: of-opt %t/mesh.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=4 mesh=3}))' -verify-diagnostics
// RUN: of-opt %t/search.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2 search=anneal}))' -verify-diagnostics
// RUN: of-opt %t/device.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2 device=tpu}))' -verify-diagnostics
// RUN: of-opt %t/micro.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2}))' -verify-diagnostics
// RUN: of-opt %t/placement.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=4}))' -verify-diagnostics
// RUN: of-opt %t/argument.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2}))' -verify-diagnostics
// RUN: of-opt %t/boxed.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2}))' -verify-diagnostics
// RUN: of-opt %t/cluster.mlir -pass-pipeline='builtin.module(func.func(oneflow-auto-parallel{devices=2 cluster=%t/bad.json}))' -verify-diagnostics

//--- memory.mlir
// Two 1024-float variables and their sum, each cut in two, still need
// 3 x 2048 bytes.
// expected-error @below {{no strategy fits in 1000 bytes per device: the smallest possible is 6144 bytes per device (every tensor at its smallest piece)}}
func.func @f() {
  %a = oneflow.variable "a" {init = #oneflow.init<zeros>} : tensor<1024xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<1024xf32>
  %c = oneflow.add %a, %b : (tensor<1024xf32>, tensor<1024xf32>) -> tensor<1024xf32>
  oneflow.output "c", %c : tensor<1024xf32>
  return
}

//--- mesh.mlir
// expected-error @below {{oneflow-auto-parallel: mesh [3] does not have 4 devices}}
func.func @f() {
  return
}

//--- search.mlir
// expected-error @below {{oneflow-auto-parallel: search 'anneal' is not cd or exact}}
func.func @f() {
  return
}

//--- device.mlir
// expected-error @below {{oneflow-auto-parallel: device 'tpu' is not cpu or cuda}}
func.func @f() {
  return
}

//--- micro.mlir
// expected-error @below {{oneflow-auto-parallel searches programs without micro-batches or pipeline stages}}
func.func @f() attributes {oneflow.micro_batches = 2 : i64} {
  return
}

//--- placement.mlir
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
// expected-error @below {{oneflow-auto-parallel: the program states layouts on #oneflow.placement<cpu, ranks = [0, 1]>, not on the 4 devices of the search}}
func.func @f() {
  %a = oneflow.input "a" : tensor<8xf32, #oneflow.global<#cpu2, [S(0)]>>
  oneflow.output "a", %a : tensor<8xf32, #oneflow.global<#cpu2, [S(0)]>>
  return
}

//--- argument.mlir
// expected-error @below {{oneflow-auto-parallel: function arguments cannot be laid out by the search; read data with oneflow.input}}
func.func @f(%a: tensor<8xf32>) {
  oneflow.output "a", %a : tensor<8xf32>
  return
}

//--- boxed.mlir
#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>
#cpu3 = #oneflow.placement<cpu, ranks = [0, 1, 2]>
// expected-error @below {{changes layouts between placements or without stating both; the search needs one placement}}
func.func @f() {
  %a = oneflow.input "a" : tensor<8xf32, #oneflow.global<#cpu2, [S(0)]>>
  %b = oneflow.boxing %a : tensor<8xf32, #oneflow.global<#cpu2, [S(0)]>> -> tensor<8xf32, #oneflow.global<#cpu3, [B]>>
  oneflow.output "b", %b : tensor<8xf32, #oneflow.global<#cpu3, [B]>>
  return
}

//--- cluster.mlir
// expected-error @below {{bad.json: key 'collectives.broadcast' is unknown (expected all_reduce, reduce_scatter, all_gather, all_to_all)}}
func.func @f() {
  return
}

//--- bad.json
{"collectives": {"broadcast": {"alpha": 1e-6, "beta": 1e9}}}
