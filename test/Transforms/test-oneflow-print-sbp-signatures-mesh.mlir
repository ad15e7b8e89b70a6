// RUN: of-opt %s -test-oneflow-print-sbp-signatures="mesh-axis-size=4" -verify-diagnostics -o /dev/null

// On a mesh axis of 4 devices, a split of an axis smaller than 4 is dropped
// (n = 3 below), and a reshape keeps a split only where both sizes divide
// by 4.

func.func @mesh4(%a: tensor<8x4xf32>, %b: tensor<4x3xf32>, %y: tensor<8x6xf32>) {
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | S(1), S(0) -> P | P, B -> P | B, P -> P}}
  %0 = oneflow.matmul %a, %b : (tensor<8x4xf32>, tensor<4x3xf32>) -> tensor<8x3xf32>
  // expected-remark@+1 {{sbp: S(0) -> S(0) | P -> P}}
  %1 = oneflow.reshape %y : (tensor<8x6xf32>) -> tensor<4x12xf32>
  // expected-remark@+1 {{sbp: P -> P}}
  %2 = oneflow.reshape %y : (tensor<8x6xf32>) -> tensor<2x24xf32>
  return
}
