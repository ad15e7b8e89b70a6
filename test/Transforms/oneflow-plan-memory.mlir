// RUN: of-opt %s -split-input-file -oneflow-plan-memory | FileCheck %s

// A chain: each regst lives from its producer to its last consumer, so the
// third reuses the first's bytes; the output's regst keeps its own memory.
// Positions: input 0, relu 1, relu 2, relu 3, output 4.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 384 unplanned 512 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 :
// CHECK:         oneflow_actor.regst 1 count 1 offset 256 :
// CHECK:         oneflow_actor.regst 2 count 1 offset 0 :
// CHECK:         oneflow_actor.regst 3 count 1 offset 128 :
oneflow_actor.rank_plan rank 0 device cpu {
  %r0 = oneflow_actor.regst 0 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%r0) {name = "x"} on "compute"
  %r1 = oneflow_actor.regst 1 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 1 @relu_1 "oneflow.relu"(%r0) -> (%r1) on "compute"
  %r2 = oneflow_actor.regst 2 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 2 @relu_2 "oneflow.relu"(%r1) -> (%r2) on "compute"
  %r3 = oneflow_actor.regst 3 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 3 @relu_3 "oneflow.relu"(%r2) -> (%r3) on "compute"
  oneflow_actor.actor 4 @output_4 "oneflow.output"(%r3) -> () {name = "y"} on "compute"
  oneflow_actor.stream "compute" [@input_0, @relu_1, @relu_2, @relu_3, @output_4]
}

// -----

// Best fit: when regst 4 (64 bytes, live at position 3) is placed, the
// bytes free at its position are [0, 128) and [192, 256); it takes the
// smaller gap. Placement order is by size: 0 (256 B), 1, 2 (128 B, by first
// position), 3, 4 (64 B).
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 384 unplanned 640 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 : tensor<64xf32>
// CHECK:         oneflow_actor.regst 1 count 1 offset 256 : tensor<32xf32>
// CHECK:         oneflow_actor.regst 2 count 1 offset 0 : tensor<32xf32>
// CHECK:         oneflow_actor.regst 3 count 1 offset 128 : tensor<16xf32>
// CHECK:         oneflow_actor.regst 4 count 1 offset 192 : tensor<16xf32>
oneflow_actor.rank_plan rank 0 device cpu {
  %h1 = oneflow_actor.regst 0 count 1 : tensor<64xf32>
  oneflow_actor.actor 0 @a0 "test.a"() -> (%h1) on "compute"
  %y = oneflow_actor.regst 1 count 1 : tensor<32xf32>
  oneflow_actor.actor 1 @a1 "test.a"(%h1) -> (%y) on "compute"
  %h3 = oneflow_actor.regst 2 count 1 : tensor<32xf32>
  %x = oneflow_actor.regst 3 count 1 : tensor<16xf32>
  oneflow_actor.actor 2 @a2 "test.a"() -> (%h3, %x) on "compute"
  %n = oneflow_actor.regst 4 count 1 : tensor<16xf32>
  oneflow_actor.actor 3 @a3 "test.a"(%x, %y) -> (%n) on "compute"
  oneflow_actor.stream "compute" [@a0, @a1, @a2, @a3]
}

// -----

// Sizes round up to 64 bytes (i1: a byte per element, bf16: two), and
// every regst here keeps its own memory: a variable's, one with two
// buffers, one read on another stream, one read by an output.
// Without these rules, regst 3 would share regst 0's bytes.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 512 unplanned 512 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 384 : tensor<3xf32>
// CHECK:         oneflow_actor.regst 1 count 2 offset 0 : tensor<100xi1>
// CHECK:         oneflow_actor.regst 2 count 1 offset 256 : tensor<40xbf16>
// CHECK:         oneflow_actor.regst 3 count 1 offset 448 : tensor<2xi64>
oneflow_actor.rank_plan rank 0 device cpu {
  %w = oneflow_actor.regst 0 count 1 : tensor<3xf32>
  oneflow_actor.actor 0 @variable_0 "oneflow.variable"() -> (%w) on "compute"
  %m = oneflow_actor.regst 1 count 2 : tensor<100xi1>
  oneflow_actor.actor 1 @mask_1 "test.mask"(%w) -> (%m) on "compute"
  %h = oneflow_actor.regst 2 count 1 : tensor<40xbf16>
  oneflow_actor.actor 2 @copy_2 "test.copy"(%m) -> (%h) on "compute"
  %i = oneflow_actor.regst 3 count 1 : tensor<2xi64>
  oneflow_actor.actor 3 @index_3 "test.index"() -> (%i) on "compute"
  oneflow_actor.actor 4 @send_4 "test.send"(%h) -> () on "copy"
  oneflow_actor.actor 5 @output_5 "oneflow.output"(%i) -> () on "compute"
  oneflow_actor.stream "compute" [@variable_0, @mask_1, @copy_2, @index_3, @output_5]
  oneflow_actor.stream "copy" [@send_4]
}

// -----

// A regst nobody reads is live at its producer only.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 64 unplanned 128 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 :
// CHECK:         oneflow_actor.regst 1 count 1 offset 0 :
oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  %b = oneflow_actor.regst 1 count 1 : tensor<4xf32>
  oneflow_actor.actor 1 @b "test.b"() -> (%b) on "compute"
  oneflow_actor.stream "compute" [@a, @b]
}

// -----

// Planning again gives the same plan; an empty plan needs no arena.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 64 unplanned 64 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 :
// CHECK-LABEL: oneflow_actor.rank_plan rank 1 device cpu arena 0 unplanned 0 {
oneflow_actor.rank_plan rank 0 device cpu arena 4096 unplanned 4096 {
  %a = oneflow_actor.regst 0 count 1 offset 1024 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  oneflow_actor.stream "compute" [@a]
}
oneflow_actor.rank_plan rank 1 device cpu {
}

// -----

// A three-layer MLP, as oneflow-lower-to-actor-graph gives it: without
// reuse its regsts take 705280 bytes (ten 256x64xf32 activations of 65536
// bytes, three 64x64 weights, three biases); with reuse the activations
// take turns in three slots and the arena is 246528 bytes. Parameters and
// the output keep their own memory.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 246528 unplanned 705280 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 : tensor<256x64xf32>
// CHECK:         oneflow_actor.regst 7 count 1 offset 131072 : tensor<256x64xf32>
// CHECK-NEXT:    oneflow_actor.actor 7 @matmul_7
// CHECK:         oneflow_actor.regst 8 count 1 offset 0 : tensor<256x64xf32>
// CHECK:         oneflow_actor.regst 9 count 1 offset 131072 : tensor<256x64xf32>
// CHECK:         oneflow_actor.regst 15 count 1 offset 65536 : tensor<256x64xf32>
// CHECK-NEXT:    oneflow_actor.actor 15 @softmax_15
oneflow_actor.rank_plan rank 0 device cpu {
  %r0 = oneflow_actor.regst 0 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%r0) {name = "x"} on "compute"
  %r1 = oneflow_actor.regst 1 count 1 : tensor<64x64xf32>
  oneflow_actor.actor 1 @variable_1 "oneflow.variable"() -> (%r1) {init = #oneflow.init<zeros>, name = "w1", seed = 0 : i64} on "compute"
  %r2 = oneflow_actor.regst 2 count 1 : tensor<64xf32>
  oneflow_actor.actor 2 @variable_2 "oneflow.variable"() -> (%r2) {init = #oneflow.init<zeros>, name = "b1", seed = 0 : i64} on "compute"
  %r3 = oneflow_actor.regst 3 count 1 : tensor<64x64xf32>
  oneflow_actor.actor 3 @variable_3 "oneflow.variable"() -> (%r3) {init = #oneflow.init<zeros>, name = "w2", seed = 0 : i64} on "compute"
  %r4 = oneflow_actor.regst 4 count 1 : tensor<64xf32>
  oneflow_actor.actor 4 @variable_4 "oneflow.variable"() -> (%r4) {init = #oneflow.init<zeros>, name = "b2", seed = 0 : i64} on "compute"
  %r5 = oneflow_actor.regst 5 count 1 : tensor<64x64xf32>
  oneflow_actor.actor 5 @variable_5 "oneflow.variable"() -> (%r5) {init = #oneflow.init<zeros>, name = "w3", seed = 0 : i64} on "compute"
  %r6 = oneflow_actor.regst 6 count 1 : tensor<64xf32>
  oneflow_actor.actor 6 @variable_6 "oneflow.variable"() -> (%r6) {init = #oneflow.init<zeros>, name = "b3", seed = 0 : i64} on "compute"
  %r7 = oneflow_actor.regst 7 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 7 @matmul_7 "oneflow.matmul"(%r0, %r1) -> (%r7) on "compute"
  %r8 = oneflow_actor.regst 8 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 8 @add_8 "oneflow.add"(%r7, %r2) -> (%r8) on "compute"
  %r9 = oneflow_actor.regst 9 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 9 @relu_9 "oneflow.relu"(%r8) -> (%r9) on "compute"
  %r10 = oneflow_actor.regst 10 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 10 @matmul_10 "oneflow.matmul"(%r9, %r3) -> (%r10) on "compute"
  %r11 = oneflow_actor.regst 11 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 11 @add_11 "oneflow.add"(%r10, %r4) -> (%r11) on "compute"
  %r12 = oneflow_actor.regst 12 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 12 @relu_12 "oneflow.relu"(%r11) -> (%r12) on "compute"
  %r13 = oneflow_actor.regst 13 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 13 @matmul_13 "oneflow.matmul"(%r12, %r5) -> (%r13) on "compute"
  %r14 = oneflow_actor.regst 14 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 14 @add_14 "oneflow.add"(%r13, %r6) -> (%r14) on "compute"
  %r15 = oneflow_actor.regst 15 count 1 : tensor<256x64xf32>
  oneflow_actor.actor 15 @softmax_15 "oneflow.softmax"(%r14) -> (%r15) {axis = -1 : i64} on "compute"
  oneflow_actor.actor 16 @output_16 "oneflow.output"(%r15) -> () {name = "p"} on "compute"
  oneflow_actor.stream "compute" [@input_0, @variable_1, @variable_2, @variable_3, @variable_4, @variable_5, @variable_6, @matmul_7, @add_8, @relu_9, @matmul_10, @add_11, @relu_12, @matmul_13, @add_14, @softmax_15, @output_16]
}

// -----

// Streams run concurrently: a regst used only on "collective" (0, live at
// positions 0-1 there) and one used only on "compute" (2, live at 2-3
// there) never share bytes, though their positions do not overlap.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 384 unplanned 384 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 : tensor<32xf32>
// CHECK:         oneflow_actor.regst 1 count 1 offset 128 : tensor<32xf32>
// CHECK:         oneflow_actor.regst 2 count 1 offset 256 : tensor<32xf32>
oneflow_actor.rank_plan rank 0 device cpu {
  %c0 = oneflow_actor.regst 0 count 1 : tensor<32xf32>
  oneflow_actor.actor 0 @c0 "test.a"() -> (%c0) on "collective"
  %c1 = oneflow_actor.regst 1 count 1 : tensor<32xf32>
  oneflow_actor.actor 1 @c1 "test.a"(%c0) -> (%c1) on "collective"
  %m0 = oneflow_actor.regst 2 count 1 : tensor<32xf32>
  oneflow_actor.actor 2 @m0 "test.a"() -> (%m0) on "compute"
  oneflow_actor.actor 3 @m1 "test.a"(%m0, %c1) -> () on "compute"
  oneflow_actor.actor 4 @n0 "test.a"() -> () on "compute"
  oneflow_actor.actor 5 @n1 "test.a"() -> () on "compute"
  oneflow_actor.stream "collective" [@c0, @c1]
  oneflow_actor.stream "compute" [@n0, @n1, @m0, @m1]
}

// -----

// A reshape's result takes its operand's bytes (the copy then skips
// itself): regst 1 lives on to the last reader of regst 2, and a flatten
// of that takes them too. Positions: input 0, relu 1, reshape 2,
// flatten 3, relu 4, output 5.
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu arena 384 unplanned 640 {
// CHECK:         oneflow_actor.regst 0 count 1 offset 0 :
// CHECK:         oneflow_actor.regst 1 count 1 offset [[SHARED:[0-9]+]] :
// CHECK:         oneflow_actor.regst 2 count 1 offset [[SHARED]] :
// CHECK:         oneflow_actor.regst 3 count 1 offset [[SHARED]] :
oneflow_actor.rank_plan rank 0 device cpu {
  %r0 = oneflow_actor.regst 0 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%r0) {name = "x"} on "compute"
  %r1 = oneflow_actor.regst 1 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 1 @relu_1 "oneflow.relu"(%r0) -> (%r1) on "compute"
  %r2 = oneflow_actor.regst 2 count 1 : tensor<2x4x4xf32>
  oneflow_actor.actor 2 @reshape_2 "oneflow.reshape"(%r1) -> (%r2) on "compute"
  %r3 = oneflow_actor.regst 3 count 1 : tensor<2x16xf32>
  oneflow_actor.actor 3 @flatten_3 "oneflow.flatten"(%r2) -> (%r3) {start_dim = 1 : i64} on "compute"
  %r4 = oneflow_actor.regst 4 count 1 : tensor<2x16xf32>
  oneflow_actor.actor 4 @relu_4 "oneflow.relu"(%r3) -> (%r4) on "compute"
  oneflow_actor.actor 5 @output_5 "oneflow.output"(%r4) -> () {name = "y"} on "compute"
  oneflow_actor.stream "compute" [@input_0, @relu_1, @reshape_2, @flatten_3, @relu_4, @output_5]
}

// -----

// No alias where the operand has another reader (regst 1, read by the
// relu too), or is read on another stream (regst 3).
// CHECK-LABEL: oneflow_actor.rank_plan rank 0 device cpu
// CHECK:         oneflow_actor.regst 1 count 1 offset [[R1:[0-9]+]] :
// CHECK-NOT:     oneflow_actor.regst 2 count 1 offset [[R1]] :
// CHECK:         oneflow_actor.regst 3 count 1 offset [[R3:[0-9]+]] :
// CHECK-NOT:     oneflow_actor.regst 4 count 1 offset [[R3]] :
oneflow_actor.rank_plan rank 0 device cpu {
  %r0 = oneflow_actor.regst 0 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%r0) {name = "x"} on "compute"
  %r1 = oneflow_actor.regst 1 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 1 @relu_1 "oneflow.relu"(%r0) -> (%r1) on "compute"
  %r2 = oneflow_actor.regst 2 count 1 : tensor<32xf32>
  oneflow_actor.actor 2 @reshape_2 "oneflow.reshape"(%r1) -> (%r2) on "compute"
  %r3 = oneflow_actor.regst 3 count 1 : tensor<8x4xf32>
  oneflow_actor.actor 3 @relu_3 "oneflow.relu"(%r1) -> (%r3) on "compute"
  %r4 = oneflow_actor.regst 4 count 1 : tensor<32xf32>
  oneflow_actor.actor 4 @reshape_4 "oneflow.reshape"(%r3) -> (%r4) on "side"
  %r5 = oneflow_actor.regst 5 count 1 : tensor<32xf32>
  oneflow_actor.actor 5 @add_5 "oneflow.add"(%r2, %r4) -> (%r5) on "compute"
  oneflow_actor.actor 6 @output_6 "oneflow.output"(%r5) -> () {name = "y"} on "compute"
  oneflow_actor.stream "compute" [@input_0, @relu_1, @reshape_2, @relu_3, @add_5, @output_6]
  oneflow_actor.stream "side" [@reshape_4]
}
