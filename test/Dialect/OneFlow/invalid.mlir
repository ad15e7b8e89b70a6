// RUN: of-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// Sources and sinks
//===----------------------------------------------------------------------===//

func.func @negative_variable_name() {
  // expected-error@+1 {{'oneflow.variable' op needs a non-empty name}}
  %w = oneflow.variable "" {init = #oneflow.init<zeros>} : tensor<4xf32>
  return
}

// -----

func.func @negative_variable_dynamic() {
  // expected-error@+1 {{'oneflow.variable' op result type 'tensor<?xf32>' must have a static shape}}
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<?xf32>
  return
}

// -----

func.func @negative_variable_no_init() {
  // expected-error@+1 {{'oneflow.variable' op needs exactly one of 'init' and 'value'}}
  %w = oneflow.variable "w" : tensor<4xf32>
  return
}

// -----

func.func @negative_variable_value() {
  // expected-error@+1 {{'oneflow.variable' op value of type 'tensor<2xf32>' does not match result type 'tensor<4xf32>'}}
  %w = oneflow.variable "w" {value = dense<1.0> : tensor<2xf32>} : tensor<4xf32>
  return
}

// -----

func.func @negative_variable_random_int() {
  // expected-error@+1 {{'oneflow.variable' op initializer 'normal' needs a floating-point variable, got 'i32'}}
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xi32>
  return
}

// -----

func.func @negative_variable_fan() {
  // expected-error@+1 {{'oneflow.variable' op initializer 'xavier_uniform' needs a variable of rank 2 or more, got rank 1}}
  %w = oneflow.variable "w" {init = #oneflow.init<xavier_uniform>} : tensor<4xf32>
  return
}

// -----

func.func @negative_input_name() {
  // expected-error@+1 {{'oneflow.input' op needs a non-empty name}}
  %x = oneflow.input "" : tensor<4xf32>
  return
}

// -----

func.func @negative_input_dynamic() {
  // expected-error@+1 {{'oneflow.input' op result type 'tensor<?x4xf32>' must have a static shape}}
  %x = oneflow.input "x" : tensor<?x4xf32>
  return
}

// -----

func.func @negative_output_name(%x: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.output' op needs a non-empty name}}
  oneflow.output "", %x : tensor<4xf32>
  return
}

// -----

func.func @negative_constant_type() {
  // expected-error@+1 {{'oneflow.constant' op value of type 'tensor<2xf32>' does not match result type 'tensor<3xf32>'}}
  %c = oneflow.constant dense<1.0> : tensor<2xf32> -> tensor<3xf32>
  return
}

// -----

func.func @negative_constant_attr() {
  // expected-error@+1 {{expected an elements attribute}}
  %c = oneflow.constant 1.0 : f32
  return
}

// -----

func.func @negative_fill_dynamic() {
  // expected-error@+1 {{'oneflow.fill' op result type 'tensor<?xf32>' must have a static shape}}
  %f = oneflow.fill 0.0 : tensor<?xf32>
  return
}

//===----------------------------------------------------------------------===//
// Element-wise
//===----------------------------------------------------------------------===//

// -----

func.func @negative_binary_element_types(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // expected-error@+2 {{'oneflow.add' op operands have different element types 'f32' and 'f16'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.add %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_broadcast(%a: tensor<4x3xf32>, %b: tensor<5x3xf32>) {
  // expected-error@+2 {{'oneflow.mul' op cannot broadcast shapes 4x3 5x3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.mul %a, %b : (tensor<4x3xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @negative_inferred_result(%a: tensor<4x3xf32>) {
  // expected-error@+2 {{'oneflow.sub' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.sub %a, %a : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @negative_comparison_result(%a: tensor<4xf32>) {
  // expected-error@+2 {{'oneflow.less' op inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.less %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_where_branches(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error@+2 {{'oneflow.where' op branches have different element types 'f32' and 'i32'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_where_broadcast(%c: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error@+2 {{'oneflow.where' op cannot broadcast shapes 3 4 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.where %c, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_masked_fill_grows(%x: tensor<4xf32>, %m: tensor<2x4xi1>) {
  // expected-error@+2 {{'oneflow.masked_fill' op mask 'tensor<2x4xi1>' does not broadcast to the shape of 'tensor<4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.masked_fill %x, %m, 0.0 : (tensor<4xf32>, tensor<2x4xi1>) -> tensor<4xf32>
  return
}

// -----

func.func @negative_cast_shape(%x: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.cast' op changes the shape from 'tensor<4xf32>' to 'tensor<5xf16>'}}
  %0 = oneflow.cast %x : (tensor<4xf32>) -> tensor<5xf16>
  return
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

// -----

func.func @negative_matmul_rank(%a: tensor<2x4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error@+2 {{'oneflow.matmul' op operands must be matrices, got ranks 3 and 2 (use batch_matmul for batches)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @negative_matmul_contraction(%a: tensor<64x784xf32>, %b: tensor<128x784xf32>) {
  // expected-error@+2 {{'oneflow.matmul' op contraction sizes differ: 784 (a) and 128 (b)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<64x784xf32>, tensor<128x784xf32>) -> tensor<64x784xf32>
  return
}

// -----

func.func @negative_matmul_types(%a: tensor<4x4xf32>, %b: tensor<4x4xf16>) {
  // expected-error@+2 {{'oneflow.matmul' op operands have different element types 'f32' and 'f16'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.matmul %a, %b : (tensor<4x4xf32>, tensor<4x4xf16>) -> tensor<4x4xf32>
  return
}

// -----

func.func @negative_batch_matmul_rank(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>) {
  // expected-error@+2 {{'oneflow.batch_matmul' op needs operands of rank 2 or more, at least one with batch axes; got ranks 2 and 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @negative_batch_matmul_types(%a: tensor<2x4x8xf32>, %b: tensor<2x8x4xf16>) {
  // expected-error@+2 {{'oneflow.batch_matmul' op operands have different element types 'f32' and 'f16'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x4xf16>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @negative_batch_matmul_batch(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error@+2 {{'oneflow.batch_matmul' op cannot broadcast shapes 2 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.batch_matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// Softmax, losses, normalization
//===----------------------------------------------------------------------===//

// -----

func.func @negative_softmax_axis(%x: tensor<8x10xf32>) {
  // expected-error@+2 {{'oneflow.softmax' op axis 2 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.softmax %x {axis = 2} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  return
}

// -----

func.func @negative_cross_entropy_rank(%l: tensor<8x10xf32>, %y: tensor<8x10xi64>) {
  // expected-error@+2 {{'oneflow.sparse_softmax_cross_entropy' op labels must have one axis fewer than logits (the class axis), got ranks 2 and 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %p, %loss = oneflow.sparse_softmax_cross_entropy %l, %y : (tensor<8x10xf32>, tensor<8x10xi64>) -> (tensor<8x10xf32>, tensor<8xf32>)
  return
}

// -----

func.func @negative_cross_entropy_batch(%l: tensor<8x10xf32>, %y: tensor<4xi64>) {
  // expected-error@+2 {{'oneflow.sparse_softmax_cross_entropy' op labels 'tensor<4xi64>' do not match the batch axes of logits 'tensor<8x10xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %p, %loss = oneflow.sparse_softmax_cross_entropy %l, %y : (tensor<8x10xf32>, tensor<4xi64>) -> (tensor<8x10xf32>, tensor<8xf32>)
  return
}

// -----

func.func @negative_layer_norm_axis(%x: tensor<2x16xf32>, %g: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.layer_norm' op begin_norm_axis 3 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.layer_norm %x, %g, %g {begin_norm_axis = 3} : (tensor<2x16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<2x16xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @negative_layer_norm_gamma(%x: tensor<2x16xf32>, %g: tensor<8xf32>, %b: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.layer_norm' op gamma has type 'tensor<8xf32>' but needs shape [16] of 'f32'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.layer_norm %x, %g, %b : (tensor<2x16xf32>, tensor<8xf32>, tensor<16xf32>) -> (tensor<2x16xf32>, tensor<2xf32>, tensor<2xf32>)
  return
}

// -----

func.func @negative_batch_norm_rank(%x: tensor<16xf32>, %c: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op needs an input of rank 2 or more, got rank 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c : (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @negative_batch_norm_axis(%x: tensor<8x16xf32>, %c: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op axis 2 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {axis = 2} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @negative_batch_norm_stats(%x: tensor<8x16xf32>, %c: tensor<16xf32>, %s: tensor<8xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op moving_variance has type 'tensor<8xf32>' but needs shape [16] of 'f32'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %s : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<8xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @negative_batch_norm_momentum(%x: tensor<8x16xf32>, %c: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op momentum 1.5 is outside [0, 1]}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {momentum = 1.5} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @negative_batch_norm_epsilon(%x: tensor<8x16xf32>, %c: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.batch_norm' op epsilon must be positive}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m, %i = oneflow.batch_norm %x, %c, %c, %c, %c {epsilon = 0.0} : (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> (tensor<8x16xf32>, tensor<16xf32>, tensor<16xf32>)
  return
}

// -----

func.func @negative_dropout_rate(%x: tensor<8xf32>) {
  // expected-error@+2 {{'oneflow.dropout' op rate 1 is outside [0, 1)}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %m = oneflow.dropout %x {rate = 1.0} : (tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi1>)
  return
}

//===----------------------------------------------------------------------===//
// Convolution and pooling
//===----------------------------------------------------------------------===//

// -----

func.func @negative_conv2d_bn_param(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %p: tensor<16xf32>, %q: tensor<3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d_bn' op moving_mean 'tensor<3xf32>' must be 1-D with one value per filter (16)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %q, %p : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<3xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv2d_bn_addend(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %p: tensor<16xf32>, %z: tensor<1x16x8x8xf32>) {
  // expected-error@+2 {{'oneflow.conv2d_bn' op addend 'tensor<1x16x8x8xf32>' must have the result's shape and type 'tensor<1x16x6x6xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p, %z : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<1x16x8x8xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv2d_bn_epsilon(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %p: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.conv2d_bn' op epsilon must be positive}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p {epsilon = 0.0 : f64} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv2d_bn_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %p: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.conv2d_bn' op groups must be positive, got 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p {groups = 0} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv2d_bn_blocked(%x: tensor<1x8x8x8xf32>, %w: tensor<16x8x3x3xf32>, %p: tensor<16xf32>) {
  // expected-error@+2 {{'oneflow.conv2d_bn' op blocked_x needs channels in multiples of 16, got 8}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p {blocked_x} : (tensor<1x8x8x8xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv2d_bn_blocked_result(%x: tensor<1x16x8x8xf32>, %w: tensor<8x16x3x3xf32>, %p: tensor<8xf32>) {
  // expected-error@+2 {{'oneflow.conv2d_bn' op blocked_result needs filters in multiples of 16, got 8}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d_bn %x, %w, %p, %p, %p, %p {blocked_result} : (tensor<1x16x8x8xf32>, tensor<8x16x3x3xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x6x6xf32>
  return
}

// -----

func.func @negative_conv_rank(%x: tensor<3x32x32xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op input must be NCHW (rank 4), got rank 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w : (tensor<3x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<16x30x30xf32>
  return
}

// -----

func.func @negative_conv_weight_rank(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op weight must be (F, C/groups, KH, KW), got rank 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_weight_type(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf16>) {
  // expected-error@+2 {{'oneflow.conv2d' op weight element type 'f16' differs from input element type 'f32'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf16>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op groups must be positive, got 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {groups = 0} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_channels_groups(%x: tensor<1x3x8x8xf32>, %w: tensor<16x1x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op input channels 3 are not divisible by groups 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {groups = 2} : (tensor<1x3x8x8xf32>, tensor<16x1x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_filters_groups(%x: tensor<1x4x8x8xf32>, %w: tensor<15x2x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op filters 15 are not divisible by groups 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {groups = 2} : (tensor<1x4x8x8xf32>, tensor<15x2x3x3xf32>) -> tensor<1x15x6x6xf32>
  return
}

// -----

func.func @negative_conv_weight_channels(%x: tensor<1x3x8x8xf32>, %w: tensor<16x4x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op weight has 4 channels per group but the input has 3 channels in 1 groups}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w : (tensor<1x3x8x8xf32>, tensor<16x4x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<8xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op bias 'tensor<8xf32>' must be 1-D with one value per filter (16)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w, %b : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<8xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_strides(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op strides needs 2 values, got 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 2>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x3x3xf32>
  return
}

// -----

func.func @negative_conv_zero_stride(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op strides value 0 is below 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w {strides = array<i64: 0, 1>} : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>) -> tensor<1x16x6x6xf32>
  return
}

// -----

func.func @negative_conv_window(%x: tensor<1x3x4x4xf32>, %w: tensor<16x3x5x5xf32>) {
  // expected-error@+2 {{'oneflow.conv2d' op window of 5 does not fit the padded input of 4 on spatial axis 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.conv2d %x, %w : (tensor<1x3x4x4xf32>, tensor<16x3x5x5xf32>) -> tensor<1x16x1x1xf32>
  return
}

// -----

func.func @negative_pool_pads(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+2 {{'oneflow.max_pool2d' op pads needs 4 values, got 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.max_pool2d %x {kernel_size = array<i64: 2, 2>, pads = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @negative_pool_kernel(%x: tensor<1x3x8x8xf32>) {
  // expected-error@+2 {{'oneflow.avg_pool2d' op kernel_size value 0 is below 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.avg_pool2d %x {kernel_size = array<i64: 0, 2>} : (tensor<1x3x8x8xf32>) -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @negative_global_pool_rank(%x: tensor<3x8x8xf32>) {
  // expected-error@+2 {{'oneflow.global_avg_pool2d' op input must be NCHW (rank 4), got rank 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.global_avg_pool2d %x : (tensor<3x8x8xf32>) -> tensor<3x1x1xf32>
  return
}

//===----------------------------------------------------------------------===//
// Layout, indexing, reductions
//===----------------------------------------------------------------------===//

// -----

func.func @negative_reshape_count(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{'oneflow.reshape' op cannot reshape 16 elements into 15}}
  %0 = oneflow.reshape %x : (tensor<4x4xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @negative_reshape_type(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{'oneflow.reshape' op changes the element type from 'f32' to 'f16'}}
  %0 = oneflow.reshape %x : (tensor<4x4xf32>) -> tensor<16xf16>
  return
}

// -----

func.func @negative_transpose_size(%x: tensor<4x4xf32>) {
  // expected-error@+2 {{'oneflow.transpose' op perm has 3 entries for a rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: 0, 1, 2>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @negative_transpose_perm(%x: tensor<4x4xf32>) {
  // expected-error@+2 {{'oneflow.transpose' op perm is not a permutation of 0..1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.transpose %x {perm = array<i64: 1, 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @negative_flatten_dim(%x: tensor<2x3x4xf32>) {
  // expected-error@+2 {{'oneflow.flatten' op start_dim 3 is out of range for rank-3 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.flatten %x {start_dim = 3} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @negative_flatten_order(%x: tensor<2x3x4xf32>) {
  // expected-error@+2 {{'oneflow.flatten' op start_dim 2 is after end_dim 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.flatten %x {start_dim = 2, end_dim = 1} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

func.func @negative_concat_empty() {
  // expected-error@+2 {{'oneflow.concat' op needs at least one input}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.concat {axis = 0} : () -> tensor<4xf32>
  return
}

// -----

func.func @negative_concat_rank(%a: tensor<4x2xf32>, %b: tensor<4xf32>) {
  // expected-error@+2 {{'oneflow.concat' op input 1 of type 'tensor<4xf32>' does not match the rank and element type of input 0, 'tensor<4x2xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.concat %a, %b {axis = 1} : (tensor<4x2xf32>, tensor<4xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @negative_concat_dims(%a: tensor<4x2xf32>, %b: tensor<3x2xf32>) {
  // expected-error@+2 {{'oneflow.concat' op input 1 has size 3 on axis 0 where input 0 has 4}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.concat %a, %b {axis = 1} : (tensor<4x2xf32>, tensor<3x2xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @negative_concat_axis(%a: tensor<4x2xf32>) {
  // expected-error@+2 {{'oneflow.concat' op axis -3 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.concat %a, %a {axis = -3} : (tensor<4x2xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
  return
}

// -----

func.func @negative_slice_count(%x: tensor<4x8xf32>) {
  // expected-error@+2 {{'oneflow.slice' op needs one start, end and step per axis (2), got 1, 2 and 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 1>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @negative_slice_step(%x: tensor<4x8xf32>) {
  // expected-error@+2 {{'oneflow.slice' op step 0 on axis 1 is not positive}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 4, 8>, steps = array<i64: 1, 0>} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @negative_gather_scalar(%x: tensor<f32>, %i: tensor<2xi64>) {
  // expected-error@+2 {{'oneflow.gather' op cannot gather from a scalar}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.gather %x, %i : (tensor<f32>, tensor<2xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_elements_rank(%x: tensor<4x8xf32>, %i: tensor<4xi64>) {
  // expected-error@+2 {{'oneflow.gather_elements' op indices 'tensor<4xi64>' must have the rank of 'tensor<4x8xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.gather_elements %x, %i : (tensor<4x8xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @gather_elements_larger(%x: tensor<4x8xf32>, %i: tensor<5x2xi64>) {
  // expected-error@+2 {{'oneflow.gather_elements' op indices 'tensor<5x2xi64>' are larger than 'tensor<4x8xf32>' on axis 0}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.gather_elements %x, %i {axis = 1} : (tensor<4x8xf32>, tensor<5x2xi64>) -> tensor<5x2xf32>
  return
}

// -----

func.func @gather_elements_axis(%x: tensor<4x8xf32>, %i: tensor<4x2xi64>) {
  // expected-error@+2 {{'oneflow.gather_elements' op axis -3 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.gather_elements %x, %i {axis = -3} : (tensor<4x8xf32>, tensor<4x2xi64>) -> tensor<4x2xf32>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<4x8xf32>) {
  // expected-error@+2 {{'oneflow.top_k' op k 9 is outside [0, 8], the size of axis 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %v, %i = oneflow.top_k %x {k = 9} : (tensor<4x8xf32>) -> (tensor<4x9xf32>, tensor<4x9xi64>)
  return
}

// -----

func.func @negative_gather_axis(%x: tensor<4x8xf32>, %i: tensor<2xi64>) {
  // expected-error@+2 {{'oneflow.gather' op axis 2 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.gather %x, %i {axis = 2} : (tensor<4x8xf32>, tensor<2xi64>) -> tensor<2x8xf32>
  return
}

// -----

func.func @negative_reduce_axis(%x: tensor<4x8xf32>) {
  // expected-error@+2 {{'oneflow.reduce_sum' op reduction axis 2 is out of range for rank-2 tensor}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.reduce_sum %x {axes = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @reduce_sum_square_integers(%x: tensor<4x8xi32>) {
  // expected-error@+1 {{'oneflow.reduce_sum_square' op operand #0 must be ranked tensor of floating-point values}}
  %0 = oneflow.reduce_sum_square %x {axes = array<i64: 1>} : (tensor<4x8xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @negative_reduce_twice(%x: tensor<4x8xf32>) {
  // expected-error@+2 {{'oneflow.reduce_mean' op reduction axis -1 is listed twice}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.reduce_mean %x {axes = array<i64: 1, -1>} : (tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

// Inputs, outputs and variables are found by name: one each.
func.func @duplicate_output() {
  %x = oneflow.input "x" : tensor<4xf32>
  // expected-note@+1 {{the earlier one is here}}
  oneflow.output "y", %x : tensor<4xf32>
  // expected-error@+1 {{'oneflow.output' op name 'y' is already taken by an earlier oneflow.output}}
  oneflow.output "y", %x : tensor<4xf32>
  return
}

// -----

func.func @duplicate_input() {
  // expected-note@+1 {{the earlier one is here}}
  %x = oneflow.input "x" : tensor<4xf32>
  // expected-error@+1 {{'oneflow.input' op name 'x' is already taken by an earlier oneflow.input}}
  %y = oneflow.input "x" : tensor<4xf32>
  return
}

// -----

func.func @duplicate_variable() {
  // expected-note@+1 {{the earlier one is here}}
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32>
  // expected-error@+1 {{'oneflow.variable' op name 'w' is already taken by an earlier oneflow.variable}}
  %v = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32>
  return
}

// -----

// The pair need not be the first of its kind, nor next to each other: the
// error is on the later one.
func.func @duplicate_variable_apart() {
  %a = oneflow.variable "a" {init = #oneflow.init<zeros>} : tensor<4xf32>
  // expected-note@+1 {{the earlier one is here}}
  %b = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<4xf32>
  %x = oneflow.input "x" : tensor<4xf32>
  %s = oneflow.add %a, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %c = oneflow.variable "c" {init = #oneflow.init<zeros>} : tensor<4xf32>
  // expected-error@+1 {{'oneflow.variable' op name 'b' is already taken by an earlier oneflow.variable}}
  %d = oneflow.variable "b" {init = #oneflow.init<zeros>} : tensor<4xf32>
  return
}

// -----

// An input and an output may share a name (a feed and a fetch).
func.func @input_and_output_share_a_name() {
  %x = oneflow.input "x" : tensor<4xf32>
  oneflow.output "x", %x : tensor<4xf32>
  return
}

// -----

// Byte sizes are checked: a shape whose size overflows is an error, not 0.
func.func @huge_input() {
  // expected-error@+1 {{'oneflow.input' op result 0 of type 'tensor<4611686018427387904x4xf32>' holds more than 2^48 bytes (256 TiB)}}
  %x = oneflow.input "x" : tensor<4611686018427387904x4xf32>
  return
}

// -----

func.func @huge_result(%x: tensor<1048576x1xf32>, %y: tensor<1x1099511627776xf32>) {
  // expected-error@+1 {{'oneflow.matmul' op result 0 of type 'tensor<1048576x1099511627776xf32>' holds more than 2^48 bytes}}
  %z = oneflow.matmul %x, %y : (tensor<1048576x1xf32>, tensor<1x1099511627776xf32>) -> tensor<1048576x1099511627776xf32>
  return
}

// -----

// The logical ops take i1 tensors only.
func.func @logical_and_of_floats(%a: tensor<4xf32>) {
  // expected-error@+1 {{'oneflow.logical_and' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = oneflow.logical_and %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return
}

// -----

func.func @logical_not_of_ints(%a: tensor<4xi32>) {
  // expected-error@+1 {{'oneflow.logical_not' op operand #0 must be ranked tensor of 1-bit signless integer values}}
  %0 = oneflow.logical_not %a : (tensor<4xi32>) -> tensor<4xi1>
  return
}

// -----

func.func @arg_max_axis(%a: tensor<4x3xf32>) {
  // expected-error@+2 {{'oneflow.arg_max' op failed to infer returned types}}
  // expected-error@+1 {{'oneflow.arg_max' op reduction axis 2 is out of range for rank-2 tensor}}
  %0 = oneflow.arg_max %a {axis = 2 : i64} : (tensor<4x3xf32>) -> tensor<4xi64>
  return
}

// -----

func.func @resample_rank(%x: tensor<3x8xf32>) {
  // expected-error@+2 {{'oneflow.resample' op input must be N, C and 1 to 3 spatial axes (rank 3 to 5), got rank 2}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.resample %x {sizes = array<i64>} : (tensor<3x8xf32>) -> tensor<3x8xf32>
  return
}

// -----

func.func @resample_sizes(%x: tensor<2x3x8x8xf32>) {
  // expected-error@+2 {{'oneflow.resample' op sizes needs 2 values (one per spatial axis), got 3}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.resample %x {sizes = array<i64: 4, 4, 4>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @resample_mode(%x: tensor<2x3x8x8xf32>) {
  // expected-error@+2 {{'oneflow.resample' op unknown mode 'cubic' (linear or nearest)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.resample %x {sizes = array<i64: 4, 4>, mode = "cubic"} : (tensor<2x3x8x8xf32>) -> tensor<2x3x4x4xf32>
  return
}

// -----

func.func @resample_size_zero(%x: tensor<2x3x8x8xf32>) {
  // expected-error@+2 {{'oneflow.resample' op sizes value 0 is below 1}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.resample %x {sizes = array<i64: 0, 4>} : (tensor<2x3x8x8xf32>) -> tensor<2x3x0x4xf32>
  return
}

// -----

func.func @bit_shift_direction(%x: tensor<4xi32>) {
  // expected-error@+2 {{'oneflow.bit_shift' op unknown direction 'up' (left or right)}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.bit_shift %x, %x {direction = "up", width = 8} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @bit_shift_width(%x: tensor<4xi32>) {
  // expected-error@+2 {{'oneflow.bit_shift' op width 12 is not 8, 16, 32 or 64}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.bit_shift %x, %x {direction = "left", width = 12} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @bit_shift_narrow(%x: tensor<4xi32>) {
  // expected-error@+2 {{'oneflow.bit_shift' op x's 'i32' cannot hold 64-bit values}}
  // expected-error@+1 {{failed to infer returned types}}
  %0 = oneflow.bit_shift %x, %x {direction = "left", width = 64} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  return
}
