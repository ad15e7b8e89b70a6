//===- CostInterface.td - Compute cost of an op ------------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_TD
#define ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_TD

include "mlir/IR/OpBase.td"

def OneFlow_CostInterface : OpInterface<"CostInterface"> {
  let cppNamespace = "::mlir::oneflow";
  let description = [{
    What an op costs to compute on one device for its logical shapes: the
    cost model divides these by how the chosen SBP signature splits the
    work, and adds communication from the boxing it needs; the search's
    memory per device adds the workspace to the results' pieces. An op
    without this interface has no cost rule: propagation and the search
    report it by name.
  }];
  let methods = [
    InterfaceMethod<[{
        Floating-point operations to compute the op once on the logical
        shapes (a multiply-add counts two).
      }],
      "double", "getComputeFlops", (ins)>,
    InterfaceMethod<[{
        Bytes the op reads and writes on the logical shapes.
      }],
      "double", "getMemoryBytes", (ins)>,
    InterfaceMethod<[{
        Bytes the op's kernel keeps besides its operands and results (a
        reordered or broadcast copy of an operand, a forward pass a
        backward kernel runs again, scratch for a transpose), on the
        logical shapes; the cost model divides them like the work and
        counts them for as long as the program runs, since kernels keep
        their buffers between steps. 0 when the kernel reads and writes
        only its operands and results.
      }],
      "double", "getWorkspaceBytes", (ins)>
  ];
}

#endif // ONEFLOWDIALECT_INTERFACES_COSTINTERFACE_TD
