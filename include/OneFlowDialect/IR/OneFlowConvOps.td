//===- OneFlowConvOps.td - Convolution and pooling ---------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWCONVOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWCONVOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

// Spatial attributes are per spatial axis (height, width); `pads` is
// [top, left, bottom, right].
def OneFlow_Conv2DOp : OneFlow_InferredOp<"conv2d", [Pure, OneFlow_HasSbp]> {
  let summary = "2-D convolution, NCHW, with groups and optional bias";
  let description = [{
    `x` is (N, C, H, W), `weight` (F, C / groups, KH, KW), `bias` (F).

    ```mlir
    %y = oneflow.conv2d %x, %w, %b {strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<8x3x32x32xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<8x16x16x16xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$weight,
                       Optional<OneFlow_FloatTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def OneFlow_Conv2DBnOp : OneFlow_InferredOp<"conv2d_bn", [Pure, OneFlow_HasSbp]> {
  let summary = "conv2d, inference batch_norm, then an optional add and relu";
  let description = [{
    `relu?(batch_norm(conv2d(x, weight)) + addend?)`, where batch_norm is in
    inference mode over the channels (axis 1) with `gamma`, `beta`,
    `moving_mean` and `moving_variance` (1-D, one value per filter) and
    `epsilon`, and `addend`, when present, has the result's shape. With
    `s = gamma / sqrt(moving_variance + epsilon)` this is a convolution by
    `weight * s` (per filter) with bias `beta - moving_mean * s`; the
    kernel folds the parameters at each step, so that they may change
    between steps. Built by `oneflow-fuse-conv-bn-act`; the spatial
    attributes are conv2d's.

    `blocked_x` and `blocked_result` say that the buffer of `x`, or of the
    result, holds the tensor in oneDNN's blocked layout of the machine
    that runs it (nChw16c with AVX-512, nChw8c below: N, C / B, H, W, B)
    rather than NCHW: same size, channels in multiples of 16 (set by
    `oneflow-conv-blocked-layouts` between fused convolutions only).

    ```mlir
    %y = oneflow.conv2d_bn %x, %w, %g, %b, %m, %v, %skip {pads = array<i64: 1, 1, 1, 1>, relu}
        : (tensor<8x64x56x56xf32>, tensor<64x64x3x3xf32>, tensor<64xf32>, tensor<64xf32>,
           tensor<64xf32>, tensor<64xf32>, tensor<8x64x56x56xf32>) -> tensor<8x64x56x56xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$weight,
                       OneFlow_FloatTensor:$gamma, OneFlow_FloatTensor:$beta,
                       OneFlow_FloatTensor:$moving_mean,
                       OneFlow_FloatTensor:$moving_variance,
                       Optional<OneFlow_FloatTensor>:$addend,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       UnitAttr:$relu, UnitAttr:$blocked_x,
                       UnitAttr:$blocked_result);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = [{
    $x `,` $weight `,` $gamma `,` $beta `,` $moving_mean `,` $moving_variance
    (`,` $addend^)? attr-dict `:` functional-type(operands, results)
  }];
}

class OneFlow_Pool2DBase<string mnemonic, string desc>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}

def OneFlow_MaxPool2DOp
    : OneFlow_Pool2DBase<"max_pool2d", "2-D max pooling, NCHW"> {
  let description = [{
    ```mlir
    %y = oneflow.max_pool2d %x {kernel_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}
        : (tensor<8x64x112x112xf32>) -> tensor<8x64x56x56xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       UnitAttr:$ceil_mode);
}

def OneFlow_AvgPool2DOp
    : OneFlow_Pool2DBase<"avg_pool2d", "2-D average pooling, NCHW"> {
  let description = [{
    With `count_include_pad`, padding counts towards each window's divisor.

    ```mlir
    %y = oneflow.avg_pool2d %x {kernel_size = array<i64: 2, 2>, strides = array<i64: 2, 2>}
        : (tensor<8x64x8x8xf32>) -> tensor<8x64x4x4xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DenseI64ArrayAttr:$kernel_size,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       UnitAttr:$ceil_mode, UnitAttr:$count_include_pad);
}

def OneFlow_ResampleOp : OneFlow_InferredOp<"resample", [Pure, OneFlow_HasSbp]> {
  let summary = "resampling of the spatial axes (N, C, then 1 to 3)";
  let description = [{
    Resizes each spatial axis of `x` (those after N and C) to the length in
    `sizes`, sampling at half-pixel centres: output index i of an axis
    resized from n to m samples the input at x = (i + 0.5) n / m - 0.5,
    clamped to [0, n - 1]. `mode` "linear" (the default) interpolates
    between x's two neighbours; "nearest" takes the input at x rounded
    (halves away from zero). This is oneDNN's resampling (the CPU kernel);
    linear is ONNX Resize in linear mode with half_pixel coordinates and
    PyTorch's `interpolate(mode="bilinear", align_corners=False)`, nearest
    by an integer factor PyTorch's `interpolate(mode="nearest")`. N and C
    are parallel; the resized axes are never split. Its gradient is
    `resample_grad`.

    ```mlir
    %y = oneflow.resample %x {sizes = array<i64: 16, 16>}
        : (tensor<2x3x8x8xf32>) -> tensor<2x3x16x16xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, DenseI64ArrayAttr:$sizes,
                       DefaultValuedStrAttr<StrAttr, "linear">:$mode);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}


def OneFlow_GlobalAvgPool2DOp
    : OneFlow_Pool2DBase<"global_avg_pool2d", "mean over H and W, NCHW"> {
  let description = [{
    ```mlir
    %y = oneflow.global_avg_pool2d %x : (tensor<8x512x7x7xf32>) -> tensor<8x512x1x1xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x);
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWCONVOPS_TD
