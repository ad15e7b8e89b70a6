// RUN: of-translate --export-plan-text %s | FileCheck %s
// RUN: of-translate --export-plan %s \
// RUN:   | protoc --decode=ofrt.proto.Plan --proto_path=%oneflow_src/lib/Runtime/Plan plan.proto \
// RUN:   | FileCheck %s
// RUN: of-opt %S/../Transforms/oneflow-default-pipeline.mlir -oneflow-default-pipeline -mlir-print-debuginfo \
// RUN:   | of-translate --export-plan-text | FileCheck %s --check-prefix=PIPELINE

// Binary and text exports decode to the same plan. Proto3 leaves out fields
// that hold zero (rank 0, id 0, offset 0).

// CHECK: version: CURRENT
// CHECK: world_size: 2

// Rank plans come in rank order, whatever their order in the module.
// CHECK: ranks {

// Every kind of attribute, under its name (the map is sorted by key).
// CHECK:      actors {
// CHECK-NEXT:   op: "test.attrs"
// CHECK-NEXT:   name: "attrs_0"
// CHECK-NEXT:   location: "{{.*}}export-plan.mlir:[[# @LINE + 235]]:3"
// CHECK-NEXT:   stream: "compute"
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "axes"
// CHECK-NEXT:     value {
// CHECK-NEXT:       ints {
// CHECK-NEXT:         values: 0
// CHECK-NEXT:         values: -1
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "epsilon"
// CHECK-NEXT:     value {
// CHECK-NEXT:       f: 1e-05
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "flag"
// CHECK-NEXT:     value {
// CHECK-NEXT:       b: false
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "init"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "uniform"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "init_args"
// CHECK-NEXT:     value {
// CHECK-NEXT:       floats {
// CHECK-NEXT:         values: -0.5
// CHECK-NEXT:         values: 0.5
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "name"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "fc.weight"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "scales"
// CHECK-NEXT:     value {
// CHECK-NEXT:       floats {
// CHECK-NEXT:         values: 0.25
// CHECK-NEXT:         values: 2
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "seed"
// CHECK-NEXT:     value {
// CHECK-NEXT:       i: -7
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "training"
// CHECK-NEXT:     value {
// CHECK-NEXT:       b: true
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   attrs {
// CHECK-NEXT:     key: "value"
// CHECK-NEXT:     value {
// CHECK-NEXT:       tensor {
// CHECK-NEXT:         desc {
// CHECK-NEXT:           dtype: F32
// CHECK-NEXT:           shape: 2
// CHECK-NEXT:           shape: 1
// CHECK-NEXT:         }
// CHECK-NEXT:         data: "\000\000\200?\000\000\000\300"
// CHECK-NEXT:       }
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   outputs: 0
// CHECK-NEXT:   firings_per_step: 1
// CHECK-NEXT: }

// Tensors: dtype, shape and little-endian row-major bytes (i1: a byte
// each; resource blobs too). Regsts are listed by id, in operand order,
// repeats kept.
// CHECK:      actors {
// CHECK-NEXT:   id: 1
// CHECK-NEXT:   op: "test.tensors"
// CHECK-NEXT:   name: "tensors_1"
// CHECK:          key: "bf16"
// CHECK:            dtype: BF16
// CHECK:          data: "\200?\200?"
// CHECK:          key: "f16"
// CHECK:            dtype: F16
// CHECK:          data: "\000<\000\300"
// CHECK:          key: "f64"
// CHECK:            dtype: F64
// CHECK:          data: "\000\000\000\000\000\000\360?\000\000\000\000\000\000\340\277"
// CHECK:          key: "i1"
// CHECK:            dtype: BOOL
// CHECK-NEXT:       shape: 3
// CHECK:          data: "\001\000\001"
// CHECK:          key: "i32"
// CHECK:            dtype: I32
// CHECK:          data: "\002\001\000\000\376\377\377\377"
// CHECK:          key: "i64"
// CHECK:            dtype: I64
// CHECK-NEXT:       shape: 1
// CHECK-NEXT:       shape: 2
// CHECK:          data: "\001\000\000\000\000\000\000\000\377\377\377\377\377\377\377\377"
// CHECK:          key: "i8"
// CHECK:            dtype: I8
// CHECK:          data: "\377\002"
// CHECK:          key: "resource"
// CHECK:            dtype: I32
// CHECK:          data: "\007\000\000\000\t\000\000\000"
// CHECK:          key: "scalar"
// CHECK-NEXT:     value {
// CHECK-NEXT:       tensor {
// CHECK-NEXT:         desc {
// CHECK-NEXT:           dtype: I32
// CHECK-NEXT:         }
// CHECK-NEXT:         data: "\003\000\000\000"
// CHECK:        inputs: 0
// CHECK-NEXT:   inputs: 0
// CHECK-NEXT:   outputs: 1
// CHECK-NEXT:   firings_per_step: 1
// CHECK-NEXT: }

// An initializer without arguments still gives `init_args`.
// CHECK:      actors {
// CHECK-NEXT:   id: 2
// CHECK:          key: "init"
// CHECK-NEXT:     value {
// CHECK-NEXT:       s: "zeros"
// CHECK:          key: "init_args"
// CHECK-NEXT:     value {
// CHECK-NEXT:       floats {
// CHECK-NEXT:       }

// An actor without attributes. Its role says what the runtime makes of it
// (the runtime's own actors are never found by op name).
// CHECK:      actors {
// CHECK-NEXT:   id: 3
// CHECK-NEXT:   op: "oneflow.output"
// CHECK-NEXT:   name: "output_3"
// CHECK-NEXT:   location: "{{.*}}export-plan.mlir:{{[0-9]+}}:3"
// CHECK-NEXT:   stream: "compute"
// CHECK-NEXT:   inputs: 2
// CHECK-NEXT:   firings_per_step: 1
// CHECK-NEXT:   role: ROLE_OUTPUT
// CHECK-NEXT: }

// Regsts: producer, consumers (each once), offset; the memory plan.
// CHECK-NEXT: regsts {
// CHECK-NEXT:   desc {
// CHECK-NEXT:     dtype: F32
// CHECK-NEXT:     shape: 2
// CHECK-NEXT:     shape: 1
// CHECK-NEXT:   }
// CHECK-NEXT:   count: 1
// CHECK-NEXT:   consumers: 1
// CHECK-NEXT:   offset: 128
// CHECK-NEXT: }
// CHECK-NEXT: regsts {
// CHECK-NEXT:   id: 1
// CHECK:        producer: 1
// CHECK-NEXT:   consumers: 2
// CHECK-NEXT: }
// CHECK-NEXT: regsts {
// CHECK-NEXT:   id: 2
// CHECK:        producer: 2
// CHECK-NEXT:   consumers: 3
// CHECK-NEXT:   offset: 64
// CHECK-NEXT: }
// CHECK-NEXT: streams {
// CHECK-NEXT:   name: "compute"
// CHECK-NEXT:   actors: 0
// CHECK-NEXT:   actors: 1
// CHECK-NEXT:   actors: 2
// CHECK-NEXT:   actors: 3
// CHECK-NEXT: }
// CHECK-NEXT: arena_bytes: 192
// CHECK-NEXT: unplanned_bytes: 256
// CHECK-NEXT: device {
// CHECK-NEXT:   kind: CPU
// CHECK-NEXT: }
// CHECK-NEXT: }

// Rank 1: not planned (offset -1, no arena), two streams.
// CHECK-NEXT: ranks {
// CHECK-NEXT:   rank: 1
// CHECK:        regsts {
// CHECK-NEXT:     desc {
// CHECK-NEXT:       dtype: F32
// CHECK-NEXT:       shape: 4
// CHECK-NEXT:     }
// CHECK-NEXT:     count: 2
// CHECK-NEXT:     consumers: 1
// CHECK-NEXT:     offset: -1
// CHECK-NEXT:   }
// CHECK-NEXT:   streams {
// CHECK-NEXT:     name: "compute"
// CHECK-NEXT:     actors: 0
// CHECK-NEXT:   }
// CHECK-NEXT:   streams {
// CHECK-NEXT:     name: "copy"
// CHECK-NEXT:     actors: 1
// CHECK-NEXT:   }
// CHECK-NEXT:   device {
// CHECK-NEXT:     kind: CUDA
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: source: "{{.*}}export-plan.mlir"

// Through the default pipeline, actors keep the source locations of their
// ops.
// PIPELINE: version: CURRENT
// PIPELINE: world_size: 1
// PIPELINE: name: "matmul_2"
// PIPELINE-NEXT: location: "{{.*}}oneflow-default-pipeline.mlir:{{[0-9]+}}:8"
// PIPELINE: arena_bytes: 1792
// PIPELINE-NEXT: unplanned_bytes: 2304

// Rank 1, first in the module: unplanned (offset -1, no arena).
oneflow_actor.rank_plan rank 1 device cuda {
  %a = oneflow_actor.regst 0 count 2 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  oneflow_actor.actor 1 @b "test.b"(%a) -> () on "copy"
  oneflow_actor.stream "compute" [@a]
  oneflow_actor.stream "copy" [@b]
}

oneflow_actor.rank_plan rank 0 device cpu arena 192 unplanned 256 {
  %w = oneflow_actor.regst 0 count 1 offset 128 : tensor<2x1xf32>
  oneflow_actor.actor 0 @attrs_0 "test.attrs"() -> (%w) {axes = array<i64: 0, -1>, epsilon = 1.0e-5 : f64, flag = false, init = #oneflow.init<uniform(-0.5, 0.5)>, name = "fc.weight", scales = array<f64: 0.25, 2.0>, seed = -7 : i64, training, value = dense<[[1.0], [-2.0]]> : tensor<2x1xf32>} on "compute"
  %t = oneflow_actor.regst 1 count 1 offset 0 : tensor<2xi1>
  oneflow_actor.actor 1 @tensors_1 "test.tensors"(%w, %w) -> (%t) {f64 = dense<[1.0, -0.5]> : tensor<2xf64>, f16 = dense<[1.0, -2.0]> : tensor<2xf16>, bf16 = dense<1.0> : tensor<2xbf16>, i8 = dense<[-1, 2]> : tensor<2xi8>, i32 = dense<[258, -2]> : tensor<2xi32>, i64 = dense<[[1, -1]]> : tensor<1x2xi64>, i1 = dense<[true, false, true]> : tensor<3xi1>, scalar = dense<3> : tensor<i32>, resource = dense_resource<blob> : tensor<2xi32>} on "compute"
  %u = oneflow_actor.regst 2 count 1 offset 64 : tensor<2xi1>
  oneflow_actor.actor 2 @init_2 "test.init"(%t) -> (%u) {init = #oneflow.init<zeros>} on "compute"
  oneflow_actor.actor 3 @output_3 "oneflow.output"(%u) -> () on "compute"
  oneflow_actor.stream "compute" [@attrs_0, @tensors_1, @init_2, @output_3]
}

{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000700000009000000"
    }
  }
#-}
