//===- FuseMatmulBias.cpp - A linear layer as one op ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// matmul followed by the add of a per-column bias becomes matmul_bias once
// the layouts are fixed (see the pass description).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "oneflow-fuse-matmul-bias"

namespace mlir::oneflow {
#define GEN_PASS_DEF_FUSEMATMULBIASPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The matmul that `add` can take in with `bias`, or null.
static MatmulOp fusibleMatmul(AddOp add, Value &bias) {
  for (unsigned i : {0u, 1u}) {
    auto matmul = add->getOperand(i).getDefiningOp<MatmulOp>();
    bias = add->getOperand(1 - i);
    if (!matmul || !matmul->hasOneUse() || matmul.getType() != add.getType() ||
        (getGlobalEncoding(add.getType()) &&
         hasPartial(getGlobalEncoding(add.getType()))) ||
        matmul->getDiscardableAttrDictionary() !=
            add->getDiscardableAttrDictionary())
      continue;
    RankedTensorType result = stripEncoding(add.getType());
    RankedTensorType vector = stripEncoding(bias.getType());
    RankedTensorType a = stripEncoding(matmul.getA().getType());
    int64_t k = a.getDimSize(matmul.getTransposeA() ? 0 : 1);
    if (vector.getRank() == 1 && result.hasStaticShape() &&
        vector.getDimSize(0) == result.getDimSize(1) &&
        vector.getElementType() == result.getElementType() && k != 0)
      return matmul;
  }
  return nullptr;
}

namespace {

struct FuseMatmulBiasPass
    : public mlir::oneflow::impl::FuseMatmulBiasPassBase<FuseMatmulBiasPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<AddOp> adds;
    getOperation().walk([&](AddOp add) { adds.push_back(add); });
    for (AddOp add : adds) {
      Value bias;
      MatmulOp matmul = fusibleMatmul(add, bias);
      if (!matmul)
        continue;
      OpBuilder b(add);
      auto fused = MatmulBiasOp::create(
          b, matmul.getLoc(), add.getType(), matmul.getA(), matmul.getB(), bias,
          matmul.getTransposeAAttr(), matmul.getTransposeBAttr(),
          matmul.getConstantBAttr());
      fused->setDiscardableAttrs(add->getDiscardableAttrDictionary());
      add.replaceAllUsesWith(fused.getResult());
      add.erase();
      matmul.erase();
    }
  }
};

} // namespace
