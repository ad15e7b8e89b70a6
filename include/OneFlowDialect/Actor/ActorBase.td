//===- ActorBase.td - oneflow_actor dialect and types ------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The `oneflow_actor` dialect: the plan the runtime executes, one rank plan
// per rank, made of regsts (register descriptors: the buffers an actor
// writes and its consumers read), actors (one per op) and each stream's
// execution order.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ACTOR_ACTORBASE_TD
#define ONEFLOWDIALECT_ACTOR_ACTORBASE_TD

include "OneFlowDialect/IR/OneFlowBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def OneFlowActor_Dialect : Dialect {
  let name = "oneflow_actor";
  let cppNamespace = "::mlir::oneflow::actor";
  let summary = "Actors, regsts and stream orders: the plan a runtime executes";
  let description = [{
    The actor level of OneFlow-MLIR, one step below the `oneflow` graph. A
    module holds one `oneflow_actor.rank_plan` per rank. A rank plan lists:

    * regsts (`oneflow_actor.regst`): register descriptors, each `count`
      buffers of one static tensor type, written by exactly one actor and
      read by any number; an optional `offset` places them in the rank's
      memory arena (from `oneflow-plan-memory`);
    * actors (`oneflow_actor.actor`): one per op of the program, naming the
      `oneflow` op it runs with that op's attributes, the stream it runs on,
      the regsts it reads (operand order) and writes (result order); the
      op's source location is the actor's location;
    * stream orders (`oneflow_actor.stream`): the fixed order in which a
      stream's thread runs its actors each step.

    An actor fires when each regst it reads holds a readable buffer and each
    regst it writes has a free one; back-pressure and pipelining come from
    regst counts alone. `of-translate --export-plan` writes a module of rank
    plans as the runtime's protobuf plan.

    ```mlir
    oneflow_actor.rank_plan rank 0 device cpu {
      %r0 = oneflow_actor.regst 0 count 1 : tensor<8x4xf32>
      oneflow_actor.actor 0 @input_0 "oneflow.input"() -> (%r0) {name = "x"} on "compute"
      %r1 = oneflow_actor.regst 1 count 1 : tensor<8x4xf32>
      oneflow_actor.actor 1 @relu_1 "oneflow.relu"(%r0) -> (%r1) on "compute"
      oneflow_actor.actor 2 @output_2 "oneflow.output"(%r1) -> () {name = "y"} on "compute"
      oneflow_actor.stream "compute" [@input_0, @relu_1, @output_2]
    }
    ```
  }];
  // Actors carry the attributes of `oneflow` ops (#oneflow.init, ...).
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    void registerTypes();
    void registerAttributes();
    void registerOps();
  }];
}

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

def OneFlowActor_RegstType : TypeDef<OneFlowActor_Dialect, "Regst"> {
  let mnemonic = "regst";
  let summary = "a handle to a register descriptor";
  let description = [{
    The value an `oneflow_actor.regst` defines and actors name among their
    inputs and outputs. The tensor type of its buffers is an attribute of
    the defining op, so that actors list regsts without repeating types.
  }];
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

def OneFlowActor_DeviceAttr
    : EnumAttr<OneFlowActor_Dialect, OneFlow_DeviceKind, "device"> {
  let summary = "the device kind a rank plan runs on: cpu or cuda";
  // The enum is the oneflow dialect's; the attribute is ours.
  let cppNamespace = "::mlir::oneflow::actor";
  let assemblyFormat = "$value";
}

#endif // ONEFLOWDIALECT_ACTOR_ACTORBASE_TD
