//===- Passes.td - OneFlow passes --------------------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every flag starts with `oneflow-` (test-only passes: `test-oneflow-`).
// Defs end in `Pass`; each lives in a file named without the suffix.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_PASSES_TD
#define ONEFLOWDIALECT_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

def InferShapesPass : Pass<"oneflow-infer-shapes", "::mlir::func::FuncOp"> {
  let summary = "Refine dynamic result dimensions from the ops' shape rules";
  let description = [{
    Walks a function in order and replaces every result dimension written
    as `?` by the size the op's shape inference gives, keeping the result's
    layout encoding. Reshapes with a single unknown dimension get it from
    the element count. The function's result types follow its returns.
    Inputs written with unknown dimensions, or programs whose shapes cannot
    be inferred, are reported at the op that fails.

    ```mlir
    %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<?x?xf32>
    // becomes
    %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x2xf32>) -> tensor<8x2xf32>
    ```
  }];
}

#endif // ONEFLOWDIALECT_TRANSFORMS_PASSES_TD
