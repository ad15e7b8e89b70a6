// P(max) and P(min), and the softmax family over a split class axis
// (oneflow-expand-split-softmax: Megatron's vocabulary-parallel
// cross-entropy), in each signature on 2 to 4 ranks and a 2x2 mesh, and in
// random layouts with their gradients, against one rank. The signatures
// include reduce_max's S(1) -> P(max), neg's P(max) -> P(min) and back,
// maximum's P(max), P(max) -> P(max), and the cross-entropy's S(1), B ->
// S(1), P.
// RUN: of-check %s --mode signatures --devices cpu:2 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:3 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:4 --verbose | FileCheck %s --check-prefixes=CHECK,SIGS
// RUN: of-check %s --mode signatures --devices cpu:4 --mesh 2x2 | FileCheck %s
// RUN: of-check %s --mode random --autodiff --trials 6 --devices cpu:4 --mesh 2x2 | FileCheck %s
// RUN: of-check %s --mode random --autodiff --trials 6 --devices cpu:3 | FileCheck %s
// CHECK-NOT: FAIL
// SIGS-DAG: PASS oneflow.sparse_softmax_cross_entropy {{.*}}: [S(1)], [B] -> [S(1)], [P]
// SIGS-DAG: PASS oneflow.softmax {{.*}}: [S(1)] -> [S(1)]
// SIGS-DAG: PASS oneflow.log_softmax {{.*}}: [S(1)] -> [S(1)]
// SIGS-DAG: PASS oneflow.reduce_max {{.*}}: [S(1)] -> [P(max)]
// SIGS-DAG: PASS oneflow.reduce_max {{.*}}: [P(max)] -> [P(max)]
// SIGS-DAG: PASS oneflow.neg {{.*}}: [P(max)] -> [P(min)]
// SIGS-DAG: PASS oneflow.neg {{.*}}: [P(min)] -> [P(max)]
// SIGS-DAG: PASS oneflow.maximum {{.*}}: [P(max)], [P(max)] -> [P(max)]
// SIGS-DAG: PASS oneflow.minimum {{.*}}: [P(min)], [P(min)] -> [P(min)]
// SIGS-DAG: PASS oneflow.gather_elements {{.*}}: [S(1)], [B] -> [P]
// CHECK: of-check: {{[0-9]+}} cases, [[N:[0-9]+]] passed, 0 failed
func.func @main() {
  %x = oneflow.input "x" : tensor<8x12xf32>
  %labels = oneflow.input "labels" : tensor<8xi64>
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 1} : tensor<12x10xf32>
  %logits = oneflow.matmul %x, %w : (tensor<8x12xf32>, tensor<12x10xf32>) -> tensor<8x10xf32>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<8x10xf32>, tensor<8xi64>) -> (tensor<8x10xf32>, tensor<8xf32>)
  %s = oneflow.softmax %logits : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %ls = oneflow.log_softmax %logits {axis = 1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %max = oneflow.reduce_max %logits {axes = array<i64: 1>} : (tensor<8x10xf32>) -> tensor<8xf32>
  %n = oneflow.neg %logits : (tensor<8x10xf32>) -> tensor<8x10xf32>
  %nmax = oneflow.reduce_max %n {axes = array<i64: 1>} : (tensor<8x10xf32>) -> tensor<8xf32>
  %min = oneflow.neg %nmax : (tensor<8xf32>) -> tensor<8xf32>
  %both = oneflow.maximum %max, %min : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %least = oneflow.minimum %min, %max : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %col = oneflow.reshape %labels : (tensor<8xi64>) -> tensor<8x1xi64>
  %picked = oneflow.gather_elements %logits, %col {axis = 1 : i64} : (tensor<8x10xf32>, tensor<8x1xi64>) -> tensor<8x1xf32>
  %t0 = oneflow.reduce_sum %ce {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  %t1 = oneflow.reduce_sum %ls {axes = array<i64: 0, 1>} : (tensor<8x10xf32>) -> tensor<f32>
  %t2 = oneflow.reduce_sum %both {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  %t3 = oneflow.reduce_sum %least {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  %t4 = oneflow.reduce_sum %picked {axes = array<i64: 0, 1>} : (tensor<8x1xf32>) -> tensor<f32>
  %a = oneflow.add %t0, %t1 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %b = oneflow.add %a, %t2 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %c = oneflow.add %b, %t3 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  %loss = oneflow.add %c, %t4 : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  oneflow.output "prob", %prob : tensor<8x10xf32>
  oneflow.output "softmax", %s : tensor<8x10xf32>
  oneflow.output "max", %max : tensor<8xf32>
  oneflow.output "min", %min : tensor<8xf32>
  return
}
