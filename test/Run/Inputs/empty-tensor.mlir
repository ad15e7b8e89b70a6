func.func @main() {
  %x = oneflow.input "x" : tensor<0x3xf32>
  %y = oneflow.relu %x : (tensor<0x3xf32>) -> tensor<0x3xf32>
  oneflow.output "y", %y : tensor<0x3xf32>
  return
}
