//===- OneFlowRecurrentOps.td - Recurrent layers ------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A recurrent layer over a whole sequence as one op, in the terms of
// oneDNN's RNN primitives (its CPU kernel), and its gradient.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWRECURRENTOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWRECURRENTOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

def OneFlow_RnnOp : OneFlow_InferredOp<"rnn", [Pure, OneFlow_HasSbp]> {
  let summary = "one recurrent layer over a sequence: RNN, LSTM or GRU";
  let description = [{
    Runs `cell` over the T steps of `x` [T, N, I] from the state `h0`
    (and LSTM's `c0`) [D, N, H], in `direction` ("forward", "reverse" or
    "bidirectional", D = 2, the two directions' outputs side by side).
    `y` [T, N, D H] is every step's H, `hn` (and LSTM's `cn`) [D, N, H]
    the last state of each direction.

    | cell        | gates G | step                                         |
    |-------------|---------|----------------------------------------------|
    | rnn_tanh, rnn_relu, rnn_sigmoid | 1 | H = f(W x + R H + b)       |
    | lstm        | 4 i f c o | i, f, o = sigmoid(.), c~ = tanh(.);      |
    |             |         | C = f C + i c~, H = o tanh(C)                |
    | gru         | 3 u r o | u, r = sigmoid(.); o = tanh(W x + R (r H) + b)|
    | lbr_gru     | 3 u r o | o = tanh(W x + b_o + r (R H + b_r)) (linear  |
    |             |         | before reset; b has a 4th gate, b_r)         |
    |             |         | H = u H + (1 - u) o (both GRUs)              |

    `w` [D, G, H, I] and `r` [D, G, H, H] hold each gate's weights in the
    gate order above (oneDNN's: ONNX's LSTM order i o f c differs), `b`
    [D, G, H] their summed biases ([D, 4, H] for lbr_gru). The batch N is
    parallel; the gradient is `rnn_grad`.

    ```mlir
    %y, %hn, %cn = oneflow.rnn %x, %w, %r, %b, %h0, %c0 {cell = "lstm"}
        : (tensor<5x2x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x4xf32>,
           tensor<1x4x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
        -> (tensor<5x2x4xf32>, tensor<1x2x4xf32>, tensor<1x2x4xf32>)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$w,
                       OneFlow_FloatTensor:$r, OneFlow_FloatTensor:$b,
                       OneFlow_FloatTensor:$h0,
                       Optional<OneFlow_FloatTensor>:$c0, StrAttr:$cell,
                       DefaultValuedStrAttr<StrAttr, "forward">:$direction);
  let results = (outs OneFlow_FloatTensor:$y, OneFlow_FloatTensor:$hn,
                      Optional<OneFlow_FloatTensor>:$cn);
  let assemblyFormat = [{
    $x `,` $w `,` $r `,` $b `,` $h0 (`,` $c0^)? attr-dict `:`
    functional-type(operands, results)
  }];
}

def OneFlow_RnnGradOp
    : OneFlow_InferredOp<"rnn_grad", [Pure, OneFlow_HasSbp,
                                      AttrSizedOperandSegments]> {
  let summary = "gradient of rnn";
  let description = [{
    The rnn's operands, then the gradients of its results `dy`, `dhn` (and
    LSTM's `dcn`), give the gradients of its operands: `dx`, `dw`, `dr`,
    `db`, `dh0` (and `dc0`). The CPU kernel runs the forward pass again for
    what the backward pass reads (oneDNN's workspace), then backpropagates
    through time. Split along the batch, the weight gradients are partial
    sums.

    ```mlir
    %dx, %dw, %dr, %db, %dh0 = oneflow.rnn_grad %x, %w, %r, %b, %h0
        grads(%dy, %dhn) {cell = "gru"} : (...) -> (...)
    ```
  }];
  let arguments = (ins OneFlow_FloatTensor:$x, OneFlow_FloatTensor:$w,
                       OneFlow_FloatTensor:$r, OneFlow_FloatTensor:$b,
                       OneFlow_FloatTensor:$h0,
                       Optional<OneFlow_FloatTensor>:$c0,
                       OneFlow_FloatTensor:$dy, OneFlow_FloatTensor:$dhn,
                       Optional<OneFlow_FloatTensor>:$dcn, StrAttr:$cell,
                       DefaultValuedStrAttr<StrAttr, "forward">:$direction);
  let results = (outs OneFlow_FloatTensor:$dx, OneFlow_FloatTensor:$dw,
                      OneFlow_FloatTensor:$dr, OneFlow_FloatTensor:$db,
                      OneFlow_FloatTensor:$dh0,
                      Optional<OneFlow_FloatTensor>:$dc0);
  let assemblyFormat = [{
    $x `,` $w `,` $r `,` $b `,` $h0 (`,` $c0^)? `grads` `(` $dy `,` $dhn
    (`,` $dcn^)? `)` attr-dict `:` functional-type(operands, results)
  }];
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWRECURRENTOPS_TD
