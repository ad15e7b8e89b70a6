// An input with an unknown dimension: oneflow-infer-shapes refuses it.
func.func @bad() {
  %x = oneflow.input "x" : tensor<?x3xf32>
  oneflow.output "x", %x : tensor<?x3xf32>
  return
}
