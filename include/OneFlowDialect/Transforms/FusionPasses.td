//===- FusionPasses.td - Ops made one, layouts for kernels -*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The passes that make several ops one or choose kernel-friendly layouts:
// before SBP (conv2d with batch_norm and relu, blocked layouts, constant
// weights) and on the laid-out step after boxing (gradient buckets,
// matmul epilogues and scales, NaN checks). Included by Passes.td.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_FUSIONPASSES_TD
#define ONEFLOWDIALECT_TRANSFORMS_FUSIONPASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Before layouts
//===----------------------------------------------------------------------===//

def FuseConvBnActPass
    : Pass<"oneflow-fuse-conv-bn-act", "::mlir::func::FuncOp"> {
  let summary = "Fuse conv2d, inference batch_norm, add and relu";
  let description = [{
    Replaces each chain `conv2d -> batch_norm [-> add] [-> relu]` by one
    `oneflow.conv2d_bn`, whose kernel folds the normalization into the
    convolution (weights scaled per filter, a bias from the shift) and runs
    the add and the relu as post-ops, so that the intermediate tensors are
    never written. A chain fuses only where nothing else can see what the
    fusion drops:

    * the batch_norm is in inference mode (`training` unset), normalizes
      the channels of an NCHW tensor (axis 1) and its `mean` and
      `inv_variance` results are unused;
    * each of conv2d's and batch_norm's results (and the add's, when a relu
      follows) has the next op of the chain as its only user;
    * the add's other operand has the result's shape (no broadcasting);
    * the tensors carry no layout encoding (run before SBP propagation).

    A convolution bias becomes part of the normalization: the fused op
    reads `moving_mean - bias`, computed by a `oneflow.sub`. The result
    equals the unfused ops' up to float rounding.

    ```mlir
    %c = oneflow.conv2d %x, %w {pads = array<i64: 1, 1, 1, 1>} : ...
    %y, %mean, %inv = oneflow.batch_norm %c, %g, %b, %m, %v : ...
    %s = oneflow.add %y, %x : ...
    %r = oneflow.relu %s : ...
    // becomes
    %r = oneflow.conv2d_bn %x, %w, %g, %b, %m, %v, %x {pads = array<i64: 1, 1, 1, 1>, relu} : ...
    ```
  }];
}

def PackConstantWeightsPass
    : Pass<"oneflow-pack-constant-weights", "::mlir::func::FuncOp"> {
  let summary = "Let matmul kernels pack weights that never change once";
  let description = [{
    Sets `constant_b` on each `oneflow.matmul` (and `oneflow.matmul_bias`)
    whose `b` is the value of a
    `oneflow.variable` that no op writes in place (no optimizer updates
    it: an inference program, or a frozen weight in training). Its CPU
    kernel then reorders `b` into oneDNN's preferred (blocked) layout at
    its first step and reuses it (7 to 12 per cent faster for a
    1024x4096 weight, bench/README.md), at the cost of that copy's memory.
    Runs after SBP propagation and boxing, so that `b` is read straight
    from the variable on every rank.

    ```mlir
    %w = oneflow.variable "w" ... : tensor<1024x4096xf32>
    %y = oneflow.matmul %x, %w : ...
    // becomes
    %y = oneflow.matmul %x, %w {constant_b} : ...
    ```
  }];
}

def ConvBlockedLayoutsPass
    : Pass<"oneflow-conv-blocked-layouts", "::mlir::func::FuncOp"> {
  let summary = "Keep activations between fused convolutions blocked";
  let description = [{
    The CPU kernel of `oneflow.conv2d_bn` computes in oneDNN's blocked
    layout for the machine that runs the plan, nChw16c (N, C / 16, H, W,
    16) with AVX-512 and nChw8c below, when it has one group and its input
    channels and filters are multiples of 16, reordering its input from
    NCHW and its result back. Where a `conv2d_bn` of that kind has a
    result whose every user is such a `conv2d_bn` reading it as its `x`
    (not as the addend), this pass sets `blocked_result` on the producer
    and `blocked_x` on the users: the buffer between them holds the
    blocked layout (the same bytes as NCHW; which block width is the
    runtime's choice, so the plan carries nothing ISA-specific), and neither reorder runs. Only those kernels
    ever see the buffer; the tensor type, and so every shape rule, SBP
    signature and memory size, is unchanged (batch is the outermost axis of
    both layouts, so S(0) pieces are the same slices). Tensors with a layout
    encoding are left alone.

    ```mlir
    %a = oneflow.conv2d_bn %x, %w1, %g, %b, %m, %v {relu} : ...
    %y = oneflow.conv2d_bn %a, %w2, %g, %b, %m, %v, %x {relu} : ...
    // becomes
    %a = oneflow.conv2d_bn %x, %w1, %g, %b, %m, %v {blocked_result, relu} : ...
    %y = oneflow.conv2d_bn %a, %w2, %g, %b, %m, %v, %x {blocked_x, relu} : ...
    ```
  }];
}

//===----------------------------------------------------------------------===//
// On the laid-out step (after boxing)
//===----------------------------------------------------------------------===//

def FuseAllReducePass
    : Pass<"oneflow-fuse-all-reduce", "::mlir::func::FuncOp"> {
  let summary = "Bucket small all-reduces into one (gradient bucketing)";
  let description = [{
    Each `oneflow.all_reduce` is a round of messages between the ranks of
    its group, whose latency does not depend on its size: a data-parallel
    step that all-reduces every gradient (and its loss) separately pays it
    once per tensor. This pass first moves each all-reduce up to right
    after the op that makes its operand (boxing sits before its reader,
    and the optimizer reads every gradient at the end), so that gradients
    go out in the order the backward pass makes them, while it goes on, as
    DistributedDataParallel's buckets do; an all-reduce whose operand
    another op writes in place stays. It then groups all-reduces of the same element type,
    operand layout and mesh axis, in program order, into buckets of at most
    `bucket-bytes` bytes (as PyTorch's DistributedDataParallel buckets
    gradients; a bucket also closes at an all-reduce that depends on one of
    its members), and replaces each bucket of two or more by one all-reduce of
    the concatenation of its flattened operands, sliced and reshaped back.
    Only operands whose layout holds the whole tensor on every rank (B or P
    on every mesh axis) are bucketed; an all-reduce larger than the bucket
    stays as it is. Ops that use a result move after the fused all-reduce.

    ```mlir
    %a = oneflow.all_reduce %x {mesh_axis = 0} : tensor<4xf32, P> -> tensor<4xf32, B>
    %b = oneflow.all_reduce %y {mesh_axis = 0} : tensor<2x2xf32, P> -> tensor<2x2xf32, B>
    // becomes
    %fx = oneflow.reshape %x : (tensor<4xf32, P>) -> tensor<4xf32, P>
    %fy = oneflow.reshape %y : (tensor<2x2xf32, P>) -> tensor<4xf32, P>
    %c = oneflow.concat %fx, %fy {axis = 0} : (...) -> tensor<8xf32, P>
    %r = oneflow.all_reduce %c {mesh_axis = 0} : tensor<8xf32, P> -> tensor<8xf32, B>
    %a = oneflow.slice %r {starts = [0], ends = [4], steps = [1]} : ... -> tensor<4xf32, B>
    %s = oneflow.slice %r {starts = [4], ends = [8], steps = [1]} : ... -> tensor<4xf32, B>
    %b = oneflow.reshape %s : (tensor<4xf32, B>) -> tensor<2x2xf32, B>
    ```
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"4194304",
           "Most bytes of one bucket (0: no fusion)">,
  ];
}

def FuseMatmulBiasPass
    : Pass<"oneflow-fuse-matmul-bias", "::mlir::func::FuncOp"> {
  let summary = "Make a matmul and the bias added to its rows one op";
  let description = [{
    A linear layer is `oneflow.matmul` and an `oneflow.add` of a bias of
    one value per column: the add reads and writes the whole result again.
    Once the layouts are fixed (after boxing), this pass replaces such a
    pair by `oneflow.matmul_bias`, whose kernel starts the GEMM from the
    bias. It fuses only where the matmul's result is read by the add alone,
    both have the same type, layout included (no boxing between them), and
    that layout has no partial axis (a partial product takes the bias after
    its sum, not before); the bias is a rank-1 tensor of the result's
    column count and element type, the contraction is not empty, and both
    ops carry the same attributes besides their own (a pipeline stage, a
    micro-batch).

    ```mlir
    %y = oneflow.matmul %x, %w : (tensor<64x784xf32>, tensor<784x128xf32>) -> tensor<64x128xf32>
    %z = oneflow.add %y, %b : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
    // becomes
    %z = oneflow.matmul_bias %x, %w, %b : (tensor<64x784xf32>, tensor<784x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
    ```
  }];
}

def FoldMatmulScalePass
    : Pass<"oneflow-fold-matmul-scale", "::mlir::func::FuncOp"> {
  let summary = "Fold scalar multiplications into batch_matmul's alpha";
  let description = [{
    Attention scales its scores by 1 / sqrt(d), and its gradient scales the
    scores' gradient by the same: each an `oneflow.scalar_mul` that reads
    and writes a [batch, heads, tokens, tokens] tensor next to the
    `oneflow.batch_matmul` that makes or reads it. Once the layouts are
    fixed (after boxing), this pass folds such a scalar into the product's
    `alpha` (alpha a b is what BLAS and oneDNN compute anyway):
    - `scalar_mul(batch_matmul(a, b), s)` becomes `batch_matmul(a, b)` with
      alpha times s, where the scalar_mul alone reads the product;
    - `batch_matmul(scalar_mul(x, s), b)` (either operand) reads x with
      alpha times s; the scalar_mul goes once nothing else reads it.
    Both values must have the same type, layout included (no boxing
    between them; a scaled partial sum is the partial sum of the scaled
    pieces, so partial layouts fold too), and both ops carry the same
    attributes besides their own (a pipeline stage, a micro-batch). A
    product whose alpha would not be finite is left alone.

    ```mlir
    %s = oneflow.batch_matmul %q, %k {transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
    %t = oneflow.scalar_mul %s, 0.125 : (tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    // becomes
    %t = oneflow.batch_matmul %q, %k {alpha = 0.125 : f64, transpose_b} : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
    ```
  }];
}

def FuseNonfiniteChecksPass
    : Pass<"oneflow-fuse-nonfinite-checks", "::mlir::func::FuncOp"> {
  let summary = "Make the NaN and infinity checks of one layout one op";
  let description = [{
    oneflow-optimizer checks each gradient with its own
    `oneflow.find_nonfinite` and takes the maximum of their results: on a
    small model those checks and maximums are more ops than the rest of
    the update, and each costs an actor firing per step. Once the layouts
    are fixed (after boxing), this pass replaces the checks of one block
    whose results have the same type, layout included, by one
    `oneflow.find_nonfinite` of all their tensors (codes and labels in
    order) built after the last of them, without `like` operands (they
    only chose a layout, which is now fixed); a check that depends on the
    result of another starts a new group. Every use of a member's result
    uses the fused result instead, which is right because the maximum is
    idempotent; `oneflow.maximum` ops whose two operands have become the
    same value are then removed. Ops that use a result move after the
    fused check (the block is sorted topologically); a group whose users
    include an op that would then write in place after a later reader of
    what it writes is left as it is.

    ```mlir
    %c1 = oneflow.find_nonfinite %g1 like %w1 {codes = array<i64: 2>, labels = ["gradient of 'w1'"]} : ...
    %c2 = oneflow.find_nonfinite %g2 like %w2 {codes = array<i64: 1>, labels = ["gradient of 'w2'"]} : ...
    %m = oneflow.maximum %c1, %c2 : ...
    // becomes
    %m = oneflow.find_nonfinite %g1, %g2 {codes = array<i64: 2, 1>, labels = ["gradient of 'w1'", "gradient of 'w2'"]} : ...
    ```
  }];
}

#endif // ONEFLOWDIALECT_TRANSFORMS_FUSIONPASSES_TD
