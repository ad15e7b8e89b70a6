//===- OneFlowOps.h - OneFlow ops -------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWOPS_H
#define ONEFLOWDIALECT_IR_ONEFLOWOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowTypeUtils.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"

namespace mlir::oneflow {

/// The most bytes one tensor may hold (2^48).
constexpr int64_t kMaxTensorBytes = int64_t(1) << 48;

/// The byte size of a static-shaped `type`, or nullopt when it overflows or
/// exceeds kMaxTensorBytes.
std::optional<int64_t> checkedTensorBytes(RankedTensorType type);

/// Fails, naming the result, when a static-shaped result tensor of `op`
/// has more than kMaxTensorBytes bytes.
LogicalResult verifyBoundedSizes(Operation *op);

template <typename ConcreteType>
class BoundedSizes : public OpTrait::TraitBase<ConcreteType, BoundedSizes> {
public:
  static LogicalResult verifyTrait(Operation *op) {
    return verifyBoundedSizes(op);
  }
};

} // namespace mlir::oneflow

#define GET_OP_CLASSES
#include "OneFlowDialect/IR/OneFlowOps.h.inc"

namespace mlir::oneflow {
/// The variable whose value `value` is, possibly converted by casts (the
/// bf16 copy of a weight that oneflow-mixed-precision makes), or null.
VariableOp getCastVariable(Value value);
} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_IR_ONEFLOWOPS_H
