// RUN: of-opt %s -split-input-file -canonicalize | FileCheck %s

// The element-wise folds on constants (ElementwiseFolding.cpp, shared with
// the ONNX importer): arithmetic as the kernels compute it, comparisons,
// logic, selection and casts.

// Broadcast operands; f32 rounded once (0.1 + 0.2 in f32 is 0.3 in f32).
// CHECK-LABEL: func.func @add_broadcast
// CHECK-DAG: oneflow.constant dense<{{\[\[}}1.100000e+01, 2.200000e+01], [1.300000e+01, 2.400000e+01]]> : tensor<2x2xf32>
// CHECK-DAG: oneflow.constant dense<3.000000e-01> : tensor<f32>
// CHECK-NOT: oneflow.add
func.func @add_broadcast() {
  %a = oneflow.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = oneflow.constant dense<[10.0, 20.0]> : tensor<2xf32>
  %y = oneflow.add %a, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  oneflow.output "y", %y : tensor<2x2xf32>
  %p = oneflow.constant dense<0.1> : tensor<f32>
  %q = oneflow.constant dense<0.2> : tensor<f32>
  %r = oneflow.add %p, %q : (tensor<f32>, tensor<f32>) -> tensor<f32>
  oneflow.output "r", %r : tensor<f32>
  return
}

// -----

// Integer arithmetic: sub, mul, and division truncating toward zero.
// CHECK-LABEL: func.func @integer
// CHECK-DAG: oneflow.constant dense<[-3, 3, -3, 3]> : tensor<4xi64>
// CHECK-DAG: oneflow.constant dense<[-12, 12, -12, 12]> : tensor<4xi64>
// CHECK-DAG: oneflow.constant dense<[-5, 1, -5, 1]> : tensor<4xi64>
// CHECK-NOT: oneflow.div
// CHECK-NOT: oneflow.sub
// CHECK-NOT: oneflow.mul
func.func @integer() {
  %a = oneflow.constant dense<[-7, 7, -7, 7]> : tensor<4xi64>
  %b = oneflow.constant dense<[2, 2, 2, 2]> : tensor<4xi64>
  %q = oneflow.div %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  oneflow.output "q", %q : tensor<4xi64>
  %s = oneflow.sub %q, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  oneflow.output "s", %s : tensor<4xi64>
  %two = oneflow.constant dense<[4, 4, 4, 4]> : tensor<4xi64>
  %m = oneflow.mul %q, %two : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  oneflow.output "m", %m : tensor<4xi64>
  return
}

// -----

// i32 wraps at its width.
// CHECK-LABEL: func.func @wrap
// CHECK-NEXT: oneflow.constant dense<-2147483648> : tensor<1xi32>
func.func @wrap() {
  %a = oneflow.constant dense<[2147483647]> : tensor<1xi32>
  %b = oneflow.constant dense<[1]> : tensor<1xi32>
  %y = oneflow.add %a, %b : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
  oneflow.output "y", %y : tensor<1xi32>
  return
}

// -----

// Integer division by zero, and a quotient that does not fit, are left to
// the kernel.
// CHECK-LABEL: func.func @div_not_folded
// CHECK: oneflow.div
// CHECK: oneflow.div
func.func @div_not_folded() {
  %a = oneflow.constant dense<[1, 2]> : tensor<2xi64>
  %z = oneflow.constant dense<[1, 0]> : tensor<2xi64>
  %y = oneflow.div %a, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  oneflow.output "y", %y : tensor<2xi64>
  %m = oneflow.constant dense<[-2147483648]> : tensor<1xi32>
  %n = oneflow.constant dense<[-1]> : tensor<1xi32>
  %w = oneflow.div %m, %n : (tensor<1xi32>, tensor<1xi32>) -> tensor<1xi32>
  oneflow.output "w", %w : tensor<1xi32>
  return
}

// -----

// Comparisons give i1; NaN compares unequal.
// CHECK-LABEL: func.func @compare
// CHECK-DAG: oneflow.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: oneflow.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: oneflow.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-NOT: oneflow.equal
// CHECK-NOT: oneflow.not_equal
// CHECK-NOT: oneflow.less_equal
func.func @compare() {
  %a = oneflow.constant dense<[0x7FC00000, 2.0, 3.0]> : tensor<3xf32>
  %b = oneflow.constant dense<[1.0, 2.0, 1.0]> : tensor<3xf32>
  %e = oneflow.equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  oneflow.output "e", %e : tensor<3xi1>
  %n = oneflow.not_equal %a, %b : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  oneflow.output "n", %n : tensor<3xi1>
  %c = oneflow.constant dense<[1, 2, 3]> : tensor<3xi64>
  %d = oneflow.constant dense<2> : tensor<i64>
  %l = oneflow.less_equal %c, %d : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  oneflow.output "l", %l : tensor<3xi1>
  return
}

// -----

// Logic, negation, maximum, and where with a broadcast condition.
// CHECK-LABEL: func.func @select
// CHECK-DAG: oneflow.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: oneflow.constant dense<[-1, 5]> : tensor<2xi64>
// CHECK-DAG: oneflow.constant dense<{{\[\[}}1.000000e+00, 9.000000e+00], [1.000000e+00, 9.000000e+00]]> : tensor<2x2xf32>
// CHECK-DAG: oneflow.constant dense<[2.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK-NOT: oneflow.where
// CHECK-NOT: oneflow.neg
func.func @select() {
  %t = oneflow.constant dense<[true, true]> : tensor<2xi1>
  %f = oneflow.constant dense<[true, false]> : tensor<2xi1>
  %x = oneflow.logical_xor %t, %f : (tensor<2xi1>, tensor<2xi1>) -> tensor<2xi1>
  oneflow.output "x", %x : tensor<2xi1>
  %i = oneflow.constant dense<[1, -5]> : tensor<2xi64>
  %n = oneflow.neg %i : (tensor<2xi64>) -> tensor<2xi64>
  oneflow.output "n", %n : tensor<2xi64>
  %a = oneflow.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = oneflow.constant dense<[8.0, 9.0]> : tensor<2xf32>
  %w = oneflow.where %f, %a, %b : (tensor<2xi1>, tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %ww = oneflow.reshape %w : (tensor<2xf32>) -> tensor<1x2xf32>
  %c = oneflow.constant dense<[[true], [true]]> : tensor<2x1xi1>
  %v = oneflow.where %c, %ww, %b : (tensor<2x1xi1>, tensor<1x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  oneflow.output "v", %v : tensor<2x2xf32>
  %m = oneflow.constant dense<[2.0, -4.0]> : tensor<2xf32>
  %k = oneflow.constant dense<[-1.0, -3.0]> : tensor<2xf32>
  %mx = oneflow.maximum %m, %k : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  oneflow.output "mx", %mx : tensor<2xf32>
  return
}

// -----

// Casts: floats to integers truncate toward zero, integers to i1 are != 0,
// f32 to f16 rounds to nearest even, i64 to f32 rounds once; a cast to its
// own type is its operand.
// CHECK-LABEL: func.func @cast
// CHECK-DAG: oneflow.constant dense<[-2, 2, 0]> : tensor<3xi32>
// CHECK-DAG: oneflow.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: oneflow.constant dense<[1.000000e+00, 2.048000e+03]> : tensor<2xf16>
// CHECK-DAG: oneflow.constant dense<9.00719925E+15> : tensor<1xf32>
// CHECK-NOT: oneflow.cast
func.func @cast() {
  %a = oneflow.constant dense<[-2.9, 2.9, 0.5]> : tensor<3xf32>
  %i = oneflow.cast %a : (tensor<3xf32>) -> tensor<3xi32>
  oneflow.output "i", %i : tensor<3xi32>
  %b = oneflow.constant dense<[3, 0, -1]> : tensor<3xi64>
  %c = oneflow.cast %b : (tensor<3xi64>) -> tensor<3xi1>
  oneflow.output "c", %c : tensor<3xi1>
  %h = oneflow.constant dense<[1.0001, 2049.0]> : tensor<2xf32>
  %g = oneflow.cast %h : (tensor<2xf32>) -> tensor<2xf16>
  oneflow.output "g", %g : tensor<2xf16>
  %big = oneflow.constant dense<[9007199254740993]> : tensor<1xi64>
  %f = oneflow.cast %big : (tensor<1xi64>) -> tensor<1xf32>
  oneflow.output "f", %f : tensor<1xf32>
  %same = oneflow.cast %a : (tensor<3xf32>) -> tensor<3xf32>
  oneflow.output "same", %same : tensor<3xf32>
  return
}

// -----

// A float out of the integer type's range, or NaN, is left to the kernel;
// so is a cast to an unsigned (edge) type, which no constant holds.
// CHECK-LABEL: func.func @cast_not_folded
// CHECK: oneflow.cast {{.*}} -> tensor<2xui16>
// CHECK: oneflow.cast
// CHECK: oneflow.cast
func.func @cast_not_folded() {
  %u = oneflow.constant dense<[70000, 1]> : tensor<2xi32>
  %v = oneflow.cast %u : (tensor<2xi32>) -> tensor<2xui16>
  oneflow.output "v", %v : tensor<2xui16>
  %a = oneflow.constant dense<[3.0e9]> : tensor<1xf32>
  %i = oneflow.cast %a : (tensor<1xf32>) -> tensor<1xi32>
  oneflow.output "i", %i : tensor<1xi32>
  %n = oneflow.constant dense<[0x7FC00000]> : tensor<1xf32>
  %j = oneflow.cast %n : (tensor<1xf32>) -> tensor<1xi64>
  oneflow.output "j", %j : tensor<1xi64>
  return
}
