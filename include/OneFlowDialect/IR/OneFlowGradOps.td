//===- OneFlowGradOps.td - Backward ops of the gradient rules -*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Ops that only gradient rules build (oneflow-autodiff): the backward
// passes that have no composition from forward ops worth running, each a
// oneDNN backward primitive (or a scatter-add for gather).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWGRADOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWGRADOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

// The spatial attributes of the conv2d the op differentiates.
defvar OneFlow_ConvAttrs = (ins
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
    DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
    DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
    DefaultValuedAttr<I64Attr, "1">:$groups);

def OneFlow_Conv2DBackwardDataOp
    : OneFlow_InferredOp<"conv2d_backward_data", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of conv2d with respect to its input";
  let description = [{
    `dy` is the gradient of `conv2d(x, weight)` (N, F, OH, OW); the result
    is the gradient of `x`, whose logical shape `input_shape` (N, C, H, W)
    the output size alone does not determine (strides). The spatial
    attributes are the convolution's. SBP: the batch is parallel; the
    filters are summed over (`dy` S(1) and `weight` S(0) give a partial
    result).

    ```mlir
    %dx = oneflow.conv2d_backward_data %dy, %w {input_shape = array<i64: 8, 3, 32, 32>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<8x16x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
    ```
  }];
  let arguments = !con((ins OneFlow_FloatTensor:$dy, OneFlow_FloatTensor:$weight,
                            DenseI64ArrayAttr:$input_shape), OneFlow_ConvAttrs);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $weight attr-dict `:` functional-type(operands, results)";
}

def OneFlow_Conv2DBackwardFilterOp
    : OneFlow_InferredOp<"conv2d_backward_filter", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of conv2d with respect to its weight";
  let description = [{
    `x` is the convolution's input and `dy` the gradient of its result; the
    result is the gradient of the weight, of shape `weight_shape` (F,
    C / groups, KH, KW). SBP: the batch is summed over (`x` and `dy` S(0)
    give a partial result); the filters are parallel.

    ```mlir
    %dw = oneflow.conv2d_backward_filter %x, %dy {weight_shape = array<i64: 16, 3, 3, 3>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<8x3x32x32xf32>, tensor<8x16x32x32xf32>) -> tensor<16x3x3x3xf32>
    ```
  }];
  let arguments = !con((ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                            DenseI64ArrayAttr:$weight_shape), OneFlow_ConvAttrs);
  let results = (outs OneFlow_FloatTensor:$dweight);
  let assemblyFormat = "$x `,` $dy attr-dict `:` functional-type(operands, results)";
}

def OneFlow_MaxPool2DGradOp
    : OneFlow_InferredOp<"max_pool2d_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of max_pool2d";
  let description = [{
    `x` is the pool's input and `dy` the gradient of its result; each
    element of `dy` goes to the (first) maximum of its window. The forward
    pass is recomputed for oneDNN's workspace. The attributes are the
    pool's; N and C are parallel.

    ```mlir
    %dx = oneflow.max_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<8x16x8x8xf32>, tensor<8x16x4x4xf32>) -> tensor<8x16x8x8xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       UnitAttr:$ceil_mode);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$x `,` $dy attr-dict `:` functional-type(operands, results)";
}

def OneFlow_AvgPool2DGradOp
    : OneFlow_InferredOp<"avg_pool2d_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of avg_pool2d";
  let description = [{
    `x` is the pool's input (only its shape is read) and `dy` the gradient
    of its result; each element of `dy`, divided as the pool divided, goes
    to every input element of its window. The attributes are the pool's;
    N and C are parallel.

    ```mlir
    %dx = oneflow.avg_pool2d_grad %x, %dy {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<8x16x8x8xf32>, tensor<8x16x4x4xf32>) -> tensor<8x16x8x8xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$x `,` $dy attr-dict `:` functional-type(operands, results)";
}

def OneFlow_ResampleGradOp
    : OneFlow_InferredOp<"resample_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of resample";
  let description = [{
    `x` is the resample's input (only its shape is read) and `dy` the
    gradient of its result (of the same `mode`): each element of `dy` goes
    back to the input elements it was sampled from, with their weights (the
    transposed interpolation; oneDNN's resampling backward). Linear in
    `dy`: its own gradient is a `resample` to `dy`'s sizes. N and C are
    parallel.

    ```mlir
    %dx = oneflow.resample_grad %x, %dy
        : (tensor<2x3x8x8xf32>, tensor<2x3x16x16xf32>) -> tensor<2x3x8x8xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       DefaultValuedStrAttr<StrAttr, "linear">:$mode);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$x `,` $dy attr-dict `:` functional-type(operands, results)";
}

def OneFlow_BatchNormGradOp
    : OneFlow_InferredOp<"batch_norm_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of batch_norm in training";
  let description = [{
    `x` is the input of a training batch_norm, `dy` the gradient of its
    `y`, and `mean`, `inv_variance` the batch statistics it returned;
    `gamma` its scale. The results are the gradients of `x`, `gamma` and
    `beta`. `axis`, `epsilon` and `statistics_groups` are the forward
    op's. The channels are parallel; with one group nothing else may be
    split (the statistics cover the batch), with several the batch may be,
    in whole groups (`dgamma` and `dbeta` are then partial sums).

    ```mlir
    %dx, %dgamma, %dbeta = oneflow.batch_norm_grad %x, %dy, %mean, %inv, %g
        : (tensor<8x16x4x4xf32>, tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
        -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       OneFlow_FloatTensor:$mean,
                       OneFlow_FloatTensor:$inv_variance,
                       OneFlow_FloatTensor:$gamma,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       DefaultValuedAttr<I64Attr, "1">:$statistics_groups);
  let results = (outs OneFlow_FloatTensor:$dx, OneFlow_FloatTensor:$dgamma,
                      OneFlow_FloatTensor:$dbeta);
  let assemblyFormat = [{
    $x `,` $dy `,` $mean `,` $inv_variance `,` $gamma attr-dict `:`
    functional-type(operands, results)
  }];
}

def OneFlow_LayerNormGradOp
    : OneFlow_InferredOp<"layer_norm_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of layer_norm";
  let description = [{
    `x` is the input of a layer_norm whose `begin_params_axis` equals its
    `begin_norm_axis`, `dy` the gradient of its `y`, and `mean`,
    `inv_variance` the statistics it returned; `gamma` its scale. The
    results are the gradients of `x`, `gamma` and `beta`, in one pass
    (oneDNN's layer_normalization backward on the CPU) instead of the
    thirteen element-wise ops and reductions of the composition. The axes
    before `begin_norm_axis` are parallel in `dx` and summed over in
    `dgamma` and `dbeta` (a split leaves them partial); the normalized axes
    are never split. Linear in `dy`: `dy` partial with the rest broadcast
    gives partial results.

    ```mlir
    %dx, %dgamma, %dbeta = oneflow.layer_norm_grad %x, %dy, %mean, %inv, %g {begin_norm_axis = 1 : i64}
        : (tensor<16x64xf32>, tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>, tensor<64xf32>)
        -> (tensor<16x64xf32>, tensor<64xf32>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$dy,
                       OneFlow_FloatTensor:$mean,
                       OneFlow_FloatTensor:$inv_variance,
                       OneFlow_FloatTensor:$gamma,
                       DefaultValuedAttr<I64Attr, "-1">:$begin_norm_axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs OneFlow_FloatTensor:$dx, OneFlow_FloatTensor:$dgamma,
                      OneFlow_FloatTensor:$dbeta);
  let assemblyFormat = [{
    $x `,` $dy `,` $mean `,` $inv_variance `,` $gamma attr-dict `:`
    functional-type(operands, results)
  }];
}

def OneFlow_SoftmaxGradOp
    : OneFlow_InferredOp<"softmax_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of softmax from its result";
  let description = [{
    `y` is the result of a softmax along `axis` and `dy` its gradient; the
    result is the gradient of its operand, `y * (dy - sum(dy * y))` with
    the sum along `axis`, in one pass (oneDNN's softmax backward on the CPU,
    cuDNN's on CUDA) instead of the composition's two products, a reduction
    and a difference. The other axes are parallel; `axis` is never split.
    Linear in `dy`: `dy` partial with `y` broadcast gives a partial result.

    ```mlir
    %dx = oneflow.softmax_grad %y, %dy {axis = 1 : i64}
        : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$y, OneFlow_FloatTensor:$dy,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = [{
    $y `,` $dy attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_GatherGradOp
    : OneFlow_InferredOp<"gather_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of gather: rows of `dy` added into a zero table";
  let description = [{
    The scatter-add (unsorted segment sum) that differentiates
    `gather(x, indices)` along `axis`: the result has x's shape, where axis
    `axis` has `dim_size` rows, and each slice of `dy` at index position j
    is added to row `indices[j]` (negative indices count from the end).
    SBP: index positions are summed over (`dy` and `indices` split on the
    batch give a partial table); a table split along `axis` has each device
    add the rows it holds; the other axes of x are parallel.

    ```mlir
    %dtable = oneflow.gather_grad %dy, %ids {axis = 0 : i64, dim_size = 1000 : i64}
        : (tensor<8x16x64xf32>, tensor<8x16xi64>) -> tensor<1000x64xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$dy, OneFlow_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis, I64Attr:$dim_size);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $indices attr-dict `:` functional-type(operands, results)";
}

def OneFlow_GatherElementsGradOp
    : OneFlow_InferredOp<"gather_elements_grad", [Pure, OneFlow_HasSbp]> {
  let summary = "gradient of gather_elements: `dy` added into a zero tensor";
  let description = [{
    The scatter-add that differentiates `gather_elements(x, indices)` along
    `axis`: the result has x's shape `shape`, and each element of `dy` is
    added at the position of x that its index names. SBP: positions along
    `axis` are summed over (`dy` and `indices` split there give a partial
    result); the other axes are parallel where dy and the result have the
    same size.

    ```mlir
    %dx = oneflow.gather_elements_grad %dy, %labels {axis = 1 : i64, shape = array<i64: 8, 10>}
        : (tensor<8x1xf32>, tensor<8x1xi64>) -> tensor<8x10xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$dy, OneFlow_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis,
                       DenseI64ArrayAttr:$shape);
  let results = (outs OneFlow_FloatTensor:$dx);
  let assemblyFormat = "$dy `,` $indices attr-dict `:` functional-type(operands, results)";
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWGRADOPS_TD
