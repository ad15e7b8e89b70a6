//===- ExamplePasses.td - A pass from a research plugin ----*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEPASSES_TD
#define ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEPASSES_TD

include "mlir/Pass/PassBase.td"

def FuseSwishPass : Pass<"oneflow-example-fuse-swish"> {
  let summary = "Fuse oneflow.mul(x, oneflow.sigmoid(x)) into ofexample.swish";
  let dependentDialects = ["::ofexample::ExampleDialect"];
}

#endif // ONEFLOW_EXAMPLES_PLUGIN_EXAMPLEPASSES_TD
