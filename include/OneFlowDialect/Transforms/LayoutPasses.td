//===- LayoutPasses.td - Layouts, strategies, boxing ---*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The passes that decide and realize layouts: SBP propagation, strategies
// and pipeline stages, boxing and its lowering, sums over micro-batches.
// Included by Passes.td; the fusions of the laid-out step are in
// FusionPasses.td.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_LAYOUTPASSES_TD
#define ONEFLOWDIALECT_TRANSFORMS_LAYOUTPASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// SBP
//===----------------------------------------------------------------------===//

def SbpPropagationPass
    : Pass<"oneflow-sbp-propagation", "::mlir::func::FuncOp"> {
  let summary = "Give every tensor a placement and nd-SBP, the cheapest per op";
  let description = [{
    In a function that states a layout (`#oneflow.global`) on any tensor,
    gives every tensor one. Ops are visited in program order:

    * a source without a stated layout is placed on the function's first
      placement: `oneflow.input` is split on axis 0 (`S(0)`) over every
      mesh axis whose remaining batch still gives each device a row, `B`
      elsewhere (OneFlow's data sources); variables, constants and fills
      are `B`;
    * `oneflow.output` keeps its operand's layout, except that a partial
      scalar (a loss) is made `B`: every rank holds the value;
    * any other op runs on its first stated result's placement, else on
      its first operand's. Its candidates are the Cartesian product over
      the mesh axes of its 1-D signatures plus all-`B`, kept when they give
      the stated result layouts and leave no device an empty piece. As in
      OneFlow, the first candidate whose operands all arrive in the layout
      it needs wins; otherwise the cheapest by the cost model (boxing of
      each operand along `planBoxing`'s route, plus compute divided over
      the devices sharing it); on ties, the candidate that boxes the fewest
      variables (a parameter keeps its stated layout, so tensor-parallel
      weights stay split and activations move), then the earlier one. As
      OneFlow penalizes partial inputs, an operand the candidate needs `P`
      on a mesh axis where it is not also costs an all-reduce of it on that
      axis: the partial sum it starts must be reduced later.

    Each result type gets its layout as encoding, and each op with operands
    records what the chosen signature needs of them in
    `oneflow.operand_layouts` (one `#oneflow.global` per operand), which
    `oneflow-insert-boxing` consumes. An op that already carries
    `oneflow.operand_layouts` and has every result laid out keeps its
    signature as stated (a signature pinned by hand). A function that
    states no layout is left alone. `cluster` names a JSON cluster description (see
    `ClusterDesc`); without it, this machine's measured defaults are used.

    ```mlir
    %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#cpu2, [S(0)]>>
    %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x6xf32>
    %y = oneflow.matmul %x, %w : (...) -> tensor<8x6xf32>
    // becomes: %w is [B] on #cpu2, %y is [S(0)] with
    //   {oneflow.operand_layouts = [#oneflow.global<#cpu2, [S(0)]>,
    //                               #oneflow.global<#cpu2, [B]>]}
    ```
  }];
  let options = [
    Option<"cluster", "cluster", "std::string", /*default=*/"\"\"",
           "JSON file describing the cluster, or builtin:inproc, builtin:gloo "
           "or builtin:nccl (default: builtin:inproc)">
  ];
}

def ReportBoxingCostPass
    : Pass<"oneflow-report-boxing-cost", "::mlir::ModuleOp"> {
  let summary = "Print what the cost model predicts for each boxing";
  let description = [{
    Prints to stdout one row per `oneflow.boxing` op (left by
    `oneflow-insert-boxing`) and per lowered step (`oneflow.all_reduce`,
    `reduce_scatter`, `all_gather`, `all_to_all`, `local_slice`,
    `to_partial`, `transfer`): its location, its layouts from -> to, the
    route of steps, the bytes the busiest rank moves and the predicted
    microseconds, then the totals. The IR is not changed. `cluster` is as
    for `oneflow-sbp-propagation`.

    ```
    location            from -> to           route                    bytes/rank  us
    mlp.mlir:12:8       [P] -> [B] on cpu4   all_reduce@0             6144        52.1
    total: 1 boxing, 6144 bytes/rank, 52.1 us
    ```
  }];
  let options = [
    Option<"cluster", "cluster", "std::string", /*default=*/"\"\"",
           "JSON file describing the cluster, or builtin:inproc, builtin:gloo "
           "or builtin:nccl (default: builtin:inproc)">
  ];
}

def ReportStrategyCostPass
    : Pass<"oneflow-report-strategy-cost", "::mlir::func::FuncOp"> {
  let summary = "Print what the cost model predicts for a laid-out step";
  let description = [{
    For a program whose ops all have layouts (after
    `oneflow-sbp-propagation`, before `oneflow-insert-boxing`), prints to
    stdout the predicted step time under the model of
    `oneflow-auto-parallel` (compute, communication, bytes per device),
    then per op its signature, compute, the boxing of its operands, the
    bytes of its results and the best other signature with every other op
    as it is. This is how hand strategies (`oneflow-apply-strategy`) are
    compared with a searched one under the same model. The IR is not
    changed.

    ```
    oneflow-report-strategy-cost: @mlp on [4]
      strategy                      step us   compute us      comm us   bytes/device
      given                            82.4         40.1         42.3         237728
      per op (...)
    ```

    Errors: a value without a layout (run propagation first), layouts on
    more than one placement, an op without an SBP or cost rule.
  }];
  let options = [
    Option<"cluster", "cluster", "std::string", /*default=*/"\"\"",
           "JSON file describing the cluster, or builtin:inproc, builtin:gloo "
           "or builtin:nccl (default: builtin:inproc)">,
    Option<"perOp", "per-op", "bool", /*default=*/"true",
           "Print the per-op lines after the totals">
  ];
}

def AssignStagesPass : Pass<"oneflow-assign-stages", "::mlir::func::FuncOp"> {
  let summary = "Cut a one-device program into pipeline stages";
  let description = [{
    Marks every op with `oneflow.stage`, the pipeline stage it runs in
    (docs/pipelines.md), for `oneflow-apply-strategy{stages=S}`. Run it on
    the forward program, before `oneflow-autodiff`, which gives each op's
    gradient ops its stage. The ops that compute are cut, in program
    order, into `stages` contiguous runs of about equal predicted compute
    time on one device for the forward and the backward pass (the cost
    model's `CostInterface` figures of the op and of the gradient ops
    `oneflow-autodiff` would build for it from the output `loss`, found by
    differentiating a copy of the function; the op alone when there is no
    such output; each op counts the same when none has a cost): an op goes
    to the stage in which the midpoint of its cost falls. Layers are not recognized as such;
    cuts fall between ops. Ops made of variables and constants alone (a
    weight's cast to bf16) then move, unless marked by hand, to the
    earliest stage that reads them, so that the weight crosses a cut
    rather than its bf16 copy (and its gradient is summed over
    micro-batches in f32). Sources take the earliest stage that reads
    them, outputs their operand's. When some ops are marked already (a
    cut written by hand), nothing is cut: the marks are checked and every
    unmarked op takes the latest stage of its operands. A strategy file
    (`strategy`) with `"stages": [{"match": "h1.*", "stage": 1}, ...]`
    marks the variables whose names match (first rule wins), which then
    carry the ops that read them, and what follows, to their stage: a cut
    by layers.

    Errors: `stages` below 1, a mark or a rule's stage outside
    [0, stages), a malformed `stages` key, and a program whose cut would
    leave a stage without an op.

    ```mlir
    %h = oneflow.matmul %x, %w1 : ...     // {oneflow.stage = 0}
    %y = oneflow.matmul %h, %w2 : ...     // {oneflow.stage = 1}
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"2",
           "Number of pipeline stages">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"\"",
           "A strategy file whose \"stages\" rules put variables (and the "
           "ops that read them) on stages">,
    Option<"loss", "loss", "std::string", /*default=*/"\"loss\"",
           "The output the backward pass differentiates: each op is "
           "weighed with its gradient ops' cost (forward only when the "
           "program has no such output)">
  ];
}

def ApplyStrategyPass
    : Pass<"oneflow-apply-strategy", "::mlir::func::FuncOp"> {
  let summary = "Lay out the inputs and variables of a one-device program";
  let description = [{
    Makes a program written for one device a program for `devices` ranks
    (0 .. devices - 1) of kind `device` (cpu or cuda): every `oneflow.input` and `oneflow.variable`
    gets a `#oneflow.global` layout on one placement and everything else is
    left to `oneflow-sbp-propagation` (layouts already on other values, and
    `oneflow.operand_layouts`, are cleared). Optimizer states (the state
    operands of `oneflow.sgd_update` / `oneflow.adam_update`) always take
    their parameter's layout. `strategy` is one of

    * `dp`: mesh [devices]; inputs `S(0)`, variables `B` (data parallel);
    * `tp`: mesh [devices]; inputs `B`; Megatron-style tensor parallelism
      derived from the graph: in program order, a `matmul` whose weight
      (`b`) is a variable is column-parallel (weight split on its output
      features, the bias `add`ed to its result `S(0)`) unless its input
      depends on an earlier column-parallel result not yet closed, in which
      case it is row-parallel (weight split on its input features, bias
      `B`) and closes it, so one all-reduce per pair remains; a `gather`'s
      table is split by rows; other variables, and splits that would leave
      a device an empty piece, are `B`;
    * `hybrid`: mesh [2, devices / 2], `dp` on axis 0 and `tp` on axis 1;
    * `zero`: `dp`, but every variable whose dimension 0 divides by
      `devices` is `S(0)` (ZeRO-3 / FSDP through SBP): an `oneflow.boxing`
      to `B` is placed after it for every reader but its update op, so the
      forward pass all-gathers it, its gradient is reduce-scattered into
      the update and its optimizer states are sharded with it;
    * otherwise the path of a JSON strategy file:
      `{"mesh": [2, 2], "inputs": [{"match": "images", "sbp": ["S(0)", "B"] } ],
      "variables": [{"match": "fc*.weight", "sbp": ["B", "S(1)"] } ],
      "default_input": ["S(0)", "B"], "default_variable": ["B", "B"] }`:
      the first rule whose `match` (a name, `*` matching any text) names
      the tensor gives its nd-SBP (one `B`, `S(i)` per mesh axis), else
      the default (`S(0)` / `B` on every mesh axis when not given).

    With `micro-batches` M > 1 each step runs as M micro-batches
    (gradient accumulation, docs/pipelines.md): the mesh gets a leading
    axis of size M that is time, not devices. Inputs are `S(0)` on it
    (micro-batch m reads rows [m B / M, (m + 1) B / M) of the batch),
    every variable `B`; the placement lists M x devices virtual ranks
    (micro-batch m of rank r is m * devices + r) and the function gets
    `oneflow.micro_batches = M`. With one device the mesh is [M] alone.
    Propagation then makes gradients and the loss partial over the
    micro-batches, and the all-reduces over that axis become
    `oneflow.accumulate` (oneflow-accumulate-micro-batches).

    With `stages` S > 1 the devices are cut into S pipeline stages of
    devices / S ranks each (stage s has ranks s * devices / S onwards, and
    with micro-batches their virtual ranks): the strategy lays out each
    stage's devices, every op goes on the placement of its `oneflow.stage`
    (recorded as `oneflow.placement` for `oneflow-sbp-propagation`) and
    values used in a later stage move there with `oneflow.transfer`. The
    function gets `oneflow.stages = S` and `oneflow.pipeline_schedule`
    (`pipeline-schedule`), which the actor lowering turns into regst
    counts. Ops
    without a stage: an optimizer update takes its parameter's, a source
    the earliest of its readers', any other op the latest of its
    operands'.

    Errors: an unknown strategy or unreadable file, a malformed file (named
    with the key at fault), `devices` that do not fit the mesh, a split
    that does not fit a tensor's shape, an input whose batch does not
    divide into the micro-batches, `devices` that do not divide into the
    stages, a stage mark outside [0, stages), and a program that has
    layout changes (`oneflow.boxing`) already.

    ```mlir
    %x = oneflow.input "x" : tensor<8x4xf32>
    // becomes, with strategy=dp devices=2:
    %x = oneflow.input "x"
        : tensor<8x4xf32, #oneflow.global<#oneflow.placement<cpu, ranks = [0, 1], mesh = [2]>, [S(0)]>>
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"dp\"",
           "dp, tp, hybrid, zero or the path of a JSON strategy file">,
    Option<"devices", "devices", "int64_t", /*default=*/"1",
           "Number of ranks (the product of the mesh)">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "The ranks' device kind: cpu or cuda">,
    Option<"microBatches", "micro-batches", "int64_t", /*default=*/"1",
           "Micro-batches per step (gradient accumulation); 1: none">,
    Option<"stages", "stages", "int64_t", /*default=*/"1",
           "Pipeline stages, each on devices / stages ranks; ops say "
           "theirs with oneflow.stage (oneflow-assign-stages)">,
    Option<"schedule", "pipeline-schedule", "std::string",
           /*default=*/"\"1f1b\"",
           "With stages: 1f1b (regst counts that keep about as many "
           "micro-batches alive per stage as stages follow it) or gpipe "
           "(every micro-batch)">
  ];
}

def AutoParallelPass
    : Pass<"oneflow-auto-parallel", "::mlir::func::FuncOp"> {
  let summary = "Search the SBP layouts of a training step (AutoDDL)";
  let description = [{
    Lays out a program written for one device (typically the training step
    after `oneflow-autodiff` and `oneflow-optimizer`: forward, backward and
    updates) on `devices` ranks by searching, for every op, the nd-SBP
    signature (for every input and variable, the nd-SBP) that minimizes the
    predicted step time under the memory limit, as in AutoDDL (Chen et al.,
    IEEE TPDS 2024). The model is that of `oneflow-sbp-propagation` and
    `oneflow-report-boxing-cost` (docs/auto-parallel.md): roofline compute
    of each op over the devices that share its work, the alpha-beta cost of
    every boxing an operand needs, and memory per device (variables and
    optimizer states, plus the peak of the values live at once in program
    order).

    The search (`search=cd`) is coordinate descent in the manner of
    AutoDDL. Seeds: the hand strategies (dp, tp, zero on a 1-D mesh; dp,
    tp, zero, hybrid and its transpose on a 2-D one), each completed op by
    op with the cheapest signature given its operands, and everything
    replicated. Moves, swept until none gains: one unit (an op, an
    optimizer update with the variables it writes in place) to its best
    signature given the rest; a group of identical units of repeated
    layers at once; a forest of units solved exactly by min-sum dynamic
    programming; and windows of `window-units` neighbouring units solved
    exactly as an integer program (GLPK) with the rest fixed, on the best
    seed (every seed, and windows of at least 32, on graphs of up to 300
    ops), a window's solution also tried in every layer at once.
    `search=exact` solves the whole problem as one integer program (GLPK;
    small graphs). Deterministic.

    `mesh` (for example `2,2`) fixes the mesh; without it every mesh of one
    or two axes whose product is `devices` is searched and the best kept:
    the 1-D mesh first, then the others on the context's threads, each
    skipped when its lower bound (every op at its cheapest, each operand
    boxed from its producer's cheapest layout) cannot beat the 1-D mesh.
    The seeds of a mesh also descend on threads; the result does not
    depend on the threads.
    Layouts the program states stay as they are (their placement must be
    the search's). Each op gets its result layouts and
    `oneflow.operand_layouts`, which `oneflow-sbp-propagation` keeps and
    `oneflow-insert-boxing` realizes. With `explain`, prints to stdout the
    chosen strategy next to the hand strategies under the same model, then
    per op its layout, compute, communication, memory and the best other
    signature with what it would cost.

    Errors: a memory limit below what any strategy needs (the smallest
    possible memory per device is named), an op without an SBP or cost
    rule, a program with layout changes, micro-batches or pipeline stages
    already, a stated layout on another placement.
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"devices", "devices", "int64_t", /*default=*/"1",
           "Number of ranks (the product of the mesh)">,
    ListOption<"mesh", "mesh", "int64_t",
               "Mesh axes; empty: search every mesh of 1 or 2 axes">,
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "The ranks' device kind: cpu or cuda">,
    Option<"cluster", "cluster", "std::string", /*default=*/"\"\"",
           "JSON file describing the cluster, or builtin:inproc, builtin:gloo "
           "or builtin:nccl (default: the devices' library, builtin:inproc "
           "on cpu, builtin:nccl on cuda)">,
    Option<"memoryLimitBytes", "memory-limit-bytes", "int64_t",
           /*default=*/"0", "Bytes per device a strategy may use; 0: no limit">,
    Option<"search", "search", "std::string", /*default=*/"\"cd\"",
           "cd (coordinate descent) or exact (integer program, small graphs)">,
    Option<"groupLayers", "group-layers", "bool", /*default=*/"true",
           "Move the ops of identical layers together as well as alone">,
    Option<"windowUnits", "window-units", "unsigned", /*default=*/"12",
           "Coordinate descent: ops per window solved together exactly "
           "(an update counts with its variables; at least 32 on graphs of "
           "up to 300 ops); below 2, none">,
    Option<"explain", "explain", "bool", /*default=*/"false",
           "Print the strategy, its cost and the alternatives to stdout">
  ];
}

//===----------------------------------------------------------------------===//
// Boxing
//===----------------------------------------------------------------------===//

def ExpandSplitSoftmaxPass
    : Pass<"oneflow-expand-split-softmax", "::mlir::func::FuncOp"> {
  let summary = "Expand softmax, log_softmax and sparse_softmax_cross_entropy "
                "over a split class axis into max and sum reductions "
                "(Megatron's vocabulary-parallel cross-entropy)";
  let description = [{
    After `oneflow-sbp-propagation` (or `oneflow-auto-parallel`), an op of
    the softmax family whose layout splits the normalized axis on some mesh
    axes (logits from a column-parallel LM head) has no kernel that could
    run it per piece. It is replaced by `reduce_max` (a `P(max)` result),
    `sub`, `exp`, `reduce_sum` (a `P` result) and `div` (or `log` and `sub`),
    whose operand layouts make `oneflow-insert-boxing` add one all-reduce
    max and one all-reduce sum of a row per sample; a cross-entropy's loss
    is `log(sum) - z[label]`, the label's entry picked by `gather_elements`
    from the piece that holds it, a partial sum. Ops whose normalized axis
    is whole are left alone. An op whose loss layout does not fit is an
    error at the op.

    ```mlir
    %p, %l = oneflow.sparse_softmax_cross_entropy %logits, %labels
        : (tensor<8x16xf32, #oneflow.global<#cpu4, [S(1)]>>, ...)
        -> (tensor<8x16xf32, #oneflow.global<#cpu4, [S(1)]>>,
            tensor<8xf32, #oneflow.global<#cpu4, [P]>>)
    // becomes reduce_max -> [P(max)], sub, exp, reduce_sum -> [P], div;
    // reshape, gather_elements -> [P], log, sub, reshape
    ```
  }];
}

def InsertBoxingPass : Pass<"oneflow-insert-boxing", "::mlir::func::FuncOp"> {
  let summary = "Insert oneflow.boxing where an operand's layout differs from "
                "the one its consumer needs";
  let description = [{
    Consumes the discardable attribute `oneflow.operand_layouts` (an array
    with one `#oneflow.global` per operand, set by `oneflow-sbp-propagation`)
    of every op that has it: each operand whose type's encoding differs from
    its entry is replaced by an `oneflow.boxing` to that layout, inserted
    before the op; one boxing per value and layout is reused by every
    consumer it dominates. The attribute is then removed. An attribute that
    is not such an array, has the wrong length or names a layout the
    operand cannot have is an error at the op, as is an operand without a
    layout that needs one.

    ```mlir
    %y = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#cpu2, [S(0)]>]}
        : (tensor<8x4xf32, #oneflow.global<#cpu2, [B]>>) -> tensor<8x4xf32, ...>
    // becomes
    %b = oneflow.boxing %x : tensor<8x4xf32, #oneflow.global<#cpu2, [B]>>
                          -> tensor<8x4xf32, #oneflow.global<#cpu2, [S(0)]>>
    %y = oneflow.relu %b : (tensor<8x4xf32, #oneflow.global<#cpu2, [S(0)]>>) -> ...
    ```
  }];
}

def LowerBoxingPass : Pass<"oneflow-lower-boxing", "::mlir::func::FuncOp"> {
  let summary = "Replace each oneflow.boxing by its route of collectives, "
                "slices and transfers";
  let description = [{
    Replaces every `oneflow.boxing` by the chain of step ops `planBoxing`
    (include/OneFlowDialect/Analysis/BoxingRoute.h) gives, typed with the
    route's intermediate layouts: `oneflow.all_reduce`, `reduce_scatter`,
    `all_gather`, `all_to_all`, `local_slice`, `to_partial` (each with its
    `mesh_axis`) and `oneflow.transfer`. A boxing between equal layouts
    disappears. In a micro-batched program, a value partial over the
    micro-batches that moves to another placement is first summed on its
    own (an `all_reduce` over mesh axis 0, which becomes an accumulation).
    A boxing with no route (a layout that leaves some rank an
    empty piece, a dynamic shape) is an error at the boxing naming both
    layouts; the pass then fails without rewriting it.

    ```mlir
    %y = oneflow.boxing %x : tensor<8x8xf32, #oneflow.global<#cpu2x2, [P, S(0)]>>
                          -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, B]>>
    // becomes
    %0 = oneflow.all_reduce %x {mesh_axis = 0 : i64}
        : tensor<8x8xf32, #oneflow.global<#cpu2x2, [P, S(0)]>>
        -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(0)]>>
    %y = oneflow.all_gather %0 {mesh_axis = 1 : i64}
        : tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, S(0)]>>
        -> tensor<8x8xf32, #oneflow.global<#cpu2x2, [B, B]>>
    ```
  }];
}

def AccumulateMicroBatchesPass
    : Pass<"oneflow-accumulate-micro-batches", "::mlir::func::FuncOp"> {
  let summary = "Turn all-reduces over the micro-batch axis into accumulations";
  let description = [{
    In a program split into micro-batches (`oneflow.micro_batches` on the
    function, from oneflow-apply-strategy), mesh axis 0 is time: its
    coordinate is the micro-batch. After oneflow-lower-boxing, every
    `oneflow.all_reduce` over that axis (a gradient or the loss summed over
    the step) becomes an `oneflow.accumulate`, which the actor lowering
    turns into an actor that fires once per micro-batch and writes once per
    step. Functions without the attribute are left alone.

    Values may become partial over the micro-batches and be summed, and a
    value whole per step may be sliced into micro-batches (local_slice),
    but nothing else moves between them. Errors, at the op: any other step
    op on mesh axis 0 (a gather or scatter across micro-batches), a
    transfer between placements whose SBP on mesh axis 0 changes or is P
    (pipeline stages exchange each micro-batch's value as it is), an
    output that is not whole per step (`B` on mesh axis 0), and a source
    that is partial over the micro-batches.

    ```mlir
    // func.func @step() attributes {oneflow.micro_batches = 2 : i64}
    %g = oneflow.all_reduce %x {mesh_axis = 0} : tensor<4xf32, [P, B]> -> tensor<4xf32, [B, B]>
    // becomes
    %g = oneflow.accumulate %x {mesh_axis = 0} : tensor<4xf32, [P, B]> -> tensor<4xf32, [B, B]>
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
}

//===----------------------------------------------------------------------===//
// Test passes
//===----------------------------------------------------------------------===//

def TestPrintSbpSignaturesPass
    : Pass<"test-oneflow-print-sbp-signatures", "::mlir::func::FuncOp"> {
  let summary = "Print every op's SBP signatures for one mesh axis (test only)";
  let description = [{
    Emits on every op with `SbpInterface` a remark listing the signatures
    it offers on a mesh axis of `mesh-axis-size` devices, in its order,
    separated by `|` (the implied all-broadcast one is not listed; an op
    with no other prints `none`). An op with tensor operands or results
    and no SBP rule is an error.

    ```mlir
    %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
    // remark: sbp: S(0), B -> S(0) | B, S(1) -> S(1) | S(1), S(0) -> P | P, B -> P | B, P -> P
    ```
  }];
  let options = [
    Option<"meshAxisSize", "mesh-axis-size", "int64_t", /*default=*/"2",
           "Devices on the mesh axis (at least 1)">
  ];
}

#endif // ONEFLOWDIALECT_TRANSFORMS_LAYOUTPASSES_TD
