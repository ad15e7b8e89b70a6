// Inputs/matmul.mlir with x split by rows over 2 ranks.
func.func @main() {
  %x = oneflow.input "x" : tensor<2x3xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
  %w = oneflow.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %y = oneflow.matmul %x, %w : (tensor<2x3xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %r = oneflow.relu %y : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %s = oneflow.reduce_sum %r {axes = array<i64: 0, 1>} : (tensor<2x2xf32>) -> tensor<f32>
  oneflow.output "y", %y : tensor<2x2xf32>
  oneflow.output "sum", %s : tensor<f32>
  return
}
