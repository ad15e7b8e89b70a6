// A scalar (rank-0) input, doubled.
func.func @main() {
  %x = oneflow.input "x" : tensor<f32>
  %y = oneflow.scalar_mul %x, 2.0 : (tensor<f32>) -> tensor<f32>
  oneflow.output "y", %y : tensor<f32>
  return
}
