// Grouped convolutions, which oneDNN runs as gemm convolutions with a
// scratchpad: x is all ones, the weights all 0.5.
func.func @grouped_conv() {
  %x = oneflow.input "x" : tensor<2x4x6x6xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<constant(0.5)>} : tensor<4x2x3x3xf32>
  %dw = oneflow.variable "dw" {init = #oneflow.init<constant(0.5)>} : tensor<4x1x3x3xf32>
  %y = oneflow.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>, groups = 2} : (tensor<2x4x6x6xf32>, tensor<4x2x3x3xf32>) -> tensor<2x4x6x6xf32>
  %z = oneflow.conv2d %x, %dw {pads = array<i64: 2, 2, 2, 2>, dilations = array<i64: 2, 2>, groups = 4} : (tensor<2x4x6x6xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x6x6xf32>
  oneflow.output "grouped", %y : tensor<2x4x6x6xf32>
  oneflow.output "depthwise_dilated", %z : tensor<2x4x6x6xf32>
  return
}
