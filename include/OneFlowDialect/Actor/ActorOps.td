//===- ActorOps.td - Rank plans, regsts, actors, streams ---*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ACTOR_ACTOROPS_TD
#define ONEFLOWDIALECT_ACTOR_ACTOROPS_TD

include "OneFlowDialect/Actor/ActorBase.td"
include "OneFlowDialect/Actor/ActorLayouts.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/IR/CommonTypeConstraints.td"

class OneFlowActor_Op<string mnemonic, list<Trait> traits = []>
    : Op<OneFlowActor_Dialect, mnemonic, traits>;

//===----------------------------------------------------------------------===//
// RankPlanOp
//===----------------------------------------------------------------------===//

def OneFlowActor_RankPlanOp : OneFlowActor_Op<"rank_plan", [
    IsolatedFromAbove, SymbolTable, SingleBlock, NoTerminator,
    NoRegionArguments]> {
  let summary = "what one rank runs: its regsts, actors and stream orders";
  let description = [{
    The body holds only `oneflow_actor.regst`, `oneflow_actor.actor` and
    `oneflow_actor.stream` ops. Actors are symbols of the rank plan; stream
    orders name them. The order of ops in the body carries no meaning:
    regsts are conventionally written just before the actor that produces
    them, and the streams say what runs when.

    `arena` and `unplanned`, set by `oneflow-plan-memory`, are the bytes of
    the rank's memory arena and the bytes its regsts would take without
    reuse. A module holds one rank plan per rank (several ranks: later
    lowerings; collectives are actors on a "collective" stream).

    The verifier checks, within the body: regst ids and actor ids are
    unique; every regst is produced by exactly one actor; stream names are
    unique; every stream order names actors of this rank plan that run on
    that stream, and lists every actor exactly once.

    ```mlir
    oneflow_actor.rank_plan rank 0 device cpu arena 256 unplanned 384 {
      ...
    }
    ```
  }];
  let arguments = (ins I64Attr:$rank,
                       OneFlowActor_DeviceAttr:$device,
                       OptionalAttr<I64Attr>:$arena_bytes,
                       OptionalAttr<I64Attr>:$unplanned_bytes);
  let regions = (region SizedRegion<1>:$bodyRegion);
  let assemblyFormat = [{
    `rank` $rank `device` custom<Device>($device) (`arena` $arena_bytes^)?
    (`unplanned` $unplanned_bytes^)? attr-dict-with-keyword $bodyRegion
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    /// A rank plan with an empty body block.
    OpBuilder<(ins "int64_t":$rank, "::mlir::oneflow::DeviceKind":$device)>
  ];
  let extraClassDeclaration = [{
    /// The regsts, actors and stream orders of the body, in body order.
    /// (Explicit sizes: the op classes are incomplete here.)
    ::llvm::SmallVector<RegstOp, 8> getRegsts();
    ::llvm::SmallVector<ActorOp, 8> getActors();
    ::llvm::SmallVector<StreamOp, 1> getStreams();
  }];
}

//===----------------------------------------------------------------------===//
// RegstOp
//===----------------------------------------------------------------------===//

def OneFlowActor_RegstOp : OneFlowActor_Op<"regst", [
    HasParent<"RankPlanOp">,
    DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let summary = "a register descriptor: `count` buffers of one tensor type";
  let description = [{
    `id` is unique within the rank plan. The tensor type is the physical
    type of one buffer: static shape, no encoding. `count` (at least 1)
    buffers rotate: an actor may write buffer i + 1 while consumers still
    read buffer i, so that steps overlap. `offset`, when present, is where
    the buffers start in the rank's memory arena: buffer i starts at
    `offset + i * size` (size rounded up to the arena's alignment).

    ```mlir
    %r3 = oneflow_actor.regst 3 count 2 offset 128 : tensor<8x4xf32>
    ```
  }];
  let arguments = (ins I64Attr:$id,
                       TypeAttrOf<RankedTensorOf<[AnyFloat, AnySignlessInteger, UI8, UI16, UI32, UI64]>>:$tensor_type,
                       I64Attr:$count,
                       OptionalAttr<I64Attr>:$offset);
  let results = (outs OneFlowActor_RegstType:$result);
  let assemblyFormat = [{
    $id `count` $count (`offset` $offset^)? attr-dict `:` $tensor_type
  }];
  let hasVerifier = 1;
  let builders = [
    /// An unplanned regst (no offset).
    OpBuilder<(ins "int64_t":$id, "::mlir::RankedTensorType":$tensorType,
                   "int64_t":$count), [{
      build($_builder, $_state, RegstType::get($_builder.getContext()),
            $_builder.getI64IntegerAttr(id), ::mlir::TypeAttr::get(tensorType),
            $_builder.getI64IntegerAttr(count), /*offset=*/nullptr);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The tensor type of one buffer.
    ::mlir::RankedTensorType getBufferType() {
      return ::llvm::cast<::mlir::RankedTensorType>(getTensorType());
    }
    /// The actor that lists this regst among its outputs (null if none).
    ActorOp getProducer();
    /// The actors that list this regst among their inputs, each once, in
    /// body order.
    ::llvm::SmallVector<ActorOp> getConsumers();
  }];
}

//===----------------------------------------------------------------------===//
// ActorOp
//===----------------------------------------------------------------------===//

def OneFlowActor_ActorOp : OneFlowActor_Op<"actor", [
    HasParent<"RankPlanOp">, Symbol, AttrSizedOperandSegments]> {
  let summary = "an actor: runs one op on one stream, regsts in and out";
  let description = [{
    Runs the `oneflow` op named by `op_name` (e.g. "oneflow.matmul") with
    the op's attributes (the dictionary after the regsts) on the stream
    after `on`. It reads the regsts in `inputs` (in operand order) and
    writes those in `outputs` (in result order). `id` is unique within the rank
    plan, the symbol name is the actor's name in messages and traces, and
    the op's source location is the actor's location. Attributes that are
    not the op's go after `attributes`.

    An actor whose work depends on where its rank's pieces sit in the
    logical tensors carries a typed `layout` (ActorLayouts.td): what the
    op's RankLoweringInterface returned for the rank.

    With micro-batches an actor `fires` n times per step (once per
    micro-batch; once per step without the clause), and an accumulation
    `emits every` n firings: its output is the sum of n inputs. A consumer
    reads each value of a regst as many times as it fires per value.

    The verifier checks that the actor writes each output regst once and
    does not read a regst it writes.

    ```mlir
    oneflow_actor.actor 2 @matmul_2 "oneflow.matmul"(%r0, %r1) -> (%r2) {transpose_b} on "compute"
    oneflow_actor.actor 3 @reduce_mean_3 "oneflow.reduce_mean"(%r2) -> (%r3) {axes = array<i64: 0>} layout #oneflow_actor.divisor<divisor = 8> on "compute"
    oneflow_actor.actor 7 @accumulate_7 "oneflow.accumulate"(%r6) -> (%r7) on "compute" fires 4 emits every 4
    ```
  }];
  let arguments = (ins I64Attr:$id,
                       SymbolNameAttr:$sym_name,
                       StrAttr:$op_name,
                       StrAttr:$stream,
                       Variadic<OneFlowActor_RegstType>:$inputs,
                       Variadic<OneFlowActor_RegstType>:$outputs,
                       OptionalAttr<DictionaryAttr>:$op_attrs,
                       OptionalAttr<OneFlowActor_AnyLayout>:$layout,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$firings_per_step,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<2>]>>:$firings_per_output);
  let assemblyFormat = [{
    $id $sym_name $op_name `(` $inputs `)` `->` `(` $outputs `)`
    ($op_attrs^)? (`layout` $layout^)? `on` $stream (`fires` $firings_per_step^)?
    (`emits` `every` $firings_per_output^)? attr-dict-with-keyword
  }];
  let extraClassDeclaration = [{
    /// Firings per step (1 without micro-batches).
    int64_t getFirings() { return getFiringsPerStep().value_or(1); }
    /// Firings per output value (1 but for accumulations).
    int64_t getFiringsPerValue() { return getFiringsPerOutput().value_or(1); }
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// StreamOp
//===----------------------------------------------------------------------===//

def OneFlowActor_StreamOp : OneFlowActor_Op<"stream", [
    HasParent<"RankPlanOp">]> {
  let summary = "the order in which one stream runs its actors each step";
  let description = [{
    One thread runs the stream's actors in this order every step. Names are
    unique within a rank plan; the usual ones are "compute", "collective"
    and "copy". The order is one step's firings: an actor that fires n
    times per step is listed n times.

    ```mlir
    oneflow_actor.stream "compute" [@input_0, @relu_1, @output_2]
    ```
  }];
  let arguments = (ins StrAttr:$name, FlatSymbolRefArrayAttr:$actors);
  let assemblyFormat = "$name $actors attr-dict";
  let hasVerifier = 1;
}

#endif // ONEFLOWDIALECT_ACTOR_ACTOROPS_TD
