func.func @main() {
  %table = oneflow.variable "table" {init = #oneflow.init<ones>} : tensor<10x4xf32>
  %ids = oneflow.input "ids" : tensor<3xi64>
  %e = oneflow.gather %table, %ids : (tensor<10x4xf32>, tensor<3xi64>) -> tensor<3x4xf32>
  oneflow.output "e", %e : tensor<3x4xf32>
  return
}
