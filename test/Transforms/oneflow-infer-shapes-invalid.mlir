// RUN: of-opt %s -split-input-file -oneflow-infer-shapes -verify-diagnostics

func.func @negative_reshape_unknown(%x: tensor<4x4xf32>) {
  // expected-error@+1 {{'oneflow.reshape' op cannot reshape 16 elements into 'tensor<3x?xf32>'}}
  %0 = oneflow.reshape %x : (tensor<4x4xf32>) -> tensor<3x?xf32>
  return
}
