func.func @block() {
  %x = oneflow.input "x" : tensor<2x32x14x14xf32>
  %w1 = oneflow.variable "conv1.weight" {init = #oneflow.init<kaiming_uniform>, seed = 1} : tensor<32x32x3x3xf32>
  %g1 = oneflow.variable "bn1.weight" {init = #oneflow.init<ones>} : tensor<32xf32>
  %b1 = oneflow.variable "bn1.bias" {init = #oneflow.init<zeros>} : tensor<32xf32>
  %m1 = oneflow.variable "bn1.running_mean" {init = #oneflow.init<zeros>} : tensor<32xf32>
  %s1 = oneflow.variable "bn1.running_var" {init = #oneflow.init<ones>} : tensor<32xf32>
  %c1 = oneflow.conv2d %x, %w1 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x32x14x14xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x14x14xf32>
  %n1, %nm1, %ni1 = oneflow.batch_norm %c1, %g1, %b1, %m1, %s1 : (tensor<2x32x14x14xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x32x14x14xf32>, tensor<32xf32>, tensor<32xf32>)
  %r1 = oneflow.relu %n1 : (tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
  %w2 = oneflow.variable "conv2.weight" {init = #oneflow.init<kaiming_uniform>, seed = 2} : tensor<32x32x3x3xf32>
  %g2 = oneflow.variable "bn2.weight" {init = #oneflow.init<ones>} : tensor<32xf32>
  %b2 = oneflow.variable "bn2.bias" {init = #oneflow.init<zeros>} : tensor<32xf32>
  %m2 = oneflow.variable "bn2.running_mean" {init = #oneflow.init<zeros>} : tensor<32xf32>
  %s2 = oneflow.variable "bn2.running_var" {init = #oneflow.init<ones>} : tensor<32xf32>
  %c2 = oneflow.conv2d %r1, %w2 {pads = array<i64: 1, 1, 1, 1>} : (tensor<2x32x14x14xf32>, tensor<32x32x3x3xf32>) -> tensor<2x32x14x14xf32>
  %n2, %nm2, %ni2 = oneflow.batch_norm %c2, %g2, %b2, %m2, %s2 : (tensor<2x32x14x14xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<2x32x14x14xf32>, tensor<32xf32>, tensor<32xf32>)
  %sum = oneflow.add %n2, %x : (tensor<2x32x14x14xf32>, tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
  %y = oneflow.relu %sum : (tensor<2x32x14x14xf32>) -> tensor<2x32x14x14xf32>
  oneflow.output "y", %y : tensor<2x32x14x14xf32>
  return
}
