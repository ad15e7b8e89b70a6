// RUN: of-translate --export-plan-text %s -split-input-file -verify-diagnostics
// RUN: of-translate --export-plan %s -split-input-file -verify-diagnostics

// expected-error@+1 {{found no oneflow_actor.rank_plan to export; run oneflow-lower-to-actor-graph first}}
module {
  func.func @program() {
    return
  }
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
}
// expected-error@+1 {{'oneflow_actor.rank_plan' op is a second plan for rank 0}}
oneflow_actor.rank_plan rank 0 device cpu {
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
}
// expected-error@+1 {{'oneflow_actor.rank_plan' op rank 2 is out of range for a world of 2 rank plans}}
oneflow_actor.rank_plan rank 2 device cpu {
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op element type 'i4' of regst 0 has no plan dtype}}
  %a = oneflow_actor.regst 0 count 1 : tensor<4xi4>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{cannot export attribute 'perm' of @a (test.a): plans have no value for array<i32: 1, 0>}}
  oneflow_actor.actor 0 @a "test.a"() -> () {perm = array<i32: 1, 0>} on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{cannot export attribute 'big' of @a (test.a): its value does not fit in 64 bits}}
  oneflow_actor.actor 0 @a "test.a"() -> () {big = 18446744073709551616 : i128} on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{cannot export attribute 'value' of @a (oneflow.variable): plans cannot hold elements of type i4}}
  oneflow_actor.actor 0 @a "oneflow.variable"() -> () {value = dense<1> : tensor<2xi4>} on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{cannot export attribute 'value' of @a (oneflow.constant): its resource holds no data}}
  oneflow_actor.actor 0 @a "oneflow.constant"() -> () {value = dense_resource<__elided__> : tensor<2xi32>} on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{cannot export attribute 'value' of @a (oneflow.constant): its resource holds 4 bytes, not 8}}
  oneflow_actor.actor 0 @a "oneflow.constant"() -> () {value = dense_resource<short> : tensor<2xi32>} on "compute"
  oneflow_actor.stream "compute" [@a]
}

{-#
  dialect_resources: {
    builtin: {
      short: "0x0400000007000000"
    }
  }
#-}

// -----

// Transfer records are [peer, tag, begin x rank, size x rank]: 6 numbers for
// a 2-d tensor.
oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4x4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  // expected-error@+1 {{'sends' of @t has 5 values, not records of 6}}
  oneflow_actor.actor 1 @t "oneflow.transfer"(%a) -> () layout #oneflow_actor.transfer<group = [0, 1], sends = [1, 0, 0, 0, 4], recvs = []> on "collective"
  oneflow_actor.stream "compute" [@a]
  oneflow_actor.stream "collective" [@t]
}
