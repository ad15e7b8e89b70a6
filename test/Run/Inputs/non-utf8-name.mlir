// An input whose name is not UTF-8 (run-errors.test; found by
// bench/fuzz.sh mlir): the plan's strings must be.
func.func @f() {
  %x = oneflow.input "\FF" : tensor<4xf32>
  oneflow.output "y", %x : tensor<4xf32>
  return
}
