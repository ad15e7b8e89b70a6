// Two inputs, for of-run's --input given once per input.
func.func @two_inputs() {
  %a = oneflow.input "a" : tensor<2x3xf32>
  %b = oneflow.input "b" : tensor<3x4xf32>
  %c = oneflow.matmul %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  oneflow.output "c", %c : tensor<2x4xf32>
  return
}
