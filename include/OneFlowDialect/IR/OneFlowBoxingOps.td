//===- OneFlowBoxingOps.td - Layout changes and collectives -*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// `oneflow.boxing` changes a global tensor's layout; `oneflow-lower-boxing`
// turns it into the step ops below, each of which changes the SBP of one
// mesh axis on one placement (or, for `oneflow.transfer`, moves data to
// another placement). docs/multi-rank-plans.md is the contract with the
// runtime. Shapes stay logical: a step changes only the type's encoding.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWBOXINGOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWBOXINGOPS_TD

include "OneFlowDialect/IR/OneFlowOpBase.td"

def OneFlow_BoxingOp : OneFlow_Op<"boxing", [Pure]> {
  let summary = "changes the layout (placement and nd-SBP) of a global tensor";
  let description = [{
    Any layout to any other, for the same logical tensor: operand and
    result have the same shape and element type, and both carry a
    `#oneflow.global` encoding. `oneflow-lower-boxing` replaces it by
    collectives, local slices and transfers.

    ```mlir
    %y = oneflow.boxing %x : tensor<8x4xf32, #oneflow.global<#cpu4, [P]>>
                          -> tensor<8x4xf32, #oneflow.global<#cpu4, [S(0)]>>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

// A step that changes the SBP of mesh axis `mesh_axis` only, on one
// placement, from `fromSbp` to `toSbp` (text for the documentation).
class OneFlow_BoxingStepOp<string mnemonic, string fromSbp, string toSbp,
                           string runtime>
    : OneFlow_Op<mnemonic, [Pure]> {
  let summary = fromSbp # " -> " # toSbp # " on one mesh axis: " # runtime;
  let description = [{
    Changes the SBP of mesh axis `mesh_axis` from }] # fromSbp # [{ to }]
    # toSbp # [{ in each axis group (the ranks whose mesh coordinates agree
    on every other axis) and leaves the placement and the other axes as
    they are. A split it makes or removes must not be on a tensor axis that
    a later mesh axis also splits (later axes subdivide the range earlier
    ones leave, so the group's pieces would not tile one range).

    ```mlir
    %y = oneflow.}] # mnemonic # [{ %x {mesh_axis = 0} : T -> U
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, I64Attr:$mesh_axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def OneFlow_AllReduceOp
    : OneFlow_BoxingStepOp<"all_reduce", "P", "B", "all-reduce">;
def OneFlow_ReduceScatterOp
    : OneFlow_BoxingStepOp<"reduce_scatter", "P", "S(i)",
                           "reduce-scatter in balanced chunks along i">;
def OneFlow_AllGatherOp
    : OneFlow_BoxingStepOp<"all_gather", "S(i)", "B", "all-gather along i">;
def OneFlow_AllToAllOp
    : OneFlow_BoxingStepOp<"all_to_all", "S(i)", "S(j)", "all-to-all">;
def OneFlow_LocalSliceOp
    : OneFlow_BoxingStepOp<"local_slice", "B", "S(i)",
                           "each rank keeps its piece">;
def OneFlow_ToPartialOp
    : OneFlow_BoxingStepOp<"to_partial", "B or S(i)", "P",
                           "zeros except the rank's own contribution "
                           "(from B: the group's first rank keeps it all)">;

def OneFlow_AccumulateOp : OneFlow_Op<"accumulate", [Pure]> {
  let summary = "P -> B on the micro-batch mesh axis: a sum over a step";
  let description = [{
    In a program split into micro-batches (`oneflow.micro_batches` on its
    function, see oneflow-apply-strategy), mesh axis 0 of every placement
    is time: its coordinate is the micro-batch, not a device. This is the
    all-reduce over that axis: it fires once per micro-batch, adds its
    operand into its result, and writes the result once per step, the sum
    over the step's micro-batches (gradients, the loss). Only the other
    mesh axes are devices.

    ```mlir
    %g = oneflow.accumulate %x {mesh_axis = 0}
        : tensor<64xf32, #oneflow.global<#cpu_micro4x2, [P, P]>>
       -> tensor<64xf32, #oneflow.global<#cpu_micro4x2, [B, P]>>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x, I64Attr:$mesh_axis);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

def OneFlow_TransferOp : OneFlow_Op<"transfer", [Pure]> {
  let summary = "moves a global tensor to another placement";
  let description = [{
    From any layout on one placement to a layout without P on another (or
    the same) placement: each rank of the destination receives the parts
    of its piece that ranks of the source hold (send/recv of slice
    intersections). A partial source is summed on the way.

    ```mlir
    %y = oneflow.transfer %x : tensor<8x4xf32, #oneflow.global<#cpu2, [S(0)]>>
                            -> tensor<8x4xf32, #oneflow.global<#cpu3, [B]>>
    ```
  }];
  let arguments = (ins OneFlow_Tensor:$x);
  let results = (outs OneFlow_Tensor:$result);
  let assemblyFormat = "$x attr-dict `:` type($x) `->` type($result)";
  let hasVerifier = 1;
}

#endif // ONEFLOWDIALECT_IR_ONEFLOWBOXINGOPS_TD
