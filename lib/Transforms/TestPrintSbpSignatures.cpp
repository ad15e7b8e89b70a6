//===- TestPrintSbpSignatures.cpp - Print the ops' SBP signatures ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/SbpInterface.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::oneflow {
#define GEN_PASS_DEF_TESTPRINTSBPSIGNATURESPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// Whether `op` handles tensors, and so needs an SBP rule.
static bool hasTensors(Operation *op) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  return llvm::any_of(op->getOperandTypes(), isTensor) ||
         llvm::any_of(op->getResultTypes(), isTensor);
}

namespace {

struct TestPrintSbpSignaturesPass
    : public mlir::oneflow::impl::TestPrintSbpSignaturesPassBase<
          TestPrintSbpSignaturesPass> {
  using Base::Base;

  void runOnOperation() override {
    if (meshAxisSize < 1) {
      getOperation().emitError() << "mesh-axis-size must be at least 1, got "
                                 << static_cast<int64_t>(meshAxisSize);
      return signalPassFailure();
    }
    WalkResult result = getOperation().walk([&](Operation *op) {
      if (isa<func::FuncOp, func::ReturnOp>(op))
        return WalkResult::advance();
      auto sbp = dyn_cast<SbpInterface>(op);
      if (!sbp) {
        if (!hasTensors(op))
          return WalkResult::advance();
        op->emitError() << "op '" << op->getName()
                        << "' has no SBP rule (SbpInterface)";
        return WalkResult::interrupt();
      }
      SmallVector<SbpSignature> signatures;
      sbp.getSbpSignatures(meshAxisSize, signatures);
      std::string text =
          signatures.empty()
              ? "none"
              : llvm::join(llvm::map_range(signatures, stringifySbpSignature),
                           " | ");
      op->emitRemark() << "sbp: " << text;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
