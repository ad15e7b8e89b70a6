// A single-device program whose input is laid out over 2 ranks, batch split.
func.func @dp() {
  %x = oneflow.input "x" : tensor<8x3xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %w = oneflow.variable "w" {init = #oneflow.init<xavier_uniform>, seed = 1} : tensor<3x5xf32>
  %y = oneflow.matmul %x, %w : (tensor<8x3xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>, tensor<3x5xf32>) -> tensor<?x?xf32>
  %m = oneflow.reduce_mean %y {axes = array<i64: 0, 1>} : (tensor<?x?xf32>) -> tensor<f32>
  %r = oneflow.relu %m : (tensor<f32>) -> tensor<f32>
  oneflow.output "r", %r : tensor<f32>
  return
}
