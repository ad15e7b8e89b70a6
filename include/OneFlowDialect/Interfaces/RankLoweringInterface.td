//===- RankLoweringInterface.td - Per-rank actor attributes --*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_TD
#define ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_TD

include "mlir/IR/OpBase.td"

def OneFlow_RankLoweringInterface : OpInterface<"RankLoweringInterface"> {
  let cppNamespace = "::mlir::oneflow";
  let description = [{
    What one rank's actor of an op needs beyond its local types and the
    op's own attributes: values that depend on where the rank's pieces sit
    in the logical tensors (a source's slice, a collective's group and axes,
    a gather's row range, a split mean's divisor;
    docs/multi-rank-plans.md). oneflow-lower-to-actor-graph asks every op
    on every rank; an op without this interface needs nothing. The rules
    of the oneflow ops are external models (registerOneFlowExternalModels).
  }];
  let methods = [
    InterfaceMethod<[{
        Adds to `attrs` (the op's attributes, as the actor will carry them)
        what the actor of rank `where.rank` needs.
      }],
      "void", "addRankAttrs",
      (ins "const ::mlir::oneflow::RankPosition &":$where,
           "::mlir::NamedAttrList &":$attrs)>
  ];
}

#endif // ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_TD
