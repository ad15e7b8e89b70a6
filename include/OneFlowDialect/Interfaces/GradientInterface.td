//===- GradientInterface.td - Backward ops of an op --------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_TD
#define ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_TD

include "mlir/IR/OpBase.td"

def OneFlow_GradientInterface : OpInterface<"GradientInterface"> {
  let cppNamespace = "::mlir::oneflow";
  let description = [{
    An op's gradient rule: given the gradients of the loss with respect to
    the op's results, build the ops that compute the gradients with respect
    to its operands. Autodiff calls it on the logical graph, before SBP
    propagation, so that backward layouts are derived like forward ones. An
    op without this interface has no gradient rule: autodiff reports it by
    name when a gradient has to flow through it.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at the builder's insertion point, the gradient of every
        operand from `resultGrads` (one per result; a null value means that
        result does not reach the loss and its gradient is zero). Appends
        one value per operand to `operandGrads`, null for operands that
        take no gradient (integer labels, indices, masks).
      }],
      "::llvm::LogicalResult", "buildGradient",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$resultGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandGrads)>
  ];
}

#endif // ONEFLOWDIALECT_INTERFACES_GRADIENTINTERFACE_TD
