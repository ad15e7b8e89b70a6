// RUN: of-opt %s -split-input-file -verify-diagnostics

// oneflow.accumulate sums over the micro-batch axis of a micro-batched
// program only.

#m2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @no_micro_batches(%x: tensor<4xf32, #oneflow.global<#m2, [P]>>) {
  // expected-error @+1 {{needs a program split into micro-batches (a oneflow.micro_batches of at least 2 on its function)}}
  %0 = oneflow.accumulate %x {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#m2, [P]>> -> tensor<4xf32, #oneflow.global<#m2, [B]>>
  return
}

// -----

#m2x2 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

func.func @device_axis(%x: tensor<4xf32, #oneflow.global<#m2x2, [B, P]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{accumulates over mesh axis 1; micro-batches are mesh axis 0}}
  %0 = oneflow.accumulate %x {mesh_axis = 1} : tensor<4xf32, #oneflow.global<#m2x2, [B, P]>> -> tensor<4xf32, #oneflow.global<#m2x2, [B, B]>>
  return
}

// -----

#m4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>

func.func @count(%x: tensor<4xf32, #oneflow.global<#m4, [P]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{sums 4 values per step but the program has 2 micro-batches}}
  %0 = oneflow.accumulate %x {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#m4, [P]>> -> tensor<4xf32, #oneflow.global<#m4, [B]>>
  return
}

// -----

#m2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @not_a_sum(%x: tensor<4xf32, #oneflow.global<#m2, [S(0)]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{turns S(0) into B on mesh axis 0, expected P -> B}}
  %0 = oneflow.accumulate %x {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#m2, [S(0)]>> -> tensor<4xf32, #oneflow.global<#m2, [B]>>
  return
}

// -----

#m2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @max_over_micro_batches(%x: tensor<4xf32, #oneflow.global<#m2, [P(max)]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{sums over micro-batches but its operand is P(max) on mesh axis 0}}
  %0 = oneflow.accumulate %x {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#m2, [P(max)]>> -> tensor<4xf32, #oneflow.global<#m2, [B]>>
  return
}
