// RUN: of-translate --export-plan-text %s | FileCheck %s
// RUN: of-opt %s | of-opt | FileCheck %s --check-prefix=ROUND

// Each typed actor layout (ActorLayouts.td) becomes the plan's layout
// message of the same kind, whatever the op: plan export switches on the
// layout's class, never on the op's name, and the op's own attributes stay
// in `attrs`.

// CHECK:      op: "test.source"
// CHECK:      piece {
// CHECK-NEXT:   logical_shape: 8
// CHECK-NEXT:   logical_shape: 4
// CHECK-NEXT:   begin: 4
// CHECK-NEXT:   begin: 0
// CHECK-NEXT:   zero: true
// CHECK-NEXT:   micro_stride: 2
// CHECK-NEXT:   micro_stride: 0
// CHECK-NEXT: }

// CHECK:      op: "test.sink"
// CHECK:      sink {
// CHECK-NEXT:   piece {
// CHECK-NEXT:     logical_shape: 8
// CHECK-NEXT:     logical_shape: 4
// CHECK-NEXT:     begin: 4
// CHECK-NEXT:     begin: 0
// CHECK-NEXT:   }
// CHECK-NEXT:   partial: true
// CHECK-NEXT: }

// CHECK:      op: "test.collective"
// CHECK:      collective {
// CHECK-NEXT:   group: 1
// CHECK-NEXT:   group: 3
// CHECK-NEXT:   axis: 1
// CHECK-NEXT:   reduction: REDUCTION_MAX
// CHECK-NEXT: }

// CHECK:      op: "test.transfer"
// CHECK:      transfer {
// CHECK-NEXT:   group: 0
// CHECK-NEXT:   group: 1
// CHECK-NEXT:   sends {
// CHECK-NEXT:     peer: 1
// CHECK-NEXT:     tag: 7
// CHECK-NEXT:     begin: 2
// CHECK-NEXT:     begin: 0
// CHECK-NEXT:     size: 2
// CHECK-NEXT:     size: 4
// CHECK-NEXT:   }
// CHECK-NEXT:   reduce: true
// CHECK-NEXT: }

// CHECK:      op: "test.box"
// CHECK:      local_boxing {
// CHECK-NEXT:   begin: 0
// CHECK-NEXT:   begin: 2
// CHECK-NEXT:   keep: true
// CHECK-NEXT: }

// CHECK:      op: "test.rows"
// CHECK:      attrs {
// CHECK-NEXT:   key: "axis"
// CHECK:      index_range {
// CHECK-NEXT:   begin: 4
// CHECK-NEXT:   limit: 10
// CHECK-NEXT: }

// CHECK:      op: "test.mean"
// CHECK:      divisor {
// CHECK-NEXT:   divisor: 16
// CHECK-NEXT: }

// CHECK:      op: "test.plain"
// CHECK-NOT:  {{piece|sink|collective|transfer|local_boxing|index_range|divisor}} {
// CHECK:      streams {

// ROUND: layout #oneflow_actor.piece<logical_shape = [8, 4], begin = [4, 0], micro_stride = [2, 0], zero = true> on "io"
// ROUND: layout #oneflow_actor.sink<piece = <logical_shape = [8, 4], begin = [4, 0]>, partial = true> on "compute"
// ROUND: layout #oneflow_actor.collective<group = [1, 3], axis = 1, reduction = max> on "collective"
// ROUND: layout #oneflow_actor.transfer<group = [0, 1], sends = [1, 7, 2, 0, 2, 4], recvs = [], reduce = true> on "collective"
// ROUND: layout #oneflow_actor.local_boxing<begin = [0, 2], keep = true> on "compute"
// ROUND: {axis = 0 : i64} layout #oneflow_actor.index_range<begin = 4, limit = 10> on "compute"
// ROUND: layout #oneflow_actor.divisor<divisor = 16> on "compute"
// ROUND: @plain_7 "test.plain"(%{{.*}}) -> () on "compute"

oneflow_actor.rank_plan rank 0 device cpu {
  %r0 = oneflow_actor.regst 0 count 1 : tensor<4x4xf32>
  oneflow_actor.actor 0 @source_0 "test.source"() -> (%r0) layout #oneflow_actor.piece<logical_shape = [8, 4], begin = [4, 0], micro_stride = [2, 0], zero = true> on "io"
  oneflow_actor.actor 1 @sink_1 "test.sink"(%r0) -> () layout #oneflow_actor.sink<piece = <logical_shape = [8, 4], begin = [4, 0]>, partial = true> on "compute"
  %r1 = oneflow_actor.regst 1 count 1 : tensor<4x4xf32>
  oneflow_actor.actor 2 @collective_2 "test.collective"(%r0) -> (%r1) layout #oneflow_actor.collective<group = [1, 3], axis = 1, reduction = max> on "collective"
  oneflow_actor.actor 3 @transfer_3 "test.transfer"(%r0) -> () layout #oneflow_actor.transfer<group = [0, 1], sends = [1, 7, 2, 0, 2, 4], recvs = [], reduce = true> on "collective"
  %r2 = oneflow_actor.regst 2 count 1 : tensor<4x2xf32>
  oneflow_actor.actor 4 @box_4 "test.box"(%r1) -> (%r2) layout #oneflow_actor.local_boxing<begin = [0, 2], keep = true> on "compute"
  %r3 = oneflow_actor.regst 3 count 1 : tensor<4x4xf32>
  oneflow_actor.actor 5 @rows_5 "test.rows"(%r1) -> (%r3) {axis = 0 : i64} layout #oneflow_actor.index_range<begin = 4, limit = 10> on "compute"
  %r4 = oneflow_actor.regst 4 count 1 : tensor<f32>
  oneflow_actor.actor 6 @mean_6 "test.mean"(%r3) -> (%r4) layout #oneflow_actor.divisor<divisor = 16> on "compute"
  oneflow_actor.actor 7 @plain_7 "test.plain"(%r4) -> () on "compute"
  oneflow_actor.stream "io" [@source_0]
  oneflow_actor.stream "collective" [@collective_2, @transfer_3]
  oneflow_actor.stream "compute" [@sink_1, @box_4, @rows_5, @mean_6, @plain_7]
}
