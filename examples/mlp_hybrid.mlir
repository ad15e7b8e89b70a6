// An MLP classifier for 8x8 digit images (64 features, 10 classes), written
// for one device, with the layouts of its inputs and parameters stated for a
// 2x2 mesh of CPU ranks: the batch is split over mesh axis 0 (data
// parallel), the hidden layer over mesh axis 1 (Megatron-style tensor
// parallel: W1 by columns, W2 by rows). Intermediate shapes are left `?`
// for oneflow-infer-shapes; intermediate layouts are left for SBP
// propagation.

func.func @mlp_hybrid() {
  %x = oneflow.input "images" : tensor<64x64xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>
  %labels = oneflow.input "labels" : tensor<64xi64, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>
  %w1 = oneflow.variable "fc1.weight" {init = #oneflow.init<kaiming_uniform>, seed = 1} : tensor<64x128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(1)]>>
  %b1 = oneflow.variable "fc1.bias" {init = #oneflow.init<zeros>} : tensor<128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(0)]>>
  %w2 = oneflow.variable "fc2.weight" {init = #oneflow.init<kaiming_uniform>, seed = 2} : tensor<128x10xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(0)]>>
  %b2 = oneflow.variable "fc2.bias" {init = #oneflow.init<zeros>} : tensor<10xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, B]>>
  %h = oneflow.matmul %x, %w1 : (tensor<64x64xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>, tensor<64x128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(1)]>>) -> tensor<?x?xf32>
  %hb = oneflow.add %h, %b1 : (tensor<?x?xf32>, tensor<128xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(0)]>>) -> tensor<?x?xf32>
  %a = oneflow.relu %hb : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %o = oneflow.matmul %a, %w2 : (tensor<?x?xf32>, tensor<128x10xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, S(0)]>>) -> tensor<?x?xf32>
  %logits = oneflow.add %o, %b2 : (tensor<?x?xf32>, tensor<10xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [B, B]>>) -> tensor<?x?xf32>
  %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %labels : (tensor<?x?xf32>, tensor<64xi64, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1, 2, 3], mesh = [2, 2]>, [S(0), B]>>) -> (tensor<?x?xf32>, tensor<?xf32>)
  %mean = oneflow.reduce_mean %loss {axes = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
  oneflow.output "loss", %mean : tensor<f32>
  return
}
