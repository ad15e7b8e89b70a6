//===- SbpInterface.td - SBP signatures of an op -----------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_SBPINTERFACE_TD
#define ONEFLOWDIALECT_INTERFACES_SBPINTERFACE_TD

include "mlir/IR/OpBase.td"

def OneFlow_SbpInterface : OpInterface<"SbpInterface"> {
  let cppNamespace = "::mlir::oneflow";
  let description = [{
    An op's candidate SBP signatures: the ways it can run when its operands
    and results are laid out over one axis of a device mesh. A signature
    gives one `#oneflow.sbp` per operand and per result; for example matmul
    (no transposes) offers `S(0), B -> S(0)`, `B, S(1) -> S(1)`,
    `S(1), S(0) -> P`, `P, B -> P` and `B, P -> P`.

    Candidates for an nd mesh are the Cartesian product of the 1-D lists
    over the mesh axes, filtered by the tensors' shapes; the all-broadcast
    signature is always legal and is added by the caller, so an op lists
    only its own. An op without this interface has no SBP rule: any pass
    that needs one reports the op by name.
  }];
  let methods = [
    InterfaceMethod<[{
        Appends to `signatures` the op's candidate signatures for one mesh
        axis of `meshAxisSize` devices, in the op's order of preference.
        Each signature has exactly one SBP per operand and one per result.
        The all-broadcast signature is implied and must not be listed.
      }],
      "void", "getSbpSignatures",
      (ins "int64_t":$meshAxisSize,
           "::llvm::SmallVectorImpl<::mlir::oneflow::SbpSignature> &":$signatures)>,
    InterfaceMethod<[{
        The operands, besides those the op writes in place (which always
        do), that keep the layout they come with: the op takes its other
        operands' layouts from them and they are never boxed (for
        find_nonfinite's `like`, the variable whose layout the gradient
        check reads its gradient in). None by default.
      }],
      "::llvm::SmallVector<unsigned>", "getLayoutKeepingOperands", (ins), [{}],
      /*defaultImplementation=*/[{ return {}; }]>
  ];
}

#endif // ONEFLOWDIALECT_INTERFACES_SBPINTERFACE_TD
