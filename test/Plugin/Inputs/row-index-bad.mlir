// A hand-edited plan whose ofexample.add_row_index holds rows past the
// table's end (example-plugin-layout.test).
oneflow_actor.rank_plan rank 0 device cpu {
  %r0 = oneflow_actor.regst 0 count 1 : tensor<4x2xf32>
  oneflow_actor.actor 0 @x_0 "oneflow.input"() -> (%r0) {name = "x"} on "io"
  %r1 = oneflow_actor.regst 1 count 1 : tensor<4x2xf32>
  oneflow_actor.actor 1 @rows_1 "ofexample.add_row_index"(%r0) -> (%r1) {scale = 1.000000e+00 : f64} layout #oneflow_actor.index_range<begin = 6, limit = 8> on "compute"
  oneflow_actor.actor 2 @y_2 "oneflow.output"(%r1) -> () {name = "y"} on "compute"
  oneflow_actor.stream "io" [@x_0]
  oneflow_actor.stream "compute" [@rows_1, @y_2]
}
