// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-local-batch-statistics{groups=4}))' | FileCheck %s
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-local-batch-statistics))' | FileCheck %s --check-prefix=ONE
// RUN: of-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(oneflow-local-batch-statistics{groups=4},oneflow-autodiff,oneflow-update-moving-statistics))' | FileCheck %s --check-prefix=TRAIN

// Training batch norms get 4 statistics groups (G x C statistics);
// inference ones are left alone; groups=1 changes nothing. The gradient and
// the running-statistic updates take the groups from the op: the updates
// average the groups (n = 8 * 2 * 2 / 4 = 8 elements per group).

// CHECK-LABEL: func.func @cnn
// CHECK: oneflow.batch_norm {{.*}} {statistics_groups = 4 : i64, training} : {{.*}} -> (tensor<8x3x2x2xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
// CHECK: oneflow.batch_norm {{.*}} : {{.*}} -> (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
// ONE-LABEL: func.func @cnn
// ONE-NOT: statistics_groups
// TRAIN-LABEL: func.func @cnn
// TRAIN: oneflow.batch_norm_grad {{.*}} {statistics_groups = 4 : i64}
// TRAIN: %[[P:.*]] = oneflow.scalar_pow %{{.*}}, -2.000000e+00 : (tensor<4x3xf32>) -> tensor<4x3xf32>
// TRAIN: %[[U:.*]] = oneflow.scalar_mul %{{.*}}, 1.1428571428571428
// TRAIN: %[[M:.*]] = oneflow.reduce_mean %{{.*}} {axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xf32>
// TRAIN: %[[V:.*]] = oneflow.reduce_mean %[[U]] {axes = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xf32>
// TRAIN: oneflow.moving_average_update %{{.*}}, %[[M]]
// TRAIN: oneflow.moving_average_update %{{.*}}, %[[V]]
func.func @cnn() {
  %x = oneflow.variable "x" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<8x3x2x2xf32>
  %g = oneflow.variable "g" {init = #oneflow.init<ones>} : tensor<3xf32>
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<3xf32>
  %rm = oneflow.variable "rm" {frozen, init = #oneflow.init<zeros>} : tensor<3xf32>
  %rv = oneflow.variable "rv" {frozen, init = #oneflow.init<ones>} : tensor<3xf32>
  %y, %m, %i = oneflow.batch_norm %x, %g, %b, %rm, %rv {training} : (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  %z, %zm, %zi = oneflow.batch_norm %y, %g, %b, %rm, %rv : (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>)
  %s = oneflow.reduce_sum %z {axes = array<i64: 0, 1, 2, 3>} : (tensor<8x3x2x2xf32>) -> tensor<f32>
  oneflow.output "loss", %s : tensor<f32>
  return
}
