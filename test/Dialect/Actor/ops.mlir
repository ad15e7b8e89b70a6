// RUN: of-opt %s | of-opt | FileCheck %s
// RUN: of-opt %s --mlir-print-op-generic | of-opt | FileCheck %s
// RUN: of-opt %s --verify-roundtrip > /dev/null

// Every op of the oneflow_actor dialect in its custom form. The two
// pipelines check that custom and generic printing both parse back.

// A planned rank plan: offsets, arena and unplanned bytes, op attributes of
// every kind the plan export converts, and a discardable attribute.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 384 unplanned 512 attributes {test.note = "planned"} {
oneflow_actor.rank_plan rank 0 device cpu arena 384 unplanned 512 attributes {test.note = "planned"} {
  // CHECK: %[[X:.*]] = oneflow_actor.regst 0 count 1 offset 0 : tensor<8x4xf32>
  %x = oneflow_actor.regst 0 count 1 offset 0 : tensor<8x4xf32>
  // CHECK: oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%[[X]]) {name = "x"} on "compute"
  oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%x) {name = "x"} on "compute"
  // CHECK: %[[W:.*]] = oneflow_actor.regst 1 count 2 offset 128 : tensor<4x4xbf16>
  %w = oneflow_actor.regst 1 count 2 offset 128 : tensor<4x4xbf16>
  // CHECK: oneflow_actor.actor 1 @variable_1 "oneflow.variable"() -> (%[[W]]) {init = #oneflow.init<uniform(-1.000000e-01, 1.000000e-01)>, name = "w", seed = 7 : i64} on "compute"
  oneflow_actor.actor 1 @variable_1 "oneflow.variable"() -> (%w) {init = #oneflow.init<uniform(-0.1, 0.1)>, name = "w", seed = 7 : i64} on "compute"
  // CHECK: %[[Y:.*]] = oneflow_actor.regst 2 count 1 offset 256 : tensor<8x4xf32>
  %y = oneflow_actor.regst 2 count 1 offset 256 : tensor<8x4xf32>
  // CHECK: oneflow_actor.actor 2 @matmul_2 "oneflow.matmul"(%[[X]], %[[W]]) -> (%[[Y]]) {transpose_b} on "compute" attributes {test.fused}
  oneflow_actor.actor 2 @matmul_2 "oneflow.matmul"(%x, %w) -> (%y) {transpose_b} on "compute" attributes {test.fused}
  // CHECK: oneflow_actor.actor 3 @output_3 "oneflow.output"(%[[Y]]) -> () {name = "y"} on "compute"
  oneflow_actor.actor 3 @output_3 "oneflow.output"(%y) -> () {name = "y"} on "compute"
  // CHECK: oneflow_actor.stream "compute" [@input_0, @variable_1, @matmul_2, @output_3]
  oneflow_actor.stream "compute" [@input_0, @variable_1, @matmul_2, @output_3]
}

// An unplanned rank plan on a GPU with two streams, an actor with two
// outputs and no attributes, and an actor that reads one regst twice.
// CHECK-LABEL: oneflow_actor.rank_plan rank 1 device cuda {
oneflow_actor.rank_plan rank 1 device cuda {
  // CHECK: %[[A:.*]] = oneflow_actor.regst 0 count 1 : tensor<2xi64>
  %a = oneflow_actor.regst 0 count 1 : tensor<2xi64>
  // CHECK: %[[B:.*]] = oneflow_actor.regst 1 count 1 : tensor<2xi1>
  %b = oneflow_actor.regst 1 count 1 : tensor<2xi1>
  // CHECK: oneflow_actor.actor 0 @split "test.split"() -> (%[[A]], %[[B]]) on "compute"
  oneflow_actor.actor 0 @split "test.split"() -> (%a, %b) on "compute"
  %c = oneflow_actor.regst 2 count 1 : tensor<2xi64>
  // CHECK: oneflow_actor.actor 1 @add "oneflow.add"(%[[A]], %[[A]]) -> (%{{.*}}) on "copy"
  oneflow_actor.actor 1 @add "oneflow.add"(%a, %a) -> (%c) on "copy"
  // CHECK: oneflow_actor.actor 2 @sink "test.sink"(%[[B]]) -> () on "compute"
  oneflow_actor.actor 2 @sink "test.sink"(%b) -> () on "compute"
  // CHECK: oneflow_actor.stream "compute" [@split, @sink]
  oneflow_actor.stream "compute" [@split, @sink]
  // CHECK: oneflow_actor.stream "copy" [@add]
  oneflow_actor.stream "copy" [@add]
}

// An empty rank plan is valid: a rank with nothing to run.
// CHECK-LABEL: oneflow_actor.rank_plan rank 2 device cpu {
// CHECK-NEXT: }
oneflow_actor.rank_plan rank 2 device cpu {
}
