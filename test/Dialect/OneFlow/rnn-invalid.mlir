// RUN: of-opt %s -split-input-file -verify-diagnostics

func.func @unknown_cell(%x: tensor<5x2x3xf32>, %w: tensor<1x1x4x3xf32>, %r: tensor<1x1x4x4xf32>, %b: tensor<1x1x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op unknown cell 'rnn_gelu' (rnn_tanh, rnn_relu, rnn_sigmoid, lstm, gru or lbr_gru)}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "rnn_gelu"} : (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @unknown_direction(%x: tensor<5x2x3xf32>, %w: tensor<1x1x4x3xf32>, %r: tensor<1x1x4x4xf32>, %b: tensor<1x1x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op unknown direction 'both' (forward, reverse or bidirectional)}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "rnn_tanh", direction = "both"} : (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lstm_without_c0(%x: tensor<5x2x3xf32>, %w: tensor<1x4x4x3xf32>, %r: tensor<1x4x4x4xf32>, %b: tensor<1x4x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op lstm needs c0}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "lstm"} : (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @gru_with_c0(%x: tensor<5x2x3xf32>, %w: tensor<1x3x4x3xf32>, %r: tensor<1x3x4x4xf32>, %b: tensor<1x3x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op only lstm takes c0}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn, %cn = oneflow.rnn %x, %w, %r, %b, %h, %h {cell = "gru"} : (tensor<5x2x3xf32>, tensor<1x3x4x3xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @x_rank(%x: tensor<5x3xf32>, %w: tensor<1x1x4x3xf32>, %r: tensor<1x1x4x4xf32>, %b: tensor<1x1x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op x must be [steps, batch, input], got 'tensor<5x3xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "rnn_tanh"} : (tensor<5x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @r_rank(%x: tensor<5x2x3xf32>, %w: tensor<1x1x4x3xf32>, %r: tensor<4x4xf32>, %b: tensor<1x1x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op r must be [directions, gates, hidden, hidden], got 'tensor<4x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "rnn_tanh"} : (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @gates_of_w(%x: tensor<5x2x3xf32>, %w: tensor<1x3x4x3xf32>, %r: tensor<1x4x4x4xf32>, %b: tensor<1x4x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op w has type 'tensor<1x3x4x3xf32>' but needs shape [1, 4, 4, 3] of 'f32' (cell lstm, direction forward)}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn, %cn = oneflow.rnn %x, %w, %r, %b, %h, %h {cell = "lstm"} : (tensor<5x2x3xf32>, tensor<1x3x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @lbr_bias(%x: tensor<5x2x3xf32>, %w: tensor<1x3x4x3xf32>, %r: tensor<1x3x4x4xf32>, %b: tensor<1x3x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op b has type 'tensor<1x3x4xf32>' but needs shape [1, 4, 4] of 'f32' (cell lbr_gru, direction forward)}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "lbr_gru"} : (tensor<5x2x3xf32>, tensor<1x3x4x3xf32>, tensor<1x3x4x4xf32>, tensor<1x3x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @state_directions(%x: tensor<5x2x3xf32>, %w: tensor<2x1x4x3xf32>, %r: tensor<2x1x4x4xf32>, %b: tensor<2x1x4xf32>, %h: tensor<1x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn' op h0 has type 'tensor<1x2x4xf32>' but needs shape [2, 2, 4] of 'f32' (cell rnn_tanh, direction bidirectional)}}
  // expected-error@+1 {{failed to infer returned types}}
  %y, %hn = oneflow.rnn %x, %w, %r, %b, %h {cell = "rnn_tanh", direction = "bidirectional"} : (tensor<5x2x3xf32>, tensor<2x1x4x3xf32>, tensor<2x1x4x4xf32>, tensor<2x1x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x8xf32>, tensor<2x2x4xf32>)
  return
}

// -----

func.func @grad_dy(%x: tensor<5x2x3xf32>, %w: tensor<1x1x4x3xf32>, %r: tensor<1x1x4x4xf32>, %b: tensor<1x1x4xf32>, %h: tensor<1x2x4xf32>, %dy: tensor<5x2x3xf32>) {
  // expected-error@+2 {{'oneflow.rnn_grad' op dy 'tensor<5x2x3xf32>' differs from the forward result 'tensor<5x2x4xf32>'}}
  // expected-error@+1 {{failed to infer returned types}}
  %0:5 = oneflow.rnn_grad %x, %w, %r, %b, %h grads(%dy, %h) {cell = "rnn_tanh"} : (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>, tensor<5x2x3xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x3xf32>, tensor<1x1x4x3xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4xf32>, tensor<1x2x4xf32>)
  return
}

// -----

func.func @grad_lstm_dcn(%x: tensor<5x2x3xf32>, %w: tensor<1x4x4x3xf32>, %r: tensor<1x4x4x4xf32>, %b: tensor<1x4x4xf32>, %h: tensor<1x2x4xf32>, %dy: tensor<5x2x4xf32>) {
  // expected-error@+2 {{'oneflow.rnn_grad' op lstm needs dcn}}
  // expected-error@+1 {{failed to infer returned types}}
  %0:6 = oneflow.rnn_grad %x, %w, %r, %b, %h, %h grads(%dy, %h) {cell = "lstm"} : (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>, tensor<5x2x4xf32>, tensor<1x2x4xf32>) -> (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
  return
}
