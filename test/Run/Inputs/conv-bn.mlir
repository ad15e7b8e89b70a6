func.func @main() {
  %x = oneflow.input "x" : tensor<1x2x2x2xf32>
  %w1 = oneflow.constant dense<[[[[1.0]], [[1.0]]], [[[1.0]], [[-1.0]]]]> : tensor<2x2x1x1xf32>
  %b1 = oneflow.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %one = oneflow.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %zero = oneflow.constant dense<[0.0, 0.0]> : tensor<2xf32>
  %c1 = oneflow.conv2d %x, %w1, %b1 : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %n1, %m1, %i1 = oneflow.batch_norm %c1, %one, %zero, %one, %zero {epsilon = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %r1 = oneflow.relu %n1 : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %w2 = oneflow.constant dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[-4.0]]]]> : tensor<2x2x1x1xf32>
  %g2 = oneflow.constant dense<[2.0, 1.0]> : tensor<2xf32>
  %be2 = oneflow.constant dense<[1.0, 0.5]> : tensor<2xf32>
  %m2 = oneflow.constant dense<[1.0, 0.0]> : tensor<2xf32>
  %v2 = oneflow.constant dense<[3.0, 0.0]> : tensor<2xf32>
  %c2 = oneflow.conv2d %r1, %w2 : (tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %n2, %mm2, %i2 = oneflow.batch_norm %c2, %g2, %be2, %m2, %v2 {epsilon = 1.0 : f64} : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
  %s = oneflow.add %n2, %x : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = oneflow.relu %s : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  oneflow.output "y", %y : tensor<1x2x2x2xf32>
  return
}
