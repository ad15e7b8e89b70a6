// An input with no elements (axis 0 has length 0), reshaped.
func.func @main() {
  %x = oneflow.input "x" : tensor<0x3xf32>
  %y = oneflow.reshape %x : (tensor<0x3xf32>) -> tensor<3x0xf32>
  oneflow.output "y", %y : tensor<3x0xf32>
  return
}
