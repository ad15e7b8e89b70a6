// The plugin's op brings its own rules (SBP signatures, gradient, cost as
// external models of our interfaces): a training step that uses
// ofexample.swish differentiates, lays out on 4 ranks (data parallel, and
// the layout search on a 2x2 mesh) and lowers to rank plans with the op's
// actors, without rebuilding of-opt. of-run without --plugin does not know
// the op (training it: example-plugin-train.test).
// Its SBP signatures: example-plugin-sbp.mlir.
//
// RUN: of-opt %s --load-dialect-plugin=%oneflow_libs/OneFlowExamplePlugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(func.func(oneflow-autodiff))' | FileCheck %s --check-prefix=GRAD
// RUN: of-opt %s --load-dialect-plugin=%oneflow_libs/OneFlowExamplePlugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(oneflow-training-pipeline{devices=4 lr=0.1})' | FileCheck %s --check-prefix=PLAN
// RUN: of-opt %s --load-dialect-plugin=%oneflow_libs/OneFlowExamplePlugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(oneflow-training-pipeline{devices=4 strategy=auto mesh=2,2 lr=0.1})' | FileCheck %s --check-prefix=PLAN
// RUN: not of-run %s --train --devices cpu:4 2>&1 | FileCheck %s --check-prefix=NOKERNEL

// d swish(x) / dx = s (1 + x - x s), s = sigmoid(x), times the incoming
// gradient.
// GRAD-LABEL: func.func @swish_mlp
// GRAD: %[[H:.*]] = ofexample.swish %[[X:.*]] : tensor<8x16xf32>
// GRAD: %[[S:.*]] = oneflow.sigmoid %[[X]]
// GRAD: %[[XS:.*]] = oneflow.mul %[[X]], %[[S]]
// GRAD: %[[P:.*]] = oneflow.scalar_add %[[X]], 1.000000e+00
// GRAD: %[[I:.*]] = oneflow.sub %[[P]], %[[XS]]
// GRAD: %[[D:.*]] = oneflow.mul %[[S]], %[[I]]
// GRAD: oneflow.mul %{{.*}}, %[[D]]
// GRAD: oneflow.output "w.grad"

// Every rank's plan runs the op, forward, on its piece.
// PLAN-COUNT-4: "ofexample.swish"

// Without --plugin, of-run does not know the op.
// NOKERNEL: error: {{.*}}ofexample.swish

func.func @swish_mlp() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, seed = 1} : tensor<4x16xf32>
  %h = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x16xf32>) -> tensor<8x16xf32>
  %s = ofexample.swish %h : tensor<8x16xf32>
  %sum = oneflow.reduce_sum %s {axes = array<i64: 0, 1>} : (tensor<8x16xf32>) -> tensor<f32>
  oneflow.output "loss", %sum : tensor<f32>
  return
}
