//===- Passes.td - OneFlow passes --------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every flag starts with `oneflow-` (test-only passes: `test-oneflow-`).
// Defs end in `Pass`; each lives in a file named without the suffix.
// Layout passes are in LayoutPasses.td, fusions in FusionPasses.td,
// training passes in TrainingPasses.td.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_PASSES_TD
#define ONEFLOWDIALECT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

def InferShapesPass : Pass<"oneflow-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine dynamic result dimensions from the ops' shape rules";
  let description = [{
    Walks a function in order and replaces every result dimension written
    as `?` by the size the op's shape inference gives, keeping the result's
    layout encoding. Reshapes with a single unknown dimension get it from
    the element count. The function's result types follow its returns.
    Inputs written with unknown dimensions, or programs whose shapes cannot
    be inferred, are reported at the op that fails.

    ```mlir
    %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<?x?xf32>
    // becomes
    %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    ```
  }];
}

include "OneFlowDialect/Transforms/LayoutPasses.td"
include "OneFlowDialect/Transforms/FusionPasses.td"
include "OneFlowDialect/Transforms/TrainingPasses.td"

//===----------------------------------------------------------------------===//
// Lowering to actors
//===----------------------------------------------------------------------===//

def LowerToActorGraphPass
    : Pass<"oneflow-lower-to-actor-graph", "::mlir::ModuleOp"> {
  let summary = "Lower each program to rank plans of actors";
  let description = [{
    Replaces every `func.func` of `oneflow` ops by `oneflow_actor.rank_plan`s
    (each rank's device kind from its placements; `device`, cpu or cuda,
    for ranks no placement names). A single-device program (no layouts) becomes the plan of
    rank 0: one actor per op, one regst per op result with the result's
    tensor type and `regst-count` buffers. A program on global tensors
    (after `oneflow-lower-boxing`) becomes one plan per rank from 0 to the
    highest rank of any placement: each op gets an actor on every rank of
    its placement, each regst the rank's local piece, and actors get the
    attributes the runtime needs (collective groups, transfer records,
    where sources' and sinks' pieces sit: docs/multi-rank-plans.md).
    Inputs run on the stream "io" (at least two buffers), collectives and
    transfers on "collective", everything else on "compute", each in
    program order. Each actor names its op, keeps the op's attributes and
    location, reads the regsts of the op's operands and writes those of its
    results. Actors are named `@<op>_<id>` and numbered per rank in program
    order; regsts are numbered in the order their producers come.

    A micro-batched program (docs/pipelines.md) folds its virtual ranks
    into firings: per-micro-batch ops `fires M`, accumulations `emits every
    M`, stream orders list one step's firings. A transfer between pipeline
    stages moves micro-batch 0's pieces between device ranks and repeats
    them in every micro-batch (an error otherwise), with tags of its own
    (4096 per transfer). With `oneflow.stages = S` on the function, a regst
    written per micro-batch on stage s has `min(M, S - s)` buffers (1F1B),
    or M when `oneflow.pipeline_schedule` is "gpipe".

    Programs take data through `oneflow.input` and give results through
    `oneflow.output`: a function with arguments or returned values is an
    error, as are ops of other dialects, results with unknown dimensions
    (run `oneflow-infer-shapes` first), ops mixing single-device and global
    tensors or tensors on different placements, and `oneflow.boxing` ops
    left unlowered.

    ```mlir
    func.func @f() {
      %x = oneflow.input "x" : tensor<8x4xf32>
      %y = oneflow.relu %x : (tensor<8x4xf32>) -> tensor<8x4xf32>
      oneflow.output "y", %y : tensor<8x4xf32>
      return
    }
    // becomes
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
  let options = [
    Option<"regstCount", "regst-count", "int64_t", /*default=*/"1",
           "Buffers per regst (at least 1); 2 lets consecutive steps overlap">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "The device (cpu or cuda) of ranks that no placement names: a "
           "program without layouts runs on one such device">
  ];
  let dependentDialects = ["::mlir::oneflow::actor::OneFlowActorDialect"];
}

//===----------------------------------------------------------------------===//
// Memory
//===----------------------------------------------------------------------===//

def PlanMemoryPass
    : Pass<"oneflow-plan-memory", "::mlir::oneflow::actor::RankPlanOp"> {
  let summary = "Place a rank's regsts in one arena, sharing memory by lifetime";
  let description = [{
    Gives every regst of a rank plan an `offset` in one memory arena of the
    rank, so that regsts that are never live at the same time share bytes,
    and records on the rank plan the arena's size (`arena`) and the bytes
    the regsts would take without reuse (`unplanned`).

    A regst's buffers take `count` times its tensor's bytes, each buffer
    rounded up to 64 bytes; offsets are multiples of 64. A regst is live
    from the position of its producer to that of its last consumer in their
    stream's order (a regst nobody reads: at its producer only); two regsts
    live at one position never overlap. A regst keeps memory of its own,
    live for the whole step, when:

    * its `count` is above 1 (its buffers rotate across steps);
    * `oneflow.variable` writes it (parameters persist across steps);
    * `oneflow.output` reads it (outputs are fetched after the step);
    * its producer and consumers do not all run on one stream (streams are
      not ordered with one another).

    The result of a `oneflow.reshape` or `oneflow.flatten` takes its
    operand's bytes (the kernel's copy then finds source and destination
    equal and skips itself) where the operand is read by that actor alone
    and both would be placed by lifetime in one stream: the operand then
    lives on to the result's last reader.

    Placement is greedy by size with best fit: regsts in decreasing size
    (then by first position, then id) go into the smallest gap between the
    already placed regsts whose lifetimes overlap theirs, or after the last.

    ```mlir
    oneflow_actor.rank_plan rank 0 device cpu {
      %r0 = oneflow_actor.regst 0 count 1 : tensor<8x4xf32>
      ...
    }
    // becomes
    oneflow_actor.rank_plan rank 0 device cpu arena 256 unplanned 384 {
      %r0 = oneflow_actor.regst 0 count 1 offset 0 : tensor<8x4xf32>
      ...
    }
    ```
  }];
}

#endif // ONEFLOWDIALECT_TRANSFORMS_PASSES_TD
