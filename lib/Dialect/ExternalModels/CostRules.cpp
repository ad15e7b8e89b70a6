//===- CostRules.cpp - CostInterface of the oneflow ops -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every op of the dialect gets CostInterface as an external model: matrix
// products and convolutions count their multiply-adds; every other op is
// bound by memory and counts one operation per result element. Bytes are
// those of every operand and result. Unknown dimensions count as 1.
//
//===----------------------------------------------------------------------===//

#include "GradientBuilder.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::oneflow;

/// Elements of `type`, unknown dimensions counting as 1; 0 for non-tensors.
static double elementsOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  double n = 1;
  for (int64_t dim : tensor.getShape())
    n *= ShapedType::isDynamic(dim) ? 1 : dim;
  return n;
}

static double bytesOf(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return 0;
  return elementsOf(type) *
         std::max<int64_t>(1, tensor.getElementTypeBitWidth() / 8);
}

/// The size of the contracted axis of a matrix product's `a` operand.
template <typename OpTy> static double contractionSize(OpTy op) {
  auto a = cast<RankedTensorType>(op.getA().getType());
  int64_t k = a.getDimSize(a.getRank() - (op.getTransposeA() ? 2 : 1));
  return ShapedType::isDynamic(k) ? 1 : k;
}

static double computeFlops(Operation *op) {
  return llvm::TypeSwitch<Operation *, double>(op)
      .Case<MatmulOp, BatchMatmulOp>([](auto product) {
        return 2 * elementsOf(product.getType()) * contractionSize(product);
      })
      .Case([](Conv2DOp conv) {
        // Each output element sums (C / groups) * KH * KW products.
        auto weight = cast<RankedTensorType>(conv.getWeight().getType());
        double window = elementsOf(weight) /
                        std::max<int64_t>(1, weight.getShape().front());
        return 2 * elementsOf(conv.getType()) * window;
      })
      .Default([](Operation *other) {
        double n = 0;
        for (Type type : other->getResultTypes())
          n += elementsOf(type);
        return n;
      });
}

namespace {
/// The cost rule every op of the dialect gets.
template <typename OpTy>
struct OpCostModel
    : public CostInterface::ExternalModel<OpCostModel<OpTy>, OpTy> {
  double getComputeFlops(Operation *op) const { return computeFlops(op); }
  double getMemoryBytes(Operation *op) const {
    double bytes = 0;
    for (Type type : op->getOperandTypes())
      bytes += bytesOf(type);
    for (Type type : op->getResultTypes())
      bytes += bytesOf(type);
    return bytes;
  }
};
} // namespace

template <typename... OpTys>
static void attachCostModels(MLIRContext &context) {
  (OpTys::template attachInterface<OpCostModel<OpTys>>(context), ...);
}

void mlir::oneflow::attachCostInterfaceModels(MLIRContext &context) {
  attachCostModels<
#define GET_OP_LIST
#include "OneFlowDialect/IR/OneFlowOps.cpp.inc"
      >(context);
}
