// A loss that only a frozen variable reaches: nothing to differentiate.
func.func @frozen_loss() {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>, frozen} : tensor<4xf32>
  %s = oneflow.reduce_sum %w {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
  oneflow.output "loss", %s : tensor<f32>
  return
}
