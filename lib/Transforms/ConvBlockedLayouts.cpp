//===- ConvBlockedLayouts.cpp - Blocked layouts between fused convolutions ===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A conv2d_bn whose result only feeds other conv2d_bns as their `x` writes
// it in the blocked layout those convolutions compute in (nChw16c or nChw8c,
// as the running machine's oneDNN prefers: the plan does not say), and
// they read it as it is: the reorders to NCHW and back disappear.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#define DEBUG_TYPE "oneflow-conv-blocked-layouts"

namespace mlir::oneflow {
#define GEN_PASS_DEF_CONVBLOCKEDLAYOUTSPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// Whether the CPU kernel of `op` computes blocked: one group, input
/// channels and filters in multiples of 16 (lib/Runtime/Kernels/Cpu's
/// convDesc makes the same choice).
static bool computesBlocked(Conv2DBnOp op) {
  auto x = cast<RankedTensorType>(op.getX().getType());
  auto y = cast<RankedTensorType>(op.getType());
  if (x.getEncoding() || y.getEncoding() || op.getGroups() != 1)
    return false;
  int64_t channels = x.getDimSize(1), filters = y.getDimSize(1);
  return !ShapedType::isDynamic(channels) && !ShapedType::isDynamic(filters) &&
         channels > 0 && channels % 16 == 0 && filters > 0 &&
         filters % 16 == 0;
}

namespace {

struct ConvBlockedLayoutsPass
    : public mlir::oneflow::impl::ConvBlockedLayoutsPassBase<
          ConvBlockedLayoutsPass> {
  using Base::Base;

  void runOnOperation() override {
    getOperation().walk([](Conv2DBnOp producer) {
      Value result = producer.getResult();
      if (result.use_empty() || !computesBlocked(producer))
        return;
      SmallVector<Conv2DBnOp> consumers;
      for (OpOperand &use : result.getUses()) {
        auto consumer = dyn_cast<Conv2DBnOp>(use.getOwner());
        if (!consumer || use.getOperandNumber() != 0 ||
            !computesBlocked(consumer))
          return;
        consumers.push_back(consumer);
      }
      producer.setBlockedResult(true);
      for (Conv2DBnOp consumer : consumers)
        consumer.setBlockedX(true);
    });
  }
};

} // namespace
