// Minimizes sum((w - c)^2) with the hand-written gradient 2 (w - c).
func.func @main() {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32>
  %c = oneflow.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %d = oneflow.sub %w, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %sq = oneflow.mul %d, %d : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %loss = oneflow.reduce_sum %sq {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  oneflow.output "loss", %loss : tensor<f32>
  %g = oneflow.scalar_mul %d, 2.0 : (tensor<4xf32>) -> tensor<4xf32>
  oneflow.output "w.grad", %g {grad_of = "w"} : tensor<4xf32>
  return
}
