//===- RankLoweringInterface.td - Per-rank actor layouts ---*- tablegen -*-===//
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
    op's own attributes: where the rank's pieces sit in the logical
    tensors (a source's slice, a collective's group and axes, a gather's
    row range, a split mean's divisor; docs/multi-rank-plans.md), as one
    of the typed actor layouts of the oneflow_actor dialect
    (include/OneFlowDialect/Actor/ActorLayouts.td). oneflow-lower-to-actor-
    graph asks every op on every rank and puts the layout on the actor;
    plan export writes it as the plan's layout message of the same kind.
    An op without this interface needs none. The rules of the oneflow ops
    are external models (registerOneFlowExternalModels); a plugin's op
    attaches its own.
  }];
  let methods = [
    InterfaceMethod<[{
        Returns the layout of the actor of rank `where.rank` (a
        `#oneflow_actor` layout attribute), or null when it needs none (the
        op runs on one device). May rewrite in `attrs` (the op's own
        attributes, as the actor will carry them) those whose value is the
        rank's piece of a logical value: a constant's elements.
      }],
      "::mlir::Attribute", "getRankLayout",
      (ins "const ::mlir::oneflow::RankPosition &":$where,
           "::mlir::NamedAttrList &":$attrs)>
  ];
}

#endif // ONEFLOWDIALECT_INTERFACES_RANKLOWERINGINTERFACE_TD
