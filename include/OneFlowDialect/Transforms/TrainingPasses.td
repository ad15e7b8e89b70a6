//===- TrainingPasses.td - Autodiff, optimizers, recomputation ---*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The passes that make a forward program a training step. Included by
// Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_TRAININGPASSES_TD
#define ONEFLOWDIALECT_TRANSFORMS_TRAININGPASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Optimizers
//===----------------------------------------------------------------------===//

def OptimizerPass : Pass<"oneflow-optimizer", "::mlir::func::FuncOp"> {
  let summary = "Turn gradient outputs into in-place optimizer updates";
  let description = [{
    Consumes every `oneflow.output` with a `grad_of = "<variable>"`
    attribute (what `oneflow-autodiff` produces): erases it and appends, at
    the end of the function and in the order of those outputs, one update
    op per variable that writes the variable's next value in place:
    `oneflow.sgd_update` (`kind=sgd`) or `oneflow.adam_update` (`adam`;
    `adamw` sets `decoupled`). Optimizer states are new variables named
    `<variable>.momentum` (SGD with momentum), `<variable>.m` and
    `<variable>.v` (Adam), zeros at first, of the variable's type (layout
    included, so states follow their parameter).

    With `clip-norm` > 0 the gradients are clipped by their global norm as
    `torch.nn.utils.clip_grad_norm_` does: ops compute n = sqrt(sum of
    every gradient's squares) and min(1, clip-norm / (n + 1e-6)), which
    feeds every update op's `scale` operand.

    With `nonfinite=report` or `skip`, every gradient and every updated
    variable is checked for NaN and infinity: one `oneflow.find_nonfinite`
    per gradient (codes N for the first of N gradients, down to 1 for the
    last; label "gradient of '<variable>'", `like` the variable) and one
    per variable as the step begins, what the previous step's update made
    (codes 2N down to N + 1, so that a variable is named before the
    gradients it spoils; label "variable '<variable>'"), their maximum by
    `oneflow.maximum`, and an output named "nonfinite" that the runner
    reads each step (0: all finite; else the code of the first tensor that
    is not). With `skip` the maximum is also every update op's `skip` flag
    (and a scale of 1 is added where there is no clipping): such a step
    changes no variable; the output then has the unit attribute
    `skips_updates`. oneflow-fuse-nonfinite-checks later makes the checks
    of one layout one op. A program that has an output named "nonfinite"
    already is an error.

    A `grad_of` that names no variable, a frozen variable, or a gradient
    of another type, a second gradient of one variable, a state name that
    is taken, and bad option values are errors.

    ```mlir
    %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4xf32>
    ...
    oneflow.output "w.grad", %g {grad_of = "w"} : tensor<4xf32>
    // becomes, with kind=sgd lr=0.1 momentum=0.9:
    %m = oneflow.variable "w.momentum" {init = #oneflow.init<zeros>} : tensor<4xf32>
    oneflow.sgd_update %w, %g states(%m) {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64}
        : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"kind", "kind", "std::string", /*default=*/"\"sgd\"",
           "sgd, adam or adamw">,
    Option<"lr", "lr", "double", /*default=*/"0.01", "Peak learning rate">,
    Option<"momentum", "momentum", "double", /*default=*/"0.0",
           "SGD momentum, in [0, 1)">,
    Option<"nesterov", "nesterov", "bool", /*default=*/"false",
           "SGD with Nesterov momentum">,
    Option<"weightDecay", "weight-decay", "double", /*default=*/"0.0",
           "L2 penalty (sgd, adam) or decoupled decay (adamw)">,
    Option<"beta1", "beta1", "double", /*default=*/"0.9", "Adam beta1">,
    Option<"beta2", "beta2", "double", /*default=*/"0.999", "Adam beta2">,
    Option<"epsilon", "epsilon", "double", /*default=*/"1e-8", "Adam epsilon">,
    Option<"clipNorm", "clip-norm", "double", /*default=*/"0.0",
           "Clip the global gradient norm to this (0: no clipping)">,
    Option<"warmupSteps", "warmup-steps", "int64_t", /*default=*/"0",
           "Steps of linear learning-rate warm-up">,
    Option<"totalSteps", "total-steps", "int64_t", /*default=*/"0",
           "Step at which the cosine decay reaches min-lr (0: no decay)">,
    Option<"minLr", "min-lr", "double", /*default=*/"0.0",
           "Learning rate at the end of the cosine decay">,
    Option<"nonfinite", "nonfinite", "std::string", /*default=*/"\"off\"",
           "off, report (an output flags a gradient that is not finite) or "
           "skip (and such a step updates nothing)">
  ];
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

def ActivationCheckpointingPass
    : Pass<"oneflow-activation-checkpointing", "::mlir::func::FuncOp"> {
  let summary = "Recompute forward activations in the backward pass";
  let description = [{
    Trades compute for memory, after `oneflow-autodiff` (`of-run --train
    --recompute`). The forward ops (those the `loss` output depends on)
    are cut, in program order, into segments of `segment-ops` ops (0:
    about the square root of their number). A value that a segment
    computes and the backward pass reads, but no later segment does, is
    not kept: right before the first backward op that needs one of them,
    the segment's ops that lead to them run again, and the backward ops
    read those clones. The clones keep every attribute (their pipeline
    stage; dropout's seed, so it draws the same mask). What later segments
    read (each segment's outputs), sources and variables are kept.

    Layers instead of counts: a strategy file (`strategy`) with
    `"recompute": [{"match": "h0.*"}, {"match": "h1.*"}, ...]` makes one
    segment per rule: the forward ops that read a variable the rule
    matches (a glob; the first rule that matches wins), and the ops that
    follow from them until another rule's variables, form its segment;
    forward ops before every matched variable are kept, not recomputed.

    Errors: no output named `loss`, a negative `segment-ops`, a malformed
    `recompute` key, and a rule that matches no variable the loss reads.

    ```mlir
    %h = oneflow.relu %x          // forward, segment 0
    %y = oneflow.matmul %h, %w    // forward, segment 0
    ...
    %r = oneflow.relu %x          // the clone, before the first backward reader
    %dw = oneflow.matmul %r, %dy {transpose_a}
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"loss\"",
           "The output whose forward pass is recomputed">,
    Option<"segmentOps", "segment-ops", "int64_t", /*default=*/"0",
           "Forward ops per segment (0: about the square root of their "
           "number)">,
    Option<"strategy", "strategy", "std::string", /*default=*/"\"\"",
           "A strategy file whose \"recompute\" rules choose the layers "
           "to recompute (segments by variable names instead of by count)">
  ];
}

//===----------------------------------------------------------------------===//
// Mixed precision
//===----------------------------------------------------------------------===//

def MixedPrecisionPass
    : Pass<"oneflow-mixed-precision", "::mlir::func::FuncOp"> {
  let summary = "Run matmuls, convolutions and their activations in bf16";
  let description = [{
    Automatic mixed precision on a forward program, before
    `oneflow-autodiff` (`of-run --train --precision bf16`), as OneFlow's
    AutoMixedPrecision pass does it with its op lists:

    - *allow* ops run in `dtype`: matmul, batch_matmul, conv2d (the
      kernels accumulate in f32 and round the result);
    - *gray* ops (element-wise arithmetic and activations: add, sub, mul,
      scalar_*, masked_fill, where, relu, gelu, tanh, sigmoid, ...) and
      *clear* ops (reshape, flatten, transpose, slice, concat, gather)
      run in `dtype` when every reader of their results does (so a bias
      add and GELU between two matmuls do, a residual add read by a
      layer norm does not); clear ops also when every float operand they
      read comes from such an op;
    - every other op (softmax, normalization, losses, reductions,
      exp/log, variables, outputs) keeps f32.

    A `oneflow.cast` is inserted on each edge between the two (one per
    value and direction). Variables stay f32 and the casts' gradients
    bring their gradients back to f32, so the optimizer updates f32
    master weights with f32 states. Only f32 tensors change; f64 and
    integers are left alone. `allow`, `gray` and `deny` add op names
    (`oneflow.matmul`, a plugin's ops) to a list; `deny` wins.

    ```mlir
    %h = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x4xf32>) -> tensor<8x4xf32>
    // becomes
    %x16 = oneflow.cast %x : (tensor<8x4xf32>) -> tensor<8x4xbf16>
    %w16 = oneflow.cast %w : (tensor<4x4xf32>) -> tensor<4x4xbf16>
    %h = oneflow.matmul %x16, %w16 : (tensor<8x4xbf16>, tensor<4x4xbf16>) -> tensor<8x4xbf16>
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"dtype", "dtype", "std::string", /*default=*/"\"bf16\"",
           "The low precision: bf16 or f16">,
    ListOption<"allow", "allow", "std::string",
               "More op names that run in the low precision">,
    ListOption<"gray", "gray", "std::string",
               "More op names that follow their readers">,
    ListOption<"deny", "deny", "std::string",
               "Op names that keep f32 (over the other lists)">
  ];
}

def AutodiffPass : Pass<"oneflow-autodiff", "::mlir::func::FuncOp"> {
  let summary = "Append the gradients of a scalar loss w.r.t. the variables";
  let description = [{
    Differentiates the scalar f32 `oneflow.output "<loss>"` with respect to
    every f32 `oneflow.variable` without a `frozen` unit attribute that
    reaches it, on the logical graph (run it before SBP propagation). The
    seed d(loss)/d(loss) is a `oneflow.fill 1.0 : tensor<f32>`; the backward
    ops come from each op's GradientInterface, in reverse program order,
    gradients of values used several times summed with `oneflow.add`. Each
    gradient is exposed after the backward ops as
    `oneflow.output "<name>.grad", %g {grad_of = "<name>"}`. Backward values
    carry no layout, so propagation derives them. The ops built for an op's
    gradient take its pipeline stage (`oneflow.stage`, from
    oneflow-assign-stages), the seed the loss output's, each gradient
    output its variable's. It is an error when the
    function has no output named `loss`, when that output is not a scalar
    f32, or when an op on a path from a variable to the loss has no
    gradient rule.

    ```mlir
    %w = oneflow.variable "w" {init = #oneflow.init<normal(0.0, 1.0)>} : tensor<4xf32>
    %s = oneflow.reduce_sum %w {axes = array<i64: 0>} : (tensor<4xf32>) -> tensor<f32>
    oneflow.output "loss", %s : tensor<f32>
    // gains
    %0 = oneflow.fill 1.0 : tensor<f32>
    %1 = oneflow.reshape %0 : (tensor<f32>) -> tensor<1xf32>
    ...
    oneflow.output "w.grad", %3 {grad_of = "w"} : tensor<4xf32>
    ```
  }];
  let options = [
    Option<"loss", "loss", "std::string", /*default=*/"\"loss\"",
           "Name of the scalar output to differentiate">
  ];
}

def UpdateMovingStatisticsPass
    : Pass<"oneflow-update-moving-statistics", "::mlir::func::FuncOp"> {
  let summary = "Update batch norm's running statistics in place, as PyTorch does";
  let description = [{
    For every `oneflow.batch_norm` in training mode whose moving mean and
    variance are `oneflow.variable` values, appends at the end of the
    function two `oneflow.moving_average_update`s with the op's
    `momentum`: the moving mean takes the batch mean, the moving variance
    the unbiased batch variance n / (n - 1) * (inv_variance^-2 - epsilon),
    n being the elements per channel the batch statistics cover
    (PyTorch's `BatchNorm` in training). With `statistics_groups` = G,
    n counts one group's elements and the running values take the means
    over the groups of the G means and unbiased variances (PyTorch DDP
    keeps rank 0's instead). The variables may be `frozen`
    (no gradient); checkpoints and ONNX export then carry the updated
    values. A batch norm whose statistics are not variables is left alone.
    It is an error when a batch norm to update has one element per
    channel (the unbiased variance is undefined; PyTorch refuses it too).

    ```mlir
    %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training} : ...
    // appends
    %0 = oneflow.scalar_pow %inv, -2.0 ...
    %1 = oneflow.scalar_add %0, -1.0e-05 ...
    %2 = oneflow.scalar_mul %1, 1.0322580645161290 ...
    oneflow.moving_average_update %rm, %mean {momentum = 0.9 : f64} : ...
    oneflow.moving_average_update %rv, %2 {momentum = 0.9 : f64} : ...
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
}

def LocalBatchStatisticsPass
    : Pass<"oneflow-local-batch-statistics", "::mlir::func::FuncOp"> {
  let summary = "Normalize each part of the batch with its own statistics";
  let description = [{
    Sets `statistics_groups = groups` on every training-mode
    `oneflow.batch_norm`: the batch is normalized in `groups` groups of
    consecutive samples, each with its own statistics. With `groups` the
    number of data-parallel ranks (times micro-batches), that is PyTorch
    DDP's and OneFlow's default per-device batch norm, without the
    all-to-alls that whole-batch statistics of a split batch need; the
    result differs from whole-batch normalization by design, the same on
    one device as on many. Run it before oneflow-autodiff (the gradient
    takes the groups from the op). `groups = 1` changes nothing.

    It is an error when `groups` does not divide a batch norm's batch, when
    its channels are on axis 0, or when a batch norm's `mean` or
    `inv_variance` has a reader (they would change shape).

    ```mlir
    %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training}
        : (tensor<8x16x4x4xf32>, ...) -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
    // with groups=4 becomes
    %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {statistics_groups = 4 : i64, training}
        : (tensor<8x16x4x4xf32>, ...) -> (tensor<8x16x4x4xf32>, tensor<4x16xf32>, tensor<4x16xf32>)
    ```
  }];
  let dependentDialects = ["::mlir::oneflow::OneFlowDialect"];
  let options = [
    Option<"groups", "groups", "int64_t", /*default=*/"1",
           "Statistics groups per batch">
  ];
}

#endif // ONEFLOWDIALECT_TRANSFORMS_TRAININGPASSES_TD
