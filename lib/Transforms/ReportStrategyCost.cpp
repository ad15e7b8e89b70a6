//===- ReportStrategyCost.cpp - Price a laid-out training step ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

namespace mlir::oneflow {
#define GEN_PASS_DEF_REPORTSTRATEGYCOSTPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

namespace {
struct ReportStrategyCostPass
    : public mlir::oneflow::impl::ReportStrategyCostPassBase<
          ReportStrategyCostPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    std::string error;
    FailureOr<ClusterDesc> loaded = ClusterDesc::load(cluster, error);
    if (failed(loaded)) {
      func.emitError() << error;
      return signalPassFailure();
    }
    ClusterDesc clusterDesc = *loaded;
    // The placement: every laid-out value must be on the first one.
    PlacementAttr placement;
    WalkResult walked = func.walk([&](Operation *op) {
      if (isa<OutputOp>(op))
        return WalkResult::advance();
      for (Value result : op->getResults()) {
        if (!isa<RankedTensorType>(result.getType()))
          continue;
        GlobalAttr layout = getGlobalEncoding(result.getType());
        if (!layout) {
          op->emitError() << "oneflow-report-strategy-cost: result "
                          << cast<OpResult>(result).getResultNumber()
                          << " has no layout; run oneflow-sbp-propagation "
                             "first";
          return WalkResult::interrupt();
        }
        if (!placement)
          placement = layout.getPlacement();
        if (layout.getPlacement() != placement) {
          op->emitError() << "oneflow-report-strategy-cost: result on "
                          << layout.getPlacement()
                          << ", but the step is priced on one placement, "
                          << placement;
          return WalkResult::interrupt();
        }
      }
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();
    if (!placement)
      return;
    FailureOr<std::unique_ptr<ParallelProblem>> problem =
        ParallelProblem::build(func, placement, clusterDesc, error);
    if (failed(problem)) {
      func.emitError() << "oneflow-report-strategy-cost: " << error;
      return signalPassFailure();
    }
    // The layouts leave each op its one signature (or signatures that
    // differ in nothing the model sees): the first.
    SmallVector<unsigned> assignment((*problem)->getNodes().size(), 0);
    llvm::raw_ostream &os = llvm::outs();
    os << "oneflow-report-strategy-cost: @" << func.getName() << " on ["
       << llvm::join(
              llvm::map_range(placement.getMesh(),
                              [](int64_t d) { return std::to_string(d); }),
              ", ")
       << "]\n";
    printCostHeader(os);
    printCostRow(os, "given", (*problem)->evaluate(assignment));
    if (perOp)
      printOpCosts(**problem, assignment, os);
  }
};
} // namespace
