// RUN: of-opt %s -split-input-file -verify-diagnostics

func.func @conv_data_dy(%dy: tensor<2x4x5x5xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{dy 'tensor<2x4x5x5xf32>' differs from the forward result 'tensor<2x4x4x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %dx = oneflow.conv2d_backward_data %dy, %w {input_shape = array<i64: 2, 3, 8, 8>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>} : (tensor<2x4x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @conv_data_shape(%dy: tensor<2x4x4x4xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error@+2 {{input_shape needs 4 sizes of 0 or more, got 3 values}}
  // expected-error@+1 {{failed to infer returned types}}
  %dx = oneflow.conv2d_backward_data %dy, %w {input_shape = array<i64: 2, 3, 8>} : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @conv_filter_dy(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x5x6x6xf32>) {
  // expected-error@+2 {{dy 'tensor<2x5x6x6xf32>' differs from the forward result 'tensor<2x4x6x6xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %dw = oneflow.conv2d_backward_filter %x, %dy {weight_shape = array<i64: 4, 3, 3, 3>} : (tensor<2x3x8x8xf32>, tensor<2x5x6x6xf32>) -> tensor<4x3x3x3xf32>
  return
}

// -----

func.func @pool_dy(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x3x3xf32>) {
  // expected-error@+2 {{dy 'tensor<2x3x3x3xf32>' differs from the forward result 'tensor<2x3x4x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %dx = oneflow.max_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<2x3x3x3xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @bn_grad_param(%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %g: tensor<4xf32>) {
  // expected-error@+2 {{gamma 'tensor<4xf32>' must be 'tensor<3xf32>' (one value per channel)}}
  // expected-error@+1 {{failed to infer returned types}}
  %bx, %bg, %bb = oneflow.batch_norm_grad %x, %x, %c, %c, %g : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @bn_grad_rank(%x: tensor<3xf32>, %c: tensor<3xf32>) {
  // expected-error@+2 {{needs an input of rank 2 or more, got rank 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %bx, %bg, %bb = oneflow.batch_norm_grad %x, %x, %c, %c, %c : (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @bn_grad_eps(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error@+2 {{epsilon must be positive}}
  // expected-error@+1 {{failed to infer returned types}}
  %bx, %bg, %bb = oneflow.batch_norm_grad %x, %x, %c, %c, %c {epsilon = 0.0 : f64} : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @gather_grad_indices(%dy: tensor<2x5x6xf32>, %ids: tensor<2x4xi64>) {
  // expected-error@+2 {{dy 'tensor<2x5x6xf32>' does not hold the indices' shape 'tensor<2x4xi64>' at axis 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %t = oneflow.gather_grad %dy, %ids {dim_size = 10 : i64} : (tensor<2x5x6xf32>, tensor<2x4xi64>) -> tensor<10x6xf32>
  return
}

// -----

func.func @gather_grad_rank(%dy: tensor<5xf32>, %ids: tensor<2x5xi64>) {
  // expected-error@+2 {{dy of rank 1 cannot hold indices of rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %t = oneflow.gather_grad %dy, %ids {dim_size = 10 : i64} : (tensor<5xf32>, tensor<2x5xi64>) -> tensor<10xf32>
  return
}

// -----

func.func @gather_grad_size(%dy: tensor<5x6xf32>, %ids: tensor<5xi64>) {
  // expected-error@+2 {{dim_size must not be negative, got -1}}
  // expected-error@+1 {{failed to infer returned types}}
  %t = oneflow.gather_grad %dy, %ids {dim_size = -1 : i64} : (tensor<5x6xf32>, tensor<5xi64>) -> tensor<5x6xf32>
  return
}

// -----

func.func @gather_elements_grad_shape(%dy: tensor<2x5xf32>, %ids: tensor<2x4xi64>) {
  // expected-error@+2 {{dy 'tensor<2x5xf32>' must have the indices' shape 'tensor<2x4xi64>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %t = oneflow.gather_elements_grad %dy, %ids {axis = 1 : i64, shape = array<i64: 2, 7>} : (tensor<2x5xf32>, tensor<2x4xi64>) -> tensor<2x7xf32>
  return
}

// -----

func.func @gather_elements_grad_larger(%dy: tensor<3x5xf32>, %ids: tensor<3x5xi64>) {
  // expected-error@+2 {{indices 'tensor<3x5xi64>' are larger than 'tensor<2x7xf32>' on axis 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %t = oneflow.gather_elements_grad %dy, %ids {axis = 1 : i64, shape = array<i64: 2, 7>} : (tensor<3x5xf32>, tensor<3x5xi64>) -> tensor<2x7xf32>
  return
}

// -----

func.func @resample_grad_dy(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x4x16x16xf32>) {
  // expected-error@+2 {{dy 'tensor<2x4x16x16xf32>' differs from the forward result 'tensor<2x3x16x16xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %dx = oneflow.resample_grad %x, %dy : (tensor<2x3x8x8xf32>, tensor<2x4x16x16xf32>) -> tensor<2x3x8x8xf32>
  return
}

// -----

func.func @resample_grad_rank(%x: tensor<2x3x8x8xf32>, %dy: tensor<2x3x16xf32>) {
  // expected-error@+2 {{dy 'tensor<2x3x16xf32>' and x 'tensor<2x3x8x8xf32>' differ in rank}}
  // expected-error@+1 {{failed to infer returned types}}
  %dx = oneflow.resample_grad %x, %dy : (tensor<2x3x8x8xf32>, tensor<2x3x16xf32>) -> tensor<2x3x8x8xf32>
  return
}
