// RUN: of-opt %s -split-input-file -verify-diagnostics -oneflow-accumulate-micro-batches | FileCheck %s

// A micro-batched program (2 micro-batches on mesh axis 0, 2 devices on
// axis 1): the all-reduce over the micro-batches becomes an accumulation;
// the one over the devices stays; a slice into micro-batches stays.

#m2x2 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// CHECK-LABEL: func.func @sums
// CHECK:      %[[A:.*]] = oneflow.accumulate %arg0 {mesh_axis = 0 : i64} : tensor<4xf32, #oneflow.global<#{{.*}}, [P, P]>> -> tensor<4xf32, #oneflow.global<#{{.*}}, [B, P]>>
// CHECK-NEXT: oneflow.all_reduce %[[A]] {mesh_axis = 1 : i64}
// CHECK:      oneflow.local_slice %arg1 {mesh_axis = 0 : i64}
func.func @sums(%g: tensor<4xf32, #oneflow.global<#m2x2, [P, P]>>,
                %w: tensor<4x2xf32, #oneflow.global<#m2x2, [B, B]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  %0 = oneflow.all_reduce %g {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#m2x2, [P, P]>> -> tensor<4xf32, #oneflow.global<#m2x2, [B, P]>>
  %1 = oneflow.all_reduce %0 {mesh_axis = 1} : tensor<4xf32, #oneflow.global<#m2x2, [B, P]>> -> tensor<4xf32, #oneflow.global<#m2x2, [B, B]>>
  %2 = oneflow.local_slice %w {mesh_axis = 0} : tensor<4x2xf32, #oneflow.global<#m2x2, [B, B]>> -> tensor<4x2xf32, #oneflow.global<#m2x2, [S(0), B]>>
  return
}

// -----

// Without micro-batches, mesh axis 0 is devices: nothing changes.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @devices
// CHECK: oneflow.all_reduce %arg0 {mesh_axis = 0 : i64}
func.func @devices(%g: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  %0 = oneflow.all_reduce %g {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

#m2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @gather(%x: tensor<4xf32, #oneflow.global<#m2, [S(0)]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{'oneflow.all_gather' op moves a value between the micro-batches of a step (mesh axis 0)}}
  %0 = oneflow.all_gather %x {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#m2, [S(0)]>> -> tensor<4xf32, #oneflow.global<#m2, [B]>>
  return
}

// -----

#m2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @split_output(%x: tensor<4xf32, #oneflow.global<#m2, [S(0)]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{output 'prob' is S(0) over the micro-batches; outputs of a micro-batched step must be whole per step (a loss, summed)}}
  oneflow.output "prob", %x : tensor<4xf32, #oneflow.global<#m2, [S(0)]>>
  return
}

// -----

#m2 = #oneflow.placement<cpu, ranks = [0, 1]>

func.func @partial_source() attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{is a source that is partial over the micro-batches}}
  %0 = oneflow.fill 1.0 : tensor<4xf32, #oneflow.global<#m2, [P]>>
  return
}

// -----

#cpu2x2 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

func.func @transfer(%x: tensor<4xf32, #oneflow.global<#cpu2x2, [S(0), B]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  // expected-error @+1 {{moves a value between placements and between micro-batches (S(0) -> B on mesh axis 0); a transfer keeps each micro-batch's piece where it is in time}}
  %0 = oneflow.transfer %x : tensor<4xf32, #oneflow.global<#cpu2x2, [S(0), B]>> -> tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [B]>>
  return
}

// -----

// A transfer between pipeline stages that keeps each micro-batch's piece
// stays as it is.
#stage0 = #oneflow.placement<cpu, ranks = [0, 2], mesh = [2]>
#stage1 = #oneflow.placement<cpu, ranks = [1, 3], mesh = [2]>

// CHECK-LABEL: func.func @stage_transfer
// CHECK-NEXT:  oneflow.transfer
func.func @stage_transfer(%x: tensor<4xf32, #oneflow.global<#stage0, [S(0)]>>)
    attributes {oneflow.micro_batches = 2 : i64} {
  %0 = oneflow.transfer %x : tensor<4xf32, #oneflow.global<#stage0, [S(0)]>> -> tensor<4xf32, #oneflow.global<#stage1, [S(0)]>>
  return
}
