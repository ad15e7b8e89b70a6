// Integer division: the CPU kernel reports its errors (division by zero),
// so a CUDA device runs it staged on host copies.
func.func @int_div() {
  %a = oneflow.input "a" : tensor<4xi32>
  %b = oneflow.input "b" : tensor<4xi32>
  %c = oneflow.div %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  oneflow.output "c", %c : tensor<4xi32>
  return
}
