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

#endif // ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEOPS_TD
