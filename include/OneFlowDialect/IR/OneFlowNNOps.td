//===- OneFlowNNOps.td - Softmax, losses, normalization ----*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWNNOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWNNOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

class OneFlow_SoftmaxBase<string mnemonic, string desc>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    Normalizes along `axis` (default the last; negative counts from the end).

    ```mlir
    %p = oneflow.}] # mnemonic # [{ %x {axis = 1 : i64} : (tensor<8x10xf32>) -> tensor<8x10xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DefaultValuedAttr<I64Attr, "-1">:$axis);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      auto type = ::llvm::cast<::mlir::RankedTensorType>(adaptor.getX().getType());
      if (::mlir::failed(::mlir::oneflow::checkAxis(location, getOperationName(),
              "axis", adaptor.getAxis(), type.getRank())))
        return ::mlir::failure();
      types.push_back(::mlir::oneflow::stripEncoding(type));
      return ::mlir::success();
    }
  }];
}

def OneFlow_SoftmaxOp : OneFlow_SoftmaxBase<"softmax", "softmax along an axis">;
def OneFlow_LogSoftmaxOp
    : OneFlow_SoftmaxBase<"log_softmax", "log of softmax along an axis">;

def OneFlow_SparseSoftmaxCrossEntropyOp
    : OneFlow_InferredOp<"sparse_softmax_cross_entropy",
                         [Pure, OneFlow_HasSbp]> {
  let summary = "softmax of logits and the negative log-likelihood of labels";
  let description = [{
    `logits` is (..., classes) and `labels` (...) holds class indices. The
    results are the softmax probabilities (logits' shape) and the per-sample
    loss (labels' shape); averaging over samples is a separate op.

    ```mlir
    %prob, %loss = oneflow.sparse_softmax_cross_entropy %logits, %labels
        : (tensor<64x10xf32>, tensor<64xi64>) -> (tensor<64x10xf32>, tensor<64xf32>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$logits, OneFlow_IndexTensor:$labels);
  let results = (outs OneFlow_FloatTensor:$prob, OneFlow_FloatTensor:$loss);
  let assemblyFormat = "$logits `,` $labels attr-dict `:` functional-type(operands, results)";
}

def OneFlow_LayerNormOp
    : OneFlow_InferredOp<"layer_norm", [Pure, OneFlow_HasSbp]> {
  let summary = "layer normalization with affine parameters";
  let description = [{
    Normalizes `x` over the axes from `begin_norm_axis` on; `gamma` and
    `beta` have the shape of `x` from `begin_params_axis` on. Also returns
    the mean and the inverse standard deviation (shape of `x` before
    `begin_norm_axis`) that the backward pass uses.

    ```mlir
    %y, %mean, %inv = oneflow.layer_norm %x, %g, %b {begin_norm_axis = 2 : i64, begin_params_axis = 2 : i64}
        : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>)
        -> (tensor<2x16x64xf32>, tensor<2x16xf32>, tensor<2x16xf32>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$gamma,
                       OneFlow_FloatTensor:$beta,
                       DefaultValuedAttr<I64Attr, "-1">:$begin_norm_axis,
                       DefaultValuedAttr<I64Attr, "-1">:$begin_params_axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon);
  let results = (outs OneFlow_FloatTensor:$y, OneFlow_FloatTensor:$mean,
                      OneFlow_FloatTensor:$inv_variance);
  let assemblyFormat = "$x `,` $gamma `,` $beta attr-dict `:` functional-type(operands, results)";
}

def OneFlow_BatchNormOp : OneFlow_InferredOp<"batch_norm", [OneFlow_HasSbp]> {
  let summary = "batch normalization over all axes but `axis`";
  let description = [{
    `gamma`, `beta`, `moving_mean` and `moving_variance` are 1-D of the size
    of `axis` (the channels). In training the batch statistics normalize;
    the batch mean and inverse standard deviation are returned for the
    backward pass and for the update of the moving statistics with
    `momentum` (ONNX's: the weight of the old value), which
    oneflow-update-moving-statistics appends. In inference (`training =
    false`) the moving statistics normalize.

    With `statistics_groups` = G > 1 (training only), the batch (axis 0,
    not the channel axis) is normalized in G groups of consecutive samples,
    each with its own statistics: what PyTorch DDP's and OneFlow's
    per-device batch norm compute when each of G data-parallel devices
    holds one group, made part of the program so that one device computes
    what G do. `mean` and `inv_variance` are then G x C, and the batch is
    parallel in whole groups.

    ```mlir
    %y, %mean, %inv = oneflow.batch_norm %x, %g, %b, %rm, %rv {training}
        : (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>)
        -> (tensor<8x16x4x4xf32>, tensor<16xf32>, tensor<16xf32>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$gamma,
                       OneFlow_FloatTensor:$beta,
                       OneFlow_FloatTensor:$moving_mean,
                       OneFlow_FloatTensor:$moving_variance,
                       DefaultValuedAttr<I64Attr, "1">:$axis,
                       DefaultValuedAttr<F64Attr, "1.0e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.9">:$momentum,
                       UnitAttr:$training,
                       DefaultValuedAttr<I64Attr, "1">:$statistics_groups);
  let results = (outs OneFlow_FloatTensor:$y, OneFlow_FloatTensor:$mean,
                      OneFlow_FloatTensor:$inv_variance);
  let assemblyFormat = [{
    $x `,` $gamma `,` $beta `,` $moving_mean `,` $moving_variance attr-dict `:`
    functional-type(operands, results)
  }];
}

def OneFlow_DropoutOp : OneFlow_InferredOp<"dropout", [OneFlow_HasSbp]> {
  let summary = "zero elements with probability `rate`, scale the rest";
  let description = [{
    Returns the output and the i1 keep-mask for the backward pass. The mask
    is drawn from `seed` and the step, identically whatever the layout.

    ```mlir
    %y, %mask = oneflow.dropout %x {rate = 0.1 : f64, seed = 3 : i64}
        : (tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xi1>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x,
                       DefaultValuedAttr<F64Attr, "0.5">:$rate,
                       DefaultValuedAttr<I64Attr, "0">:$seed);
  let results = (outs OneFlow_FloatTensor:$result, OneFlow_BoolTensor:$mask);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = OneFlow_ElementwiseSbp<>.definition;
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWNNOPS_TD
