// An input whose byte size overflows 64 bits (run-errors.test).
func.func @f() {
  %x = oneflow.input "x" : tensor<4611686018427387904x4xf32>
  oneflow.output "x", %x : tensor<4611686018427387904x4xf32>
  return
}
