// RUN: of-opt %s --load-dialect-plugin=%oneflow_libs/OneFlowExamplePlugin%shlibext \
// RUN:   -test-oneflow-print-sbp-signatures -verify-diagnostics -o /dev/null

// The plugin's SBP rule for ofexample.swish (an external model of our
// SbpInterface): element-wise, as oneflow's unary ops.
func.func @swish_mlp() {
  // expected-remark@+1 {{sbp: -> S(0) | -> S(1)}}
  %x = oneflow.input "x" : tensor<8x4xf32>
  // expected-remark@+1 {{sbp: -> S(0) | -> S(1)}}
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x16xf32>
  // expected-remark@+1 {{sbp: S(0), B -> S(0) | B, S(1) -> S(1) | S(1), S(0) -> P | P, B -> P | B, P -> P}}
  %h = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  // The plugin's rule: element-wise.
  // expected-remark@+1 {{sbp: S(0) -> S(0) | S(1) -> S(1)}}
  %s = ofexample.swish %h : tensor<8x16xf32>
  // expected-remark@+1 {{sbp: S(0) -> P | S(1) -> P | P -> P}}
  %sum = oneflow.reduce_sum %s {axes = array<i64: 0, 1>} : (tensor<8x16xf32>) -> tensor<f32>
  // expected-remark@+1 {{sbp: P ->}}
  oneflow.output "loss", %sum : tensor<f32>
  return
}
