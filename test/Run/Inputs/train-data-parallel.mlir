// Data parallel on 2 ranks: x is split by rows, w broadcast; the gradient
// sum over the rows is partial, and boxing all-reduces it before the
// update. With x = 1: loss = sum over 2 rows of (w - c)^2, gradient
// 4 (w - c).
#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
func.func @main() {
  %x = oneflow.input "x" : tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32>
  %c = oneflow.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = oneflow.mul %x, %w : (tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>, tensor<4xf32>) -> tensor<2x4xf32>
  %e = oneflow.sub %y, %c : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %sq = oneflow.mul %e, %e : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %loss = oneflow.reduce_sum %sq {axes = array<i64: 0, 1>} : (tensor<2x4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  %ex = oneflow.mul %e, %x : (tensor<2x4xf32>, tensor<2x4xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<2x4xf32>
  %rows = oneflow.reduce_sum %ex {axes = array<i64: 0>} : (tensor<2x4xf32>) -> tensor<4xf32>
  %g = oneflow.scalar_mul %rows, 2.0 : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<4xf32>
  return
}
