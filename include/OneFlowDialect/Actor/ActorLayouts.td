//===- ActorLayouts.td - Where an actor sits in a program --*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The typed per-rank layouts of actors: what one rank's actor of an op needs
// beyond its local types and the op's own attributes. The op's
// RankLoweringInterface returns one; oneflow-lower-to-actor-graph puts it on
// the actor; plan export writes it as the plan's layout message of the same
// name (lib/Runtime/Plan/plan.proto), which the runtime hands to kernels as
// ofrt::ActorLayout. docs/multi-rank-plans.md says what each one means.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ACTOR_ACTORLAYOUTS_TD
#define ONEFLOWDIALECT_ACTOR_ACTORLAYOUTS_TD

include "OneFlowDialect/Actor/ActorBase.td"
include "mlir/IR/CommonAttrConstraints.td"

class OneFlowActor_Layout<string name, string layoutMnemonic>
    : AttrDef<OneFlowActor_Dialect, name # "Layout"> {
  let mnemonic = layoutMnemonic;
  let assemblyFormat = "`<` struct(params) `>`";
}

def OneFlowActor_PieceLayout : OneFlowActor_Layout<"Piece", "piece"> {
  let summary = "where a rank's piece of a source, sink or random op sits";
  let description = [{
    The logical shape of the tensor and where the rank's piece begins in
    it; `micro_stride` moves the piece by that much per micro-batch;
    `zero`: the rank's piece of a partial-sum source holds zeros (its
    coordinate on a P axis is not 0).

    ```mlir
    #oneflow_actor.piece<logical_shape = array<i64: 8, 4>, begin = array<i64: 4, 0>>
    ```
  }];
  let parameters = (ins "::mlir::DenseI64ArrayAttr":$logical_shape,
                        "::mlir::DenseI64ArrayAttr":$begin,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr">:$micro_stride,
                        DefaultValuedParameter<"bool", "false">:$zero);
  let genVerifyDecl = 1;
}

def OneFlowActor_SinkLayout : OneFlowActor_Layout<"Sink", "sink"> {
  let summary = "a rank's piece of a program result, and how pieces combine";
  let description = [{
    `partial`: the pieces are partial sums, added; `primary`: this rank's
    copy is the one to use among replicas (coordinate 0 on B axes).
  }];
  let parameters = (ins "PieceLayoutAttr":$piece,
                        DefaultValuedParameter<"bool", "false">:$partial,
                        DefaultValuedParameter<"bool", "false">:$primary);
}

def OneFlowActor_CollectiveLayout
    : OneFlowActor_Layout<"Collective", "collective"> {
  let summary = "the group and axes of a collective on more than one rank";
  let description = [{
    `group`: the global ranks along the mesh axis that changes, in group
    order; `axis`: the split axis of a reduce_scatter's result or an
    all_gather's operand; `in_axis`, `out_axis`: an all_to_all's split axes
    of operand and result; `reduction`: how an all_reduce or
    reduce_scatter combines.
  }];
  let parameters = (ins "::mlir::DenseI64ArrayAttr":$group,
                        DefaultValuedParameter<"int64_t", "0">:$axis,
                        DefaultValuedParameter<"int64_t", "0">:$in_axis,
                        DefaultValuedParameter<"int64_t", "0">:$out_axis,
                        DefaultValuedParameter<"::mlir::oneflow::PartialReduction",
                            "::mlir::oneflow::PartialReduction::sum">:$reduction);
}

def OneFlowActor_TransferLayout : OneFlowActor_Layout<"Transfer", "transfer"> {
  let summary = "the boxes a rank of a oneflow.transfer sends and receives";
  let description = [{
    `group`: the sorted union of both placements' ranks; `sends` and
    `recvs`: flat records `[peer, tag, begin x rank, size x rank]`, the
    peer an index into `group`, the box relative to the rank's own piece;
    `reduce`: received boxes are added (a partial source).
  }];
  let parameters = (ins "::mlir::DenseI64ArrayAttr":$group,
                        "::mlir::DenseI64ArrayAttr":$sends,
                        "::mlir::DenseI64ArrayAttr":$recvs,
                        DefaultValuedParameter<"bool", "false">:$reduce);
}

def OneFlowActor_LocalBoxingLayout
    : OneFlowActor_Layout<"LocalBoxing", "local_boxing"> {
  let summary = "the box a local_slice keeps or a to_partial writes";
  let description = [{
    `begin`: the box's offset in the larger of operand and result;
    `micro_stride`: how it moves per micro-batch; `keep`: the rank keeps
    the value (a to_partial from B writes zeros on all ranks but one).
  }];
  let parameters = (ins "::mlir::DenseI64ArrayAttr":$begin,
                        OptionalParameter<"::mlir::DenseI64ArrayAttr">:$micro_stride,
                        DefaultValuedParameter<"bool", "false">:$keep);
}

def OneFlowActor_IndexRangeLayout
    : OneFlowActor_Layout<"IndexRange", "index_range"> {
  let summary = "the rows of a table split along its indexed axis";
  let description = [{
    The rank's piece holds rows [`begin`, `begin` + its size) of `limit`;
    indices outside it select nothing on this rank.
  }];
  let parameters = (ins "int64_t":$begin, "int64_t":$limit);
}

def OneFlowActor_DivisorLayout : OneFlowActor_Layout<"Divisor", "divisor"> {
  let summary = "the logical element count a mean over split axes divides by";
  let parameters = (ins "int64_t":$divisor);
}

/// The layouts an actor may carry.
def OneFlowActor_AnyLayout : AnyAttrOf<[
    OneFlowActor_PieceLayout, OneFlowActor_SinkLayout,
    OneFlowActor_CollectiveLayout, OneFlowActor_TransferLayout,
    OneFlowActor_LocalBoxingLayout, OneFlowActor_IndexRangeLayout,
    OneFlowActor_DivisorLayout]>;

#endif // ONEFLOWDIALECT_ACTOR_ACTORLAYOUTS_TD
