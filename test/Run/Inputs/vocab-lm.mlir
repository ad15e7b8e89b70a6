// A one-layer language model whose vocabulary (10) splits unevenly over 3
// ranks (4, 3, 3): embedding rows and LM-head columns by vocabulary.
func.func @main() {
  %tokens = oneflow.input "tokens" : tensor<12xi64>
  %labels = oneflow.input "labels" : tensor<12xi64>
  %emb = oneflow.variable "emb" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 1} : tensor<10x8xf32>
  %head = oneflow.variable "head" {init = #oneflow.init<normal(0.0, 0.5)>, seed = 2} : tensor<8x10xf32>
  %h = oneflow.gather %emb, %tokens {axis = 0 : i64} : (tensor<10x8xf32>, tensor<12xi64>) -> tensor<12x8xf32>
  %t = oneflow.tanh %h : (tensor<12x8xf32>) -> tensor<12x8xf32>
  %logits = oneflow.matmul %t, %head : (tensor<12x8xf32>, tensor<8x10xf32>) -> tensor<12x10xf32>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<12x10xf32>, tensor<12xi64>) -> (tensor<12x10xf32>, tensor<12xf32>)
  %loss = oneflow.reduce_mean %ce {axes = array<i64: 0>} : (tensor<12xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
