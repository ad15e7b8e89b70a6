// A small classifier whose hidden layer adds its row's index (the plugin's
// ofexample.add_row_index): on several ranks each one needs where its rows
// sit in the batch (example-plugin-layout.test).
func.func @row_index_mlp() {
  %x = oneflow.input "x" : tensor<16x8xf32>
  %labels = oneflow.input "labels" : tensor<16xi64>
  %w1 = oneflow.variable "fc1.weight" {init = #oneflow.init<kaiming_uniform>, seed = 1} : tensor<8x32xf32>
  %w2 = oneflow.variable "fc2.weight" {init = #oneflow.init<kaiming_uniform>, seed = 2} : tensor<32x4xf32>
  %h = oneflow.matmul %x, %w1 : (tensor<16x8xf32>, tensor<8x32xf32>) -> tensor<16x32xf32>
  %p = ofexample.add_row_index %h {scale = 5.000000e-02 : f64} : tensor<16x32xf32>
  %a = oneflow.relu %p : (tensor<16x32xf32>) -> tensor<16x32xf32>
  %logits = oneflow.matmul %a, %w2 : (tensor<16x32xf32>, tensor<32x4xf32>) -> tensor<16x4xf32>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<16x4xf32>, tensor<16xi64>) -> (tensor<16x4xf32>, tensor<16xf32>)
  %mean = oneflow.reduce_mean %loss {axes = array<i64: 0>} : (tensor<16xf32>) -> tensor<f32>
  oneflow.output "loss", %mean : tensor<f32>
  return
}
