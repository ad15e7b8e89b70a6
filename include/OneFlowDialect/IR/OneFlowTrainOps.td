//===- OneFlowTrainOps.td - Optimizer update ops -----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWTRAINOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWTRAINOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

// An optimizer step. Operand 0 is a variable's value, operand 1 its
// gradient, then the optimizer states (variables too), then optionally a
// rank-0 `scale` that multiplies the gradient first (global-norm clipping),
// then optionally a rank-0 f32 `skip`: when it is not 0 the op changes
// nothing (the step's gradients were not finite; see find_nonfinite). A
// `skip` comes with a `scale` (1 without clipping), so that a plan's flat
// operand list says which is which. The op has no results: its kernel writes the new value and states into
// their buffers, which the next step's variable actors hand out again. The
// write effects keep DCE, CSE and reordering away from it.
//
// The learning rate at step s (from 0) is `lr` * (s + 1) / `warmup_steps`
// while s < `warmup_steps`; then, when `total_steps` > 0, a cosine decay
// from `lr` to `min_lr` reached at s = `total_steps`:
// min_lr + (lr - min_lr) * (1 + cos(pi * min(1, (s - warmup) / (total -
// warmup)))) / 2; otherwise `lr`.
//
// Every tensor operand but `scale` has one logical type; SBP: they share one
// layout (all S(i) on the same axis, or all B); `scale` and `skip` are B. A partial
// gradient is reduced by boxing before the update.
class OneFlow_UpdateOp<string mnemonic, string desc>
    : OneFlow_Op<mnemonic, [OneFlow_HasSbp, AttrSizedOperandSegments]> {
  let summary = desc;
  let results = (outs);
  let assemblyFormat = [{
    $param `,` $grad (`states` `(` $states^ `)`)? (`scale` `(` $scale^ `)`)?
    (`skip` `(` $skip^ `)`)? attr-dict `:` type(operands)
  }];
  let hasVerifier = 1;
  // Element-wise over the first operand's axes; `scale` and `skip` have
  // none (B).
  let extraClassDefinition = OneFlow_ElementwiseSbp<>.definition;
}

// The operands and schedule attributes every update op has.
defvar OneFlow_UpdateOperands = (ins
    Arg<OneFlow_FloatTensor, "the variable's value, updated in place",
        [MemRead, MemWrite]>:$param,
    OneFlow_FloatTensor:$grad,
    Arg<Variadic<OneFlow_FloatTensor>, "optimizer states, updated in place",
        [MemRead, MemWrite]>:$states,
    Optional<OneFlow_FloatTensor>:$scale,
    Optional<OneFlow_FloatTensor>:$skip,
    F64Attr:$lr,
    DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
    DefaultValuedAttr<I64Attr, "0">:$warmup_steps,
    DefaultValuedAttr<I64Attr, "0">:$total_steps,
    DefaultValuedAttr<F64Attr, "0.0">:$min_lr);

def OneFlow_SgdUpdateOp : OneFlow_UpdateOp<"sgd_update",
    "stochastic gradient descent step, with momentum and Nesterov"> {
  let description = [{
    PyTorch's `torch.optim.SGD` without dampening, with g = `scale` * grad:
    g += weight_decay * param; with `momentum` > 0 (one state, the momentum
    buffer, zeros at first): buf = momentum * buf + g, and g = g + momentum *
    buf with `nesterov`, else g = buf; param -= lr(step) * g. See the class
    comment for the schedule.

    ```mlir
    oneflow.sgd_update %w, %g states(%buf) {lr = 0.1 : f64, momentum = 0.9 : f64}
        : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = !con(OneFlow_UpdateOperands, (ins
      DefaultValuedAttr<F64Attr, "0.0">:$momentum,
      UnitAttr:$nesterov));
}

def OneFlow_AdamUpdateOp : OneFlow_UpdateOp<"adam_update",
    "Adam step; AdamW with decoupled weight decay"> {
  let description = [{
    PyTorch's `torch.optim.Adam` (and `AdamW` with `decoupled`), with g =
    `scale` * grad and t = step + 1. Two states, m and v (zeros at first).
    Weight decay: g += weight_decay * param, or with `decoupled` param *= 1
    - lr(step) * weight_decay. Then m = beta1 * m + (1 - beta1) * g, v =
    beta2 * v + (1 - beta2) * g * g, and param -= lr(step) / (1 - beta1^t) *
    m / (sqrt(v) / sqrt(1 - beta2^t) + epsilon).

    ```mlir
    oneflow.adam_update %w, %g states(%m, %v) {lr = 1.0e-03 : f64}
        : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
    ```
  }];
  let arguments = !con(OneFlow_UpdateOperands, (ins
      DefaultValuedAttr<F64Attr, "0.9">:$beta1,
      DefaultValuedAttr<F64Attr, "0.999">:$beta2,
      DefaultValuedAttr<F64Attr, "1.0e-8">:$epsilon,
      UnitAttr:$decoupled));
}

def OneFlow_MovingAverageUpdateOp
    : OneFlow_Op<"moving_average_update", [OneFlow_HasSbp]> {
  let summary = "moving = momentum * moving + (1 - momentum) * value, in place";
  let description = [{
    An exponential moving average written into the buffer of `moving` (a
    variable's value), as batch normalization keeps its running statistics
    (`momentum` is ONNX's: the weight of the old value; PyTorch's momentum
    0.1 is 0.9 here). `value` has the logical type of `moving`. Like the
    optimizer updates it has no results and its write effect keeps DCE,
    CSE and reordering away from it. SBP: element-wise, `moving` keeps its
    layout (a partial `value` is reduced by boxing first).

    ```mlir
    oneflow.moving_average_update %running_mean, %batch_mean {momentum = 0.9 : f64}
        : tensor<16xf32>, tensor<16xf32>
    ```
  }];
  let arguments = (ins
      Arg<OneFlow_FloatTensor, "the variable's value, updated in place",
          [MemRead, MemWrite]>:$moving,
      OneFlow_FloatTensor:$value,
      F64Attr:$momentum);
  let results = (outs);
  let assemblyFormat = "$moving `,` $value attr-dict `:` type(operands)";
  let hasVerifier = 1;
  let extraClassDefinition = OneFlow_ElementwiseSbp<>.definition;
}

def OneFlow_FindNonfiniteOp
    : OneFlow_Op<"find_nonfinite",
                 [Pure, AttrSizedOperandSegments,
                  DeclareOpInterfaceMethods<OneFlow_SbpInterface,
                                            ["getLayoutKeepingOperands"]>]> {
  let summary = "the largest code of the tensors that hold a NaN or an "
                "infinity, else 0";
  let description = [{
    A rank-0 f32: the largest `codes[i]` (each at least 1) such that an
    element of `x[i]` is a NaN or an infinity, 0 when every element of every
    `x` is finite. `labels[i]` says what `x[i]` is ("gradient of
    'fc1.weight'"), for the message that reports it.
    oneflow-optimizer checks each of a step's gradients with one; the
    maximum of their results is the step's `skip` flag, and with codes
    numbered down from the first gradient it names the first one that is
    not finite. oneflow-fuse-nonfinite-checks then makes the checks of one
    layout one op (one kernel for all of them).

    SBP: every axis of every `x` is reduced by a maximum, so a split `x`
    gives P(max) (each rank sees its piece; an `x` that is broadcast at the
    same time only repeats its code). `like`, when given, holds one tensor
    per `x`, of its shape, whose layout that `x` takes (the gradient's
    variable): the check then reads the gradient as its update does,
    through the same boxing, instead of moving it a second time. Not
    differentiable.

    ```mlir
    %c = oneflow.find_nonfinite %g like %w
        {codes = array<i64: 3>, labels = ["gradient of 'w'"]}
        : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins Variadic<OneFlow_FloatTensor>:$x,
                       Variadic<OneFlow_FloatTensor>:$like,
                       DenseI64ArrayAttr:$codes, StrArrayAttr:$labels);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = [{
    $x (`like` $like^)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWTRAINOPS_TD
