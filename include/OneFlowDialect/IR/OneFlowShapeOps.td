//===- OneFlowShapeOps.td - Layout, indexing, reductions ---*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWSHAPEOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWSHAPEOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

def OneFlow_ReshapeOp : OneFlow_Op<"reshape", [Pure, OneFlow_HasSbp]> {
  let summary = "same elements, row-major, in the result type's shape";
  let description = [{
    ```mlir
    %y = oneflow.reshape %x : (tensor<8x4x4xf32>) -> tensor<8x16xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def OneFlow_TransposeOp
    : OneFlow_InferredOp<"transpose", [Pure, OneFlow_HasSbp]> {
  let summary = "permutes axes: result axis i is operand axis perm[i]";
  let description = [{
    ```mlir
    %y = oneflow.transpose %x {perm = array<i64: 0, 2, 1>}
        : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$perm);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def OneFlow_FlattenOp : OneFlow_InferredOp<"flatten", [Pure, OneFlow_HasSbp]> {
  let summary = "merges axes start_dim..end_dim into one";
  let description = [{
    ```mlir
    %y = oneflow.flatten %x {start_dim = 1 : i64}
        : (tensor<8x512x1x1xf32>) -> tensor<8x512xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x,
                       DefaultValuedAttr<I64Attr, "0">:$start_dim,
                       DefaultValuedAttr<I64Attr, "-1">:$end_dim);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}

def OneFlow_ConcatOp : OneFlow_InferredOp<"concat", [Pure, OneFlow_HasSbp]> {
  let summary = "joins tensors along an axis";
  let description = [{
    ```mlir
    %y = oneflow.concat %a, %b {axis = 1 : i64}
        : (tensor<4x2xf32>, tensor<4x3xf32>) -> tensor<4x5xf32>
    ```
  }];
  let arguments = (ins Variadic<OneFlow_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, results)";
  let hasFolder = 1;
}

def OneFlow_SliceOp : OneFlow_InferredOp<"slice", [Pure, OneFlow_HasSbp]> {
  let summary = "strided slice, one (start, end, step) per axis";
  let description = [{
    Python semantics: negative starts and ends count from the end, both are
    clamped to the axis, and `step` is positive.

    ```mlir
    %y = oneflow.slice %x {starts = array<i64: 0, 1>, ends = array<i64: 4, 8>, steps = array<i64: 1, 2>}
        : (tensor<4x8xf32>) -> tensor<4x4xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def OneFlow_GatherOp : OneFlow_InferredOp<"gather", [Pure, OneFlow_HasSbp]> {
  let summary = "picks slices of `x` along `axis` by index (embedding lookup)";
  let description = [{
    The result's shape is x's shape with axis `axis` replaced by the shape
    of `indices`. With `axis = 0` and a (vocab, hidden) table this is an
    embedding lookup.

    ```mlir
    %e = oneflow.gather %table, %ids {axis = 0 : i64}
        : (tensor<1000x64xf32>, tensor<8x16xi64>) -> tensor<8x16x64xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, OneFlow_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x `,` $indices attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def OneFlow_GatherElementsOp
    : OneFlow_InferredOp<"gather_elements", [Pure, OneFlow_HasSbp]> {
  let summary = "picks elements of `x` along `axis` by index (ONNX GatherElements)";
  let description = [{
    `result[i0, ..., ik, ...] = x[i0, ..., indices[i0, ..., ik, ...], ...]`
    with the index replacing position k = `axis` (negative indices count
    from the end). `indices` has x's rank, and no larger size than x on the
    other axes; the result has the indices' shape (torch.gather).

    ```mlir
    %p = oneflow.gather_elements %logits, %labels {axis = 1 : i64}
        : (tensor<8x10xf32>, tensor<8x1xi64>) -> tensor<8x1xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, OneFlow_IndexTensor:$indices,
                       DefaultValuedAttr<I64Attr, "0">:$axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x `,` $indices attr-dict `:` functional-type(operands, results)";
}

class OneFlow_ReduceOp<string mnemonic, string desc>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    Reduces over `axes` (negative counts from the end); reduced axes are kept
    as size 1 with `keepdims`, dropped otherwise.

    ```mlir
    %s = oneflow.}] # mnemonic # [{ %x {axes = array<i64: 1>} : (tensor<8x16xf32>) -> tensor<8xf32>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::oneflow::inferReduce(location, getOperationName(),
          adaptor.getX().getType(), adaptor.getAxes(), adaptor.getKeepdims(),
          types);
    }
  }];
}

def OneFlow_ReduceSumOp : OneFlow_ReduceOp<"reduce_sum", "sum over axes">;
def OneFlow_ReduceMeanOp : OneFlow_ReduceOp<"reduce_mean", "mean over axes">;
def OneFlow_ReduceMaxOp : OneFlow_ReduceOp<"reduce_max", "maximum over axes">;
def OneFlow_ReduceSumSquareOp
    : OneFlow_ReduceOp<"reduce_sum_square", "sum of squares over axes"> {
  let description = [{
    The sum of `x * x` over `axes` (negative counts from the end), in one
    pass over `x` (ONNX's ReduceSumSquare; the squared norms of gradient
    clipping); reduced axes are kept as size 1 with `keepdims`, dropped
    otherwise. Float tensors only.

    SBP: a split reduced axis gives P (each rank squares its piece); a
    partial `x` is not (the square of a sum is not the sum of squares).

    ```mlir
    %s = oneflow.reduce_sum_square %g {axes = array<i64: 0, 1>}
        : (tensor<4x4xf32>) -> tensor<f32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, DenseI64ArrayAttr:$axes,
                       UnitAttr:$keepdims);
}

class OneFlow_ArgReduceOp<string mnemonic, string desc>
    : OneFlow_InferredOp<mnemonic, [Pure, OneFlow_HasSbp]> {
  let summary = desc;
  let description = [{
    The i64 index along `axis` (negative counts from the end) of the
    extreme element; of the first among equals, or of the last with
    `select_last_index`. The axis is kept as size 1 with `keepdims`,
    dropped otherwise. Not differentiable.

    ```mlir
    %i = oneflow.}] # mnemonic # [{ %x {axis = 1 : i64} : (tensor<8x16xf32>) -> tensor<8xi64>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, DefaultValuedAttr<I64Attr, "0">:$axis,
                       UnitAttr:$keepdims, UnitAttr:$select_last_index);
  let results = (outs OneFlow_IndexTensor:$result);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
  let extraClassDefinition = [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *context, std::optional<::mlir::Location> location,
        Adaptor adaptor, ::llvm::SmallVectorImpl<::mlir::Type> &types) {
      return ::mlir::oneflow::inferArgReduce(location, getOperationName(),
          adaptor.getX().getType(), adaptor.getAxis(), adaptor.getKeepdims(),
          types);
    }
  }];
}

def OneFlow_ArgMaxOp : OneFlow_ArgReduceOp<"arg_max",
    "index of the maximum along an axis">;
def OneFlow_ArgMinOp : OneFlow_ArgReduceOp<"arg_min",
    "index of the minimum along an axis">;

def OneFlow_TopKOp : OneFlow_InferredOp<"top_k", [Pure, OneFlow_HasSbp]> {
  let summary = "the k largest (or smallest) elements along an axis, sorted";
  let description = [{
    `values` holds the k largest elements of each line of `x` along `axis`
    (the smallest with `smallest`), in descending (ascending) order, and
    `indices` their i64 positions; among equal elements the lower index
    comes first (ONNX TopK). SBP: the other axes are parallel, `axis` is
    never split. The gradient scatters the values' gradient back to the
    indices (gather_elements_grad).

    ```mlir
    %v, %i = oneflow.top_k %x {k = 3 : i64, axis = 1 : i64}
        : (tensor<8x16xf32>) -> (tensor<8x3xf32>, tensor<8x3xi64>)
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, I64Attr:$k,
                       DefaultValuedAttr<I64Attr, "-1">:$axis,
                       UnitAttr:$smallest);
  let results = (outs OneFlow_Tensor:$values, OneFlow_IndexTensor:$indices);
  let assemblyFormat = "$x attr-dict `:` functional-type(operands, results)";
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWSHAPEOPS_TD
