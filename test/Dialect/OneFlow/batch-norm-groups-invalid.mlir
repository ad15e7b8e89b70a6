// RUN: of-opt %s -split-input-file -verify-diagnostics

func.func @groups_in_inference(%x: tensor<8x3xf32>, %c: tensor<3xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op statistics_groups 4 groups batch statistics, which only training computes}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {statistics_groups = 4 : i64} : (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>)
  return
}

// -----

func.func @groups_not_dividing(%x: tensor<8x3xf32>, %c: tensor<3xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op statistics_groups 3 does not divide the batch of 8}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training, statistics_groups = 3 : i64} : (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>)
  return
}

// -----

func.func @groups_on_channels(%x: tensor<4x8xf32>, %c: tensor<4xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op statistics_groups 2 groups axis 0, which holds the channels}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training, axis = 0 : i64, statistics_groups = 2 : i64} : (tensor<4x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<4x8xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
  return
}

// -----

func.func @zero_groups(%x: tensor<8x3xf32>, %c: tensor<3xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op statistics_groups 0 is not at least 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {training, statistics_groups = 0 : i64} : (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @grad_statistics_per_channel(%x: tensor<8x3xf32>, %c: tensor<3xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm_grad' op mean 'tensor<3xf32>' must be 'tensor<4x3xf32>' (one value per group and channel)}}
  // expected-error@+1 {{failed to infer returned types}}
  %dx, %dg, %db = oneflow.batch_norm_grad %x, %x, %c, %c, %c {statistics_groups = 4 : i64} : (tensor<8x3xf32>, tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<8x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}
