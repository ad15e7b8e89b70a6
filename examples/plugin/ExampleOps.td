//===- ExampleOps.td - A custom op from a research plugin --*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEOPS_TD
#define ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEOPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Example_Dialect : Dialect {
  let name = "ofexample";
  let cppNamespace = "::ofexample";
  let summary = "A custom-op dialect loaded into of-opt as a plugin";
}

def Example_SwishOp : Op<Example_Dialect, "swish",
    [Pure, SameOperandsAndResultType]> {
  let summary = "x * sigmoid(x), one fused op";
  let arguments = (ins AnyRankedTensor:$x);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

def Example_AddRowIndexOp : Op<Example_Dialect, "add_row_index",
    [Pure, SameOperandsAndResultType]> {
  let summary = "x + scale * i on row i: an op that needs its rank's place";
  let description = [{
    Adds `scale` times the row's index in the logical tensor (axis 0) to
    every element of the row, as a position encoding would. On a rank
    whose piece of a tensor split along axis 0 starts at row b, row r of
    the piece is row b + r: the op's RankLoweringInterface model returns
    the rank's rows as a `#oneflow_actor.index_range` layout, and the
    kernel reads them from its OpDesc (ExampleKernels.cpp), with no change
    to plan export or the runtime.

    ```mlir
    %y = ofexample.add_row_index %x {scale = 5.000000e-02 : f64} : tensor<16x32xf32>
    ```
  }];
  let arguments = (ins AnyRankedTensor:$x, F64Attr:$scale);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($result)";
}

#endif // ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEOPS_TD
