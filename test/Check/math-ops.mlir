// Every element-wise op, in each of its signatures, on 1 to 4 ranks and a
// 2x2 mesh, against one rank.
// RUN: of-check %s --mode signatures --devices cpu:1 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:2 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:3 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:4 | FileCheck %s
// RUN: of-check %s --mode signatures --devices cpu:4 --mesh 2x2 | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: of-check: {{[1-9][0-9]*}} cases, {{[0-9]+}} passed, 0 failed
func.func @math() {
  %a = oneflow.input "a" : tensor<6x5xf32>
  %b = oneflow.input "b" : tensor<6x5xf32>
  %v = oneflow.input "v" : tensor<5xf32>
  %i = oneflow.input "i" : tensor<6x5xi32>
  %m = oneflow.input "m" : tensor<6x1xi1>
  %0 = oneflow.add %a, %v : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %1 = oneflow.sub %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %2 = oneflow.mul %v, %a : (tensor<5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %3 = oneflow.div %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %4 = oneflow.pow %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %5 = oneflow.maximum %i, %i : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi32>
  %6 = oneflow.minimum %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xf32>
  %7 = oneflow.equal %a, %v : (tensor<6x5xf32>, tensor<5xf32>) -> tensor<6x5xi1>
  %8 = oneflow.not_equal %i, %i : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi1>
  %9 = oneflow.less %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
  %10 = oneflow.less_equal %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
  %11 = oneflow.greater %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
  %12 = oneflow.greater_equal %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
  %13 = oneflow.relu %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %14 = oneflow.gelu %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %15 = oneflow.tanh %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %16 = oneflow.sigmoid %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %17 = oneflow.exp %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %18 = oneflow.log %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %19 = oneflow.sqrt %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %20 = oneflow.rsqrt %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %21 = oneflow.neg %i : (tensor<6x5xi32>) -> tensor<6x5xi32>
  %22 = oneflow.abs %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %23 = oneflow.erf %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %24 = oneflow.scalar_add %a, 1.0 : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %25 = oneflow.scalar_mul %a, 0.5 : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %26 = oneflow.scalar_div %a, 4.0 : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %27 = oneflow.scalar_pow %a, 2.0 : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %28 = oneflow.where %m, %a, %v : (tensor<6x1xi1>, tensor<6x5xf32>, tensor<5xf32>) -> tensor<6x5xf32>
  %29 = oneflow.masked_fill %a, %m, -1.0e9 : (tensor<6x5xf32>, tensor<6x1xi1>) -> tensor<6x5xf32>
  %30 = oneflow.cast %i : (tensor<6x5xi32>) -> tensor<6x5xf32>
  oneflow.output "add", %0 : tensor<6x5xf32>
  oneflow.output "sub", %1 : tensor<6x5xf32>
  oneflow.output "mul", %2 : tensor<6x5xf32>
  oneflow.output "div", %3 : tensor<6x5xf32>
  oneflow.output "pow", %4 : tensor<6x5xf32>
  oneflow.output "maximum", %5 : tensor<6x5xi32>
  oneflow.output "minimum", %6 : tensor<6x5xf32>
  oneflow.output "equal", %7 : tensor<6x5xi1>
  oneflow.output "not_equal", %8 : tensor<6x5xi1>
  oneflow.output "less", %9 : tensor<6x5xi1>
  oneflow.output "less_equal", %10 : tensor<6x5xi1>
  oneflow.output "greater", %11 : tensor<6x5xi1>
  oneflow.output "greater_equal", %12 : tensor<6x5xi1>
  oneflow.output "relu", %13 : tensor<6x5xf32>
  oneflow.output "gelu", %14 : tensor<6x5xf32>
  oneflow.output "tanh", %15 : tensor<6x5xf32>
  oneflow.output "sigmoid", %16 : tensor<6x5xf32>
  oneflow.output "exp", %17 : tensor<6x5xf32>
  oneflow.output "log", %18 : tensor<6x5xf32>
  oneflow.output "sqrt", %19 : tensor<6x5xf32>
  oneflow.output "rsqrt", %20 : tensor<6x5xf32>
  oneflow.output "neg", %21 : tensor<6x5xi32>
  oneflow.output "abs", %22 : tensor<6x5xf32>
  oneflow.output "erf", %23 : tensor<6x5xf32>
  oneflow.output "scalar_add", %24 : tensor<6x5xf32>
  oneflow.output "scalar_mul", %25 : tensor<6x5xf32>
  oneflow.output "scalar_div", %26 : tensor<6x5xf32>
  oneflow.output "scalar_pow", %27 : tensor<6x5xf32>
  oneflow.output "where", %28 : tensor<6x5xf32>
  oneflow.output "masked_fill", %29 : tensor<6x5xf32>
  oneflow.output "cast", %30 : tensor<6x5xf32>
  %31 = oneflow.reciprocal %b : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %32 = oneflow.sin %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %33 = oneflow.cos %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %34 = oneflow.floor %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %35 = oneflow.ceil %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %36 = oneflow.round %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %37 = oneflow.sign %i : (tensor<6x5xi32>) -> tensor<6x5xi32>
  %38 = oneflow.softplus %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  oneflow.output "reciprocal", %31 : tensor<6x5xf32>
  oneflow.output "sin", %32 : tensor<6x5xf32>
  oneflow.output "cos", %33 : tensor<6x5xf32>
  oneflow.output "floor", %34 : tensor<6x5xf32>
  oneflow.output "ceil", %35 : tensor<6x5xf32>
  oneflow.output "round", %36 : tensor<6x5xf32>
  oneflow.output "sign", %37 : tensor<6x5xi32>
  oneflow.output "softplus", %38 : tensor<6x5xf32>
  %39 = oneflow.leaky_relu %a {alpha = 0.2 : f64} : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %40 = oneflow.elu %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %41 = oneflow.selu %a : (tensor<6x5xf32>) -> tensor<6x5xf32>
  %42 = oneflow.hard_sigmoid %a {alpha = 0.3 : f64, beta = 0.4 : f64} : (tensor<6x5xf32>) -> tensor<6x5xf32>
  oneflow.output "leaky_relu", %39 : tensor<6x5xf32>
  oneflow.output "elu", %40 : tensor<6x5xf32>
  oneflow.output "selu", %41 : tensor<6x5xf32>
  oneflow.output "hard_sigmoid", %42 : tensor<6x5xf32>
  %43 = oneflow.less %a, %b : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
  %44 = oneflow.logical_and %43, %m : (tensor<6x5xi1>, tensor<6x1xi1>) -> tensor<6x5xi1>
  %45 = oneflow.logical_or %43, %m : (tensor<6x5xi1>, tensor<6x1xi1>) -> tensor<6x5xi1>
  %46 = oneflow.logical_xor %m, %43 : (tensor<6x1xi1>, tensor<6x5xi1>) -> tensor<6x5xi1>
  %47 = oneflow.logical_not %43 : (tensor<6x5xi1>) -> tensor<6x5xi1>
  oneflow.output "logical_and", %44 : tensor<6x5xi1>
  oneflow.output "logical_or", %45 : tensor<6x5xi1>
  oneflow.output "logical_xor", %46 : tensor<6x5xi1>
  oneflow.output "logical_not", %47 : tensor<6x5xi1>
  %48 = oneflow.arg_max %a {axis = 1 : i64} : (tensor<6x5xf32>) -> tensor<6xi64>
  %49 = oneflow.arg_min %a {axis = 0 : i64, keepdims} : (tensor<6x5xf32>) -> tensor<1x5xi64>
  %50 = oneflow.arg_max %i {axis = -1 : i64, select_last_index} : (tensor<6x5xi32>) -> tensor<6xi64>
  oneflow.output "arg_max", %48 : tensor<6xi64>
  oneflow.output "arg_min", %49 : tensor<1x5xi64>
  oneflow.output "arg_max_last", %50 : tensor<6xi64>
  return
}
