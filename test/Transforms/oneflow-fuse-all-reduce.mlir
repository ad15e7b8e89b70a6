// RUN: of-opt %s -split-input-file -oneflow-fuse-all-reduce | FileCheck %s
// RUN: of-opt %s -split-input-file -oneflow-fuse-all-reduce=bucket-bytes=16 | FileCheck %s --check-prefix=SMALL
// RUN: of-opt %s -split-input-file -oneflow-fuse-all-reduce=bucket-bytes=0 | FileCheck %s --check-prefix=OFF

// Three gradients and a loss, all P -> B on one axis: one all-reduce of
// their concatenation (4 + 4 + 1 = 9 elements), sliced back; the user of
// the first result moves after it, and each slice sits right before its
// first reader.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @bucket
// CHECK:      %[[A:.*]] = oneflow.reshape %arg0 : (tensor<4xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: %[[B:.*]] = oneflow.reshape %arg1 : (tensor<2x2xf32, #oneflow.global<#cpu2, [P]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: %[[C:.*]] = oneflow.reshape %arg2 : (tensor<f32, #oneflow.global<#cpu2, [P]>>) -> tensor<1xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: %[[J:.*]] = oneflow.concat %[[A]], %[[B]], %[[C]] {axis = 0 : i64} : (tensor<4xf32, {{.*}}>, tensor<4xf32, {{.*}}>, tensor<1xf32, {{.*}}>) -> tensor<9xf32, #oneflow.global<#cpu2, [P]>>
// CHECK-NEXT: %[[R:.*]] = oneflow.all_reduce %[[J]] {mesh_axis = 0 : i64} : tensor<9xf32, #oneflow.global<#cpu2, [P]>> -> tensor<9xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: %[[S0:.*]] = oneflow.slice %[[R]] {ends = array<i64: 4>, starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<9xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: %[[G0:.*]] = oneflow.reshape %[[S0]] : (tensor<4xf32, {{.*}}>) -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: oneflow.relu %[[G0]]
// CHECK-NEXT: %[[S1:.*]] = oneflow.slice %[[R]] {ends = array<i64: 8>, starts = array<i64: 4>, steps = array<i64: 1>}
// CHECK-NEXT: %[[G1:.*]] = oneflow.reshape %[[S1]] : (tensor<4xf32, {{.*}}>) -> tensor<2x2xf32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: %[[S2:.*]] = oneflow.slice %[[R]] {ends = array<i64: 9>, starts = array<i64: 8>, steps = array<i64: 1>}
// CHECK-NEXT: %[[L:.*]] = oneflow.reshape %[[S2]] : (tensor<1xf32, {{.*}}>) -> tensor<f32, #oneflow.global<#cpu2, [B]>>
// CHECK-NEXT: return %{{.*}}, %[[G1]], %[[L]]
func.func @bucket(%g0: tensor<4xf32, #oneflow.global<#cpu2, [P]>>, %g1: tensor<2x2xf32, #oneflow.global<#cpu2, [P]>>, %loss: tensor<f32, #oneflow.global<#cpu2, [P]>>)
    -> (tensor<4xf32, #oneflow.global<#cpu2, [B]>>, tensor<2x2xf32, #oneflow.global<#cpu2, [B]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>) {
  %r0 = oneflow.all_reduce %g0 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %u = oneflow.relu %r0 : (tensor<4xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %r1 = oneflow.all_reduce %g1 {mesh_axis = 0} : tensor<2x2xf32, #oneflow.global<#cpu2, [P]>> -> tensor<2x2xf32, #oneflow.global<#cpu2, [B]>>
  %r2 = oneflow.all_reduce %loss {mesh_axis = 0} : tensor<f32, #oneflow.global<#cpu2, [P]>> -> tensor<f32, #oneflow.global<#cpu2, [B]>>
  return %u, %r1, %r2 : tensor<4xf32, #oneflow.global<#cpu2, [B]>>, tensor<2x2xf32, #oneflow.global<#cpu2, [B]>>, tensor<f32, #oneflow.global<#cpu2, [B]>>
}

// With 16-byte buckets, the 16-byte gradients each fill one: only the
// 2x2 gradient and the loss (20 bytes) would share, and do not fit.
// SMALL-LABEL: func.func @bucket
// SMALL-NOT: oneflow.concat
// SMALL-COUNT-3: oneflow.all_reduce
// OFF-LABEL: func.func @bucket
// OFF-NOT: oneflow.concat

// -----

// Not bucketed together: other element types, other mesh axes, split
// operands (pieces differ between ranks) and all-reduces bigger than the
// bucket. Each group of equal keys is its own bucket.

#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>

// CHECK-LABEL: func.func @keys
// CHECK-COUNT-2: oneflow.reshape %arg
// CHECK-NEXT: oneflow.concat {{.*}} -> tensor<8xf32, #oneflow.global<{{.*}}, [P, B]>>
// CHECK-NEXT: oneflow.all_reduce {{.*}} {mesh_axis = 0 : i64} : tensor<8xf32, #oneflow.global<{{.*}}, [P, B]>> -> tensor<8xf32, #oneflow.global<{{.*}}, [B, B]>>
// CHECK-COUNT-2: oneflow.reshape %arg
// CHECK-NEXT: oneflow.concat {{.*}} -> tensor<8xi64, #oneflow.global<{{.*}}, [P, B]>>
// CHECK-NOT: oneflow.concat
// CHECK: return
// SMALL-LABEL: func.func @keys
// SMALL-NOT: oneflow.concat
func.func @keys(%f0: tensor<4xf32, #oneflow.global<#mesh, [P, B]>>, %f1: tensor<4xf32, #oneflow.global<#mesh, [P, B]>>,
                %i0: tensor<4xi64, #oneflow.global<#mesh, [P, B]>>, %i1: tensor<4xi64, #oneflow.global<#mesh, [P, B]>>,
                %a1: tensor<4xf32, #oneflow.global<#mesh, [B, P]>>, %s: tensor<4xf32, #oneflow.global<#mesh, [P, S(0)]>>,
                %s2: tensor<4xf32, #oneflow.global<#mesh, [P, S(0)]>>, %big: tensor<1024x1025xf32, #oneflow.global<#mesh, [P, B]>>) {
  %0 = oneflow.all_reduce %f0 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#mesh, [P, B]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  %1 = oneflow.all_reduce %i0 {mesh_axis = 0} : tensor<4xi64, #oneflow.global<#mesh, [P, B]>> -> tensor<4xi64, #oneflow.global<#mesh, [B, B]>>
  %2 = oneflow.all_reduce %a1 {mesh_axis = 1} : tensor<4xf32, #oneflow.global<#mesh, [B, P]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  %3 = oneflow.all_reduce %s {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#mesh, [P, S(0)]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, S(0)]>>
  %4 = oneflow.all_reduce %s2 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#mesh, [P, S(0)]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, S(0)]>>
  %5 = oneflow.all_reduce %big {mesh_axis = 0} : tensor<1024x1025xf32, #oneflow.global<#mesh, [P, B]>> -> tensor<1024x1025xf32, #oneflow.global<#mesh, [B, B]>>
  %6 = oneflow.all_reduce %f1 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#mesh, [P, B]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  %7 = oneflow.all_reduce %i1 {mesh_axis = 0} : tensor<4xi64, #oneflow.global<#mesh, [P, B]>> -> tensor<4xi64, #oneflow.global<#mesh, [B, B]>>
  return
}

// -----

// An update that writes a variable in place must stay before the
// variable's later readers: fusing would move it after them, so this
// bucket is left alone.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @writes
// CHECK-NOT: oneflow.concat
// CHECK: oneflow.sgd_update
// CHECK-NEXT: oneflow.relu
// CHECK-NEXT: oneflow.all_reduce
func.func @writes(%g0: tensor<4xf32, #oneflow.global<#cpu2, [P]>>, %g1: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %r0 = oneflow.all_reduce %g0 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  oneflow.sgd_update %w, %r0 {lr = 1.0e-01 : f64} : tensor<4xf32, #oneflow.global<#cpu2, [B]>>, tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %u = oneflow.relu %w : (tensor<4xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %r1 = oneflow.all_reduce %g1 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

// The second all-reduce depends on the first: they stay apart (one
// all-reduce of both would wait for itself); the third joins the second.

#cpu2 = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @chain
// CHECK:      %[[R0:.*]] = oneflow.all_reduce %arg0
// CHECK-NEXT: %[[P:.*]] = oneflow.to_partial %[[R0]]
// CHECK-NEXT: oneflow.reshape %[[P]]
// CHECK-NEXT: oneflow.reshape %arg1
// CHECK-NEXT: oneflow.concat
// CHECK-NEXT: oneflow.all_reduce
func.func @chain(%g0: tensor<4xf32, #oneflow.global<#cpu2, [P]>>, %g1: tensor<4xf32, #oneflow.global<#cpu2, [P]>>) {
  %r0 = oneflow.all_reduce %g0 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %p = oneflow.to_partial %r0 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [B]>> -> tensor<4xf32, #oneflow.global<#cpu2, [P]>>
  %r1 = oneflow.all_reduce %p {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  %r2 = oneflow.all_reduce %g1 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#cpu2, [P]>> -> tensor<4xf32, #oneflow.global<#cpu2, [B]>>
  return
}

// -----

// Gradients made one after another by a backward pass, with boxing before
// their reader (the optimizer at the end): each all-reduce moves up to
// right after what it reduces, so buckets form in the order the gradients
// are made, the first bucket goes out before the rest of the backward pass
// (its matmul stays after it), and the slices wait for their readers.

#cpu2b = #oneflow.placement<cpu, ranks = [0, 1]>

// SMALL-LABEL: func.func @backward
// SMALL:      %[[G2:.*]] = oneflow.relu %arg2
// SMALL-NEXT: %[[G1:.*]] = oneflow.relu %arg1
// SMALL:      oneflow.concat
// SMALL-NEXT: %[[R:.*]] = oneflow.all_reduce
// SMALL-NEXT: oneflow.matmul
// SMALL-NEXT: %[[G0:.*]] = oneflow.relu
// SMALL:      oneflow.all_reduce %[[G0]]
// SMALL-NEXT: oneflow.sgd_update
// SMALL-NEXT: oneflow.slice %[[R]]
// CHECK-LABEL: func.func @backward
// CHECK:      oneflow.matmul
// CHECK:      oneflow.concat
// CHECK-NEXT: oneflow.all_reduce
func.func @backward(%w: tensor<2x2xf32, #oneflow.global<#cpu2b, [B]>>, %a1: tensor<2xf32, #oneflow.global<#cpu2b, [P]>>, %a2: tensor<2xf32, #oneflow.global<#cpu2b, [P]>>, %x: tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>>) {
  %g2 = oneflow.relu %a2 : (tensor<2xf32, #oneflow.global<#cpu2b, [P]>>) -> tensor<2xf32, #oneflow.global<#cpu2b, [P]>>
  %g1 = oneflow.relu %a1 : (tensor<2xf32, #oneflow.global<#cpu2b, [P]>>) -> tensor<2xf32, #oneflow.global<#cpu2b, [P]>>
  %m = oneflow.matmul %x, %x : (tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>>, tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>>) -> tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>>
  %g0 = oneflow.relu %m : (tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>>) -> tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>>
  %r0 = oneflow.all_reduce %g0 {mesh_axis = 0} : tensor<2x2xf32, #oneflow.global<#cpu2b, [P]>> -> tensor<2x2xf32, #oneflow.global<#cpu2b, [B]>>
  %r1 = oneflow.all_reduce %g1 {mesh_axis = 0} : tensor<2xf32, #oneflow.global<#cpu2b, [P]>> -> tensor<2xf32, #oneflow.global<#cpu2b, [B]>>
  %r2 = oneflow.all_reduce %g2 {mesh_axis = 0} : tensor<2xf32, #oneflow.global<#cpu2b, [P]>> -> tensor<2xf32, #oneflow.global<#cpu2b, [B]>>
  oneflow.sgd_update %w, %r0 {lr = 1.0e-01 : f64} : tensor<2x2xf32, #oneflow.global<#cpu2b, [B]>>, tensor<2x2xf32, #oneflow.global<#cpu2b, [B]>>
  %s = oneflow.add %r1, %r2 : (tensor<2xf32, #oneflow.global<#cpu2b, [B]>>, tensor<2xf32, #oneflow.global<#cpu2b, [B]>>) -> tensor<2xf32, #oneflow.global<#cpu2b, [B]>>
  return
}

// -----

// An all-reduce whose operand another op writes in place stays after that
// write: moved up, it would reduce the value from before the update.

#cpu2c = #oneflow.placement<cpu, ranks = [0, 1]>

// CHECK-LABEL: func.func @written
// CHECK:      oneflow.sgd_update
// CHECK-NEXT: oneflow.all_reduce
func.func @written(%g: tensor<2xf32, #oneflow.global<#cpu2c, [B]>>) -> tensor<2xf32, #oneflow.global<#cpu2c, [B]>> {
  %v = oneflow.variable "v" {init = #oneflow.init<zeros>} : tensor<2xf32, #oneflow.global<#cpu2c, [P]>>
  oneflow.sgd_update %v, %g {lr = 1.0e-01 : f64} : tensor<2xf32, #oneflow.global<#cpu2c, [P]>>, tensor<2xf32, #oneflow.global<#cpu2c, [B]>>
  %r = oneflow.all_reduce %v {mesh_axis = 0} : tensor<2xf32, #oneflow.global<#cpu2c, [P]>> -> tensor<2xf32, #oneflow.global<#cpu2c, [B]>>
  return %r : tensor<2xf32, #oneflow.global<#cpu2c, [B]>>
}

// -----

// Two buckets, each of independent all-reduces, that cross: the second
// axis-1 all-reduce reads the first axis-0 one, the second axis-0 one reads
// the first axis-1 one. Fusing both would make a cycle; the axis-0 bucket
// is fused, and then the axis-1 pair depends on itself through it and
// stays two all-reduces (as oneflow-auto-parallel laid out the GPT example
// with some machines' figures).

// CHECK-LABEL: func.func @crossed
// CHECK:      %[[B1:.*]] = oneflow.all_reduce %arg2 {mesh_axis = 1 : i64}
// CHECK:      oneflow.mul %[[B1]], %arg1
// CHECK:      %[[R:.*]] = oneflow.all_reduce {{.*}} {mesh_axis = 0 : i64} : tensor<8xf32
// CHECK:      oneflow.slice %[[R]] {ends = array<i64: 4>
// CHECK:      oneflow.mul
// CHECK:      oneflow.all_reduce {{.*}} {mesh_axis = 1 : i64}
// CHECK:      oneflow.slice %[[R]] {ends = array<i64: 8>
// CHECK:      return
#mesh = #oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>
func.func @crossed(%x0: tensor<4xf32, #oneflow.global<#mesh, [P, B]>>, %x1: tensor<4xf32, #oneflow.global<#mesh, [P, B]>>, %y0: tensor<4xf32, #oneflow.global<#mesh, [B, P]>>, %y1: tensor<4xf32, #oneflow.global<#mesh, [B, P]>>)
    -> (tensor<4xf32, #oneflow.global<#mesh, [B, B]>>, tensor<4xf32, #oneflow.global<#mesh, [B, B]>>) {
  %a1 = oneflow.all_reduce %x0 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#mesh, [P, B]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  %b1 = oneflow.all_reduce %y0 {mesh_axis = 1} : tensor<4xf32, #oneflow.global<#mesh, [B, P]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  %t2 = oneflow.mul %b1, %x1 : (tensor<4xf32, #oneflow.global<#mesh, [B, B]>>, tensor<4xf32, #oneflow.global<#mesh, [P, B]>>) -> tensor<4xf32, #oneflow.global<#mesh, [P, B]>>
  %a2 = oneflow.all_reduce %t2 {mesh_axis = 0} : tensor<4xf32, #oneflow.global<#mesh, [P, B]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  %t1 = oneflow.mul %a1, %y1 : (tensor<4xf32, #oneflow.global<#mesh, [B, B]>>, tensor<4xf32, #oneflow.global<#mesh, [B, P]>>) -> tensor<4xf32, #oneflow.global<#mesh, [B, P]>>
  %b2 = oneflow.all_reduce %t1 {mesh_axis = 1} : tensor<4xf32, #oneflow.global<#mesh, [B, P]>> -> tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
  return %a2, %b2 : tensor<4xf32, #oneflow.global<#mesh, [B, B]>>, tensor<4xf32, #oneflow.global<#mesh, [B, B]>>
}
