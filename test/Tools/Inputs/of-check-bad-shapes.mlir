// A reshape whose unknown dimension cannot be inferred: 6 elements are not
// rows of 4. Verifiers accept it; oneflow-infer-shapes does not.
func.func @bad() {
  %x = oneflow.input "x" : tensor<2x3xf32>
  %y = oneflow.reshape %x : (tensor<2x3xf32>) -> tensor<4x?xf32>
  oneflow.output "y", %y : tensor<4x?xf32>
  return
}
