// RUN: of-opt %s | of-opt | FileCheck %s
// RUN: of-opt %s -test-oneflow-print-sbp-signatures -verify-diagnostics -o /dev/null

// Training batch_norm with statistics groups: one mean and inverse standard
// deviation per group and channel (G x C); the batch is parallel in whole
// groups, and the gradient's dgamma and dbeta are then partial sums.

// CHECK-LABEL: func.func @groups
// CHECK: oneflow.batch_norm {{.*}} {statistics_groups = 4 : i64, training} : {{.*}} -> (tensor<8x3x2x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK: oneflow.batch_norm_grad {{.*}} {statistics_groups = 4 : i64} : {{.*}} -> (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
func.func @groups(%x: tensor<8x3x2x2xf32>, %c: tensor<3xf32>, %dy: tensor<8x3x2x2xf32>) {
  // expected-remark@+1 {{sbp: S(0), B, B, B, B -> S(0), S(0), S(0) | S(1), S(0), S(0), S(0), S(0) -> S(1), S(1), S(1)}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training, statistics_groups = 4 : i64} : (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3x2x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  // expected-remark@+1 {{sbp: S(0), S(0), S(0), S(0), B -> S(0), P, P | S(1), S(1), S(1), S(1), S(0) -> S(1), S(0), S(0)}}
  %dx, %dg, %db = oneflow.batch_norm_grad %x, %dy, %m, %i, %c {statistics_groups = 4 : i64} : (tensor<8x3x2x2xf32>, tensor<8x3x2x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>, tensor<3xf32>) -> (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// Groups the mesh axis does not divide keep the batch whole (3 groups, the
// printed signatures are those of a mesh axis of 2).

// CHECK-LABEL: func.func @odd_groups
func.func @odd_groups(%x: tensor<6x3xf32>, %c: tensor<3xf32>) {
  // expected-remark@+1 {{sbp: S(1), S(0), S(0), S(0), S(0) -> S(1), S(1), S(1)}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training, statistics_groups = 3 : i64} : (tensor<6x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<6x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>)
  return
}
