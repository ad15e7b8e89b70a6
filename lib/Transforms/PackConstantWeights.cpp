//===- PackConstantWeights.cpp - Matmul weights that never change ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A matmul (or matmul_bias) whose `b` is a variable nothing writes gets
// `constant_b`: its kernel packs `b` into oneDNN's preferred layout once.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define DEBUG_TYPE "oneflow-pack-constant-weights"

namespace mlir::oneflow {
#define GEN_PASS_DEF_PACKCONSTANTWEIGHTSPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// Whether `value` is a variable's value that no user writes in place.
static bool isConstantVariable(Value value) {
  if (!value.getDefiningOp<VariableOp>())
    return false;
  return llvm::none_of(value.getUsers(), [&](Operation *user) {
    if (isa<OutputOp>(user))
      return false;
    auto effects = dyn_cast<MemoryEffectOpInterface>(user);
    // An op that states no effects may do anything.
    return !effects ||
           effects.getEffectOnValue<MemoryEffects::Write>(value).has_value();
  });
}

namespace {

struct PackConstantWeightsPass
    : public mlir::oneflow::impl::PackConstantWeightsPassBase<
          PackConstantWeightsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](Operation *op) {
      if (auto matmul = dyn_cast<MatmulOp>(op);
          matmul && isConstantVariable(matmul.getB()))
        matmul.setConstantB(true);
      if (auto matmul = dyn_cast<MatmulBiasOp>(op);
          matmul && isConstantVariable(matmul.getB()))
        matmul.setConstantB(true);
    });
  }
};

} // namespace
