// Data parallel on 4 ranks (x and labels S(0)): a small CNN: conv2d (bias) -> training batch_norm -> relu -> max_pool2d
// -> flatten -> fully connected -> sparse softmax cross-entropy, mean-reduced.
#p4 = #oneflow.placement<cpu, ranks = [0, 1, 2, 3]>
func.func @cnn() {
  %x = oneflow.input "x" : tensor<8x3x8x8xf32, #oneflow.global<#p4, [S(0)]>>
  %labels = oneflow.input "labels" : tensor<8xi64, #oneflow.global<#p4, [S(0)]>>
  %w = oneflow.variable "conv.weight" {init = #oneflow.init<kaiming_uniform>, seed = 1} : tensor<8x3x3x3xf32>
  %b = oneflow.variable "conv.bias" {init = #oneflow.init<zeros>} : tensor<8xf32>
  %gamma = oneflow.variable "bn.weight" {init = #oneflow.init<ones>} : tensor<8xf32>
  %beta = oneflow.variable "bn.bias" {init = #oneflow.init<zeros>} : tensor<8xf32>
  %rm = oneflow.variable "bn.running_mean" {frozen, init = #oneflow.init<zeros>} : tensor<8xf32>
  %rv = oneflow.variable "bn.running_var" {frozen, init = #oneflow.init<ones>} : tensor<8xf32>
  %fw = oneflow.variable "fc.weight" {init = #oneflow.init<kaiming_uniform>, seed = 2} : tensor<128x4xf32>
  %fb = oneflow.variable "fc.bias" {init = #oneflow.init<zeros>} : tensor<4xf32>
  %c = oneflow.conv2d %x, %w, %b {pads = array<i64: 1, 1, 1, 1>} : (tensor<8x3x8x8xf32, #oneflow.global<#p4, [S(0)]>>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<8x8x8x8xf32>
  %y, %mean, %inv = oneflow.batch_norm %c, %gamma, %beta, %rm, %rv {training} : (tensor<8x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<8x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %r = oneflow.relu %y : (tensor<8x8x8x8xf32>) -> tensor<8x8x8x8xf32>
  %p = oneflow.max_pool2d %r {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x8x8x8xf32>) -> tensor<8x8x4x4xf32>
  %f = oneflow.flatten %p {start_dim = 1} : (tensor<8x8x4x4xf32>) -> tensor<8x128xf32>
  %h = oneflow.matmul %f, %fw : (tensor<8x128xf32>, tensor<128x4xf32>) -> tensor<8x4xf32>
  %logits = oneflow.add %h, %fb : (tensor<8x4xf32>, tensor<4xf32>) -> tensor<8x4xf32>
  %prob, %ce = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<8x4xf32>, tensor<8xi64, #oneflow.global<#p4, [S(0)]>>) -> (tensor<8x4xf32>, tensor<8xf32>)
  %loss = oneflow.reduce_mean %ce {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  return
}
