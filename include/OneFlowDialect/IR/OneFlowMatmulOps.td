//===- OneFlowMatmulOps.td - Matrix products ---------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWMATMULOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWMATMULOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

def OneFlow_MatmulOp : OneFlow_InferredOp<"matmul", [Pure, OneFlow_HasSbp]> {
  let summary = "2-D matrix product, with optional transposes";
  let description = [{
    `a` is (m, k), or (k, m) with `transpose_a`; `b` is (k, n), or (n, k)
    with `transpose_b`; the result is (m, n). `constant_b` (set by
    `oneflow-pack-constant-weights`) says that `b` is a variable no op
    writes: the CPU kernel packs it into oneDNN's preferred layout once
    instead of reading the row-major matrix at every step.

    ```mlir
    %y = oneflow.matmul %x, %w {transpose_b}
        : (tensor<64x784xf32>, tensor<128x784xf32>) -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$a, OneFlow_FloatTensor:$b,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$constant_b);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

def OneFlow_MatmulBiasOp
    : OneFlow_InferredOp<"matmul_bias", [Pure, OneFlow_HasSbp]> {
  let summary = "matmul with a bias added to every row of its result";
  let description = [{
    `oneflow.matmul` of `a` and `b` plus `bias` (n) on every row: the GEMM
    starts from the bias (OpenBLAS with beta = 1 over rows filled with it,
    oneDNN's matmul bias, cuBLASLt's bias epilogue) instead of a second
    pass over the result. Built by `oneflow-fuse-matmul-bias` after layouts
    are chosen, never by gradient rules: the contraction axis is never
    split (a partial product cannot take the bias before its sum), and the
    bias follows the result's columns.

    ```mlir
    %y = oneflow.matmul_bias %x, %w, %b
        : (tensor<64x784xf32>, tensor<784x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$a, OneFlow_FloatTensor:$b,
                       OneFlow_FloatTensor:$bias,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$constant_b);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = "$a `,` $b `,` $bias attr-dict `:` functional-type(operands, results)";
}

def OneFlow_BatchMatmulOp
    : OneFlow_InferredOp<"batch_matmul", [Pure, OneFlow_HasSbp]> {
  let summary = "batched matrix product over leading (broadcast) axes";
  let description = [{
    The last two axes of each operand are matrices as in `oneflow.matmul`;
    the leading axes are batch axes, broadcast numpy-style (an operand of
    rank 2 is shared by every batch). `alpha` (1 when absent, finite)
    scales every product, as BLAS's alpha does: attention's 1 / sqrt(d)
    costs no pass of its own (`oneflow-fold-matmul-scale` sets it).

    ```mlir
    %s = oneflow.batch_matmul %q, %k {transpose_b, alpha = 0.125}
        : (tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>) -> tensor<2x4x16x16xf32>
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$a, OneFlow_FloatTensor:$b,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       OptionalAttr<F64Attr>:$alpha);
  let results = (outs OneFlow_FloatTensor:$result);
  let assemblyFormat = "$a `,` $b attr-dict `:` functional-type(operands, results)";
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWMATMULOPS_TD
