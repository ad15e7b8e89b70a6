//===- SbpInterface.h - SBP signatures of an op -----------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_SBPINTERFACE_H
#define ONEFLOWDIALECT_INTERFACES_SBPINTERFACE_H

#include "mlir/IR/OpDefinition.h"

#include "OneFlowDialect/IR/OneFlowAttrs.h"

namespace mlir::oneflow {

/// One candidate way to run an op over one mesh axis: an SBP per operand
/// and per result.
struct SbpSignature {
  llvm::SmallVector<SbpAttr> operands;
  llvm::SmallVector<SbpAttr> results;
};

} // namespace mlir::oneflow

#include "OneFlowDialect/Interfaces/SbpInterface.h.inc"

#endif // ONEFLOWDIALECT_INTERFACES_SBPINTERFACE_H
