// A research plugin, built in-tree but loaded like any out-of-tree one: its
// dialect (ofexample) and pass (oneflow-example-fuse-swish) run inside an
// of-opt pipeline next to ours, without rebuilding of-opt.
//
// RUN: of-opt %s --load-dialect-plugin=%oneflow_libs/OneFlowExamplePlugin%shlibext \
// RUN:   --load-pass-plugin=%oneflow_libs/OneFlowExamplePlugin%shlibext \
// RUN:   --pass-pipeline='builtin.module(func.func(oneflow-infer-shapes), oneflow-example-fuse-swish, cse)' \
// RUN:   | FileCheck %s

// CHECK-LABEL: func.func @swish
// Both orders fuse, and cse then merges the two identical swish ops.
// CHECK-NEXT: %[[S:.*]] = ofexample.swish %arg0 : tensor<8x16xf32>
// CHECK-NEXT: %[[N:.*]] = oneflow.mul %[[S]], %arg1
// CHECK-NEXT: return %[[N]], %[[S]]
func.func @swish(%x: tensor<8x16xf32>, %y: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = oneflow.sigmoid %x : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %a = oneflow.mul %x, %s : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<?x?xf32>
  %b = oneflow.mul %s, %x : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  // Not a swish: the sigmoid is of another value.
  %c = oneflow.mul %a, %y : (tensor<?x?xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %c, %b : tensor<8x16xf32>, tensor<8x16xf32>
}
