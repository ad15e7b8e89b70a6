// A program without an output named "loss".
func.func @no_loss() {
  %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
  oneflow.output "y", %w : tensor<4xf32>
  return
}
