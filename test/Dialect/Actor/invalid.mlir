// RUN: of-opt %s -split-input-file -verify-diagnostics

//===----------------------------------------------------------------------===//
// rank_plan
//===----------------------------------------------------------------------===//

// expected-error@+1 {{'oneflow_actor.rank_plan' op rank -1 is negative}}
oneflow_actor.rank_plan rank -1 device cpu {
}

// -----

// expected-error@+1 {{'oneflow_actor.rank_plan' op arena size -64 is negative}}
oneflow_actor.rank_plan rank 0 device cpu arena -64 {
}

// -----

// expected-error@+1 {{'oneflow_actor.rank_plan' op unplanned size -64 is negative}}
oneflow_actor.rank_plan rank 0 device cpu unplanned -64 {
}

// -----

// expected-error@+1 {{unknown device kind 'tpu'}}
oneflow_actor.rank_plan rank 0 device tpu {
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow.fill' op cannot be in a rank plan, which holds only regsts, actors and streams}}
  %0 = oneflow.fill 0.0 : tensor<4xf32>
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+1 {{'oneflow_actor.regst' op id 0 is already the id of another regst}}
  %b = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a, %b) on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  // expected-error@+1 {{'oneflow_actor.actor' op id 0 is already the id of another actor}}
  oneflow_actor.actor 0 @b "test.b"(%a) -> () on "compute"
  oneflow_actor.stream "compute" [@a, @b]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"() -> (%a) on "compute"
  // expected-error@+1 {{'oneflow_actor.actor' op writes regst 0, which actor @a already writes}}
  oneflow_actor.actor 1 @b "test.b"() -> (%a) on "compute"
  oneflow_actor.stream "compute" [@a, @b]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op regst 0 is written by no actor}}
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  oneflow_actor.actor 0 @a "test.a"(%a) -> () on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute"
  oneflow_actor.stream "compute" [@a]
  // expected-error@+1 {{'oneflow_actor.stream' op orders stream "compute", which another stream op already orders}}
  oneflow_actor.stream "compute" []
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute"
  // expected-error@+1 {{'oneflow_actor.stream' op lists @b, which is not an actor of the plan}}
  oneflow_actor.stream "compute" [@a, @b]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute"
  // expected-error@+1 {{'oneflow_actor.stream' op lists @a, which runs on stream "compute"}}
  oneflow_actor.stream "copy" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute"
  // expected-error@+1 {{'oneflow_actor.stream' op lists @a more often than the 1 times it fires per step}}
  oneflow_actor.stream "compute" [@a, @a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.actor' op fires 2 times per step but stream "compute" lists it 1 times}}
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute" fires 2
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.actor' op emits every 3 firings, which does not divide its 4 firings per step}}
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute" fires 4 emits every 3
  oneflow_actor.stream "compute" [@a, @a, @a, @a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute"
  // expected-error@+1 {{'oneflow_actor.actor' op is in no order of stream "copy"}}
  oneflow_actor.actor 1 @b "test.b"() -> () on "copy"
  oneflow_actor.stream "compute" [@a]
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-note@+1 {{see existing symbol definition here}}
  oneflow_actor.actor 0 @a "test.a"() -> () on "compute"
  // expected-error@+1 {{redefinition of symbol named 'a'}}
  oneflow_actor.actor 1 @a "test.b"() -> () on "compute"
  oneflow_actor.stream "compute" [@a]
}

// -----

//===----------------------------------------------------------------------===//
// regst
//===----------------------------------------------------------------------===//

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op id -2 is negative}}
  %a = oneflow_actor.regst -2 count 1 : tensor<4xf32>
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op count 0 of regst 3 is not at least 1}}
  %a = oneflow_actor.regst 3 count 0 : tensor<4xf32>
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op offset -128 of regst 3 is negative}}
  %a = oneflow_actor.regst 3 count 1 offset -128 : tensor<4xf32>
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op type 'tensor<?x4xf32>' of regst 3 has unknown dimensions}}
  %a = oneflow_actor.regst 3 count 1 : tensor<?x4xf32>
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.regst' op type 'tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>' of regst 3 has an encoding; regsts hold physical tensors}}
  %a = oneflow_actor.regst 3 count 1 : tensor<4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1]>, [S(0)]>>
}

// -----

//===----------------------------------------------------------------------===//
// actor
//===----------------------------------------------------------------------===//

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.actor' op id -1 is negative}}
  oneflow_actor.actor -1 @a "test.a"() -> () on "compute"
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.actor' op @a names no op}}
  oneflow_actor.actor 0 @a ""() -> () on "compute"
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.actor' op @a runs on no stream}}
  oneflow_actor.actor 0 @a "test.a"() -> () on ""
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+1 {{'oneflow_actor.actor' op @a writes regst 0 twice}}
  oneflow_actor.actor 0 @a "test.a"() -> (%a, %a) on "compute"
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+1 {{'oneflow_actor.actor' op @a reads regst 0, which it writes}}
  oneflow_actor.actor 0 @a "test.a"(%a) -> (%a) on "compute"
}

// -----

//===----------------------------------------------------------------------===//
// stream
//===----------------------------------------------------------------------===//

oneflow_actor.rank_plan rank 0 device cpu {
  // expected-error@+1 {{'oneflow_actor.stream' op needs a non-empty name}}
  oneflow_actor.stream "" []
}

// -----

// expected-error@+1 {{'oneflow_actor.regst' op expects parent op 'oneflow_actor.rank_plan'}}
%a = oneflow_actor.regst 0 count 1 : tensor<4xf32>

// -----

//===----------------------------------------------------------------------===//
// layouts
//===----------------------------------------------------------------------===//

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+1 {{piece begins at 1 coordinates in a tensor of rank 2}}
  oneflow_actor.actor 0 @a "test.a"() -> (%a) layout #oneflow_actor.piece<logical_shape = [8, 4], begin = [4]> on "compute"
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+1 {{piece moves by a micro stride of rank 1 in a tensor of rank 2}}
  oneflow_actor.actor 0 @a "test.a"() -> (%a) layout #oneflow_actor.piece<logical_shape = [8, 4], begin = [4, 0], micro_stride = [4]> on "compute"
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+1 {{'oneflow_actor.actor' op attribute 'layout' failed to satisfy constraint}}
  oneflow_actor.actor 0 @a "test.a"() -> (%a) layout #oneflow.sbp<B> on "compute"
}

// -----

oneflow_actor.rank_plan rank 0 device cpu {
  %a = oneflow_actor.regst 0 count 1 : tensor<4xf32>
  // expected-error@+2 {{expected one of [sum, max, min] for how the pieces of a partial tensor combine, got: mean}}
  // expected-error@+1 {{failed to parse OneFlowActor_CollectiveLayout parameter 'reduction'}}
  oneflow_actor.actor 0 @a "test.a"() -> (%a) layout #oneflow_actor.collective<group = [0, 1], reduction = mean> on "compute"
}
