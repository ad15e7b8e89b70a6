//===- ReportBoxingCost.cpp - Print the predicted cost of each boxing -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#define DEBUG_TYPE "oneflow-report-boxing-cost"

namespace mlir::oneflow {
#define GEN_PASS_DEF_REPORTBOXINGCOSTPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

static std::string formatInt(int64_t value) { return std::to_string(value); }

/// `file:line:col` with the file's base name, a name location's name, or
/// the location as MLIR prints it.
static std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return llvm::formatv("{0}:{1}:{2}",
                         llvm::sys::path::filename(file.getFilename()),
                         file.getLine(), file.getColumn())
        .str();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  std::string text;
  llvm::raw_string_ostream os(text);
  loc.print(os);
  return text;
}

/// `cpu{0,1,2,3}:2x2`.
static std::string formatPlacement(PlacementAttr placement) {
  return llvm::formatv(
             "{0}{{{1}}:{2}", stringifyDeviceKind(placement.getDevice()),
             llvm::join(llvm::map_range(placement.getRanks(),
                                        formatInt),
                        ","),
             llvm::join(llvm::map_range(placement.getMesh(),
                                        formatInt),
                        "x"))
      .str();
}

/// `[P] -> [B] on cpu{0,1}:2`, naming both placements when they differ.
static std::string formatChange(GlobalAttr from, GlobalAttr to) {
  std::string text = stringifyNdSbp(from.getNdSbp());
  if (from.getPlacement() != to.getPlacement())
    text += " on " + formatPlacement(from.getPlacement());
  return text + " -> " + stringifyNdSbp(to.getNdSbp()) + " on " +
         formatPlacement(to.getPlacement());
}

/// `all_reduce@0`, or `transfer`.
static std::string formatStep(const BoxingStep &step) {
  std::string text = stringifyBoxingKind(step.kind).str();
  if (step.kind != BoxingKind::transfer)
    text += "@" + std::to_string(step.meshAxis);
  return text;
}

/// The step a lowered step op performs, or nothing for other ops.
static std::optional<BoxingKind> getStepKind(Operation *op) {
  return llvm::TypeSwitch<Operation *, std::optional<BoxingKind>>(op)
      .Case([](AllReduceOp) { return BoxingKind::allReduce; })
      .Case([](ReduceScatterOp) { return BoxingKind::reduceScatter; })
      .Case([](AllGatherOp) { return BoxingKind::allGather; })
      .Case([](AllToAllOp) { return BoxingKind::allToAll; })
      .Case([](LocalSliceOp) { return BoxingKind::localSlice; })
      .Case([](ToPartialOp) { return BoxingKind::toPartial; })
      .Case([](TransferOp) { return BoxingKind::transfer; })
      .Default([](Operation *) { return std::nullopt; });
}

namespace {

struct ReportBoxingCostPass
    : public mlir::oneflow::impl::ReportBoxingCostPassBase<
          ReportBoxingCostPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string error;
    FailureOr<ClusterDesc> loaded = ClusterDesc::load(cluster, error);
    if (failed(loaded)) {
      getOperation().emitError() << error;
      return signalPassFailure();
    }
    ClusterDesc clusterDesc = *loaded;

    struct Row {
      std::string location, change, route;
      int64_t bytes;
      double micros;
    };
    SmallVector<Row> rows;
    int64_t steps = 0;
    WalkResult walked = getOperation().walk([&](Operation *op) {
      std::optional<BoxingKind> kind = getStepKind(op);
      if (!kind && !isa<BoxingOp>(op))
        return WalkResult::advance();
      auto type = cast<RankedTensorType>(op->getOperand(0).getType());
      GlobalAttr from = getGlobalEncoding(type);
      GlobalAttr to = getGlobalEncoding(op->getResult(0).getType());
      if (!from || !to) {
        op->emitError() << "'" << op->getName()
                        << "' needs #oneflow.global layouts on its operand "
                           "and result to be priced";
        return WalkResult::interrupt();
      }
      SmallVector<PricedStep> priced;
      if (kind) {
        int64_t axis = -1;
        if (auto attr = op->getAttrOfType<IntegerAttr>("mesh_axis"))
          axis = attr.getInt();
        BoxingStep step{*kind, axis, from, to};
        priced.push_back({step, priceBoxingStep(type, step, clusterDesc)});
      } else {
        std::string why;
        FailureOr<SmallVector<PricedStep>> route =
            priceBoxing(type, from, to, clusterDesc, why);
        if (failed(route)) {
          op->emitError() << "no boxing route to price: " << why;
          return WalkResult::interrupt();
        }
        priced = std::move(*route);
      }
      Row row{formatLocation(op->getLoc()), formatChange(from, to), "", 0, 0};
      SmallVector<std::string> names;
      for (const PricedStep &step : priced) {
        names.push_back(formatStep(step.step));
        row.bytes += step.cost.bytesPerRank;
        row.micros += step.cost.seconds * 1e6;
      }
      row.route = names.empty() ? "none" : llvm::join(names, " + ");
      steps += priced.size();
      rows.push_back(std::move(row));
      return WalkResult::advance();
    });
    if (walked.wasInterrupted())
      return signalPassFailure();

    llvm::raw_ostream &os = llvm::outs();
    os << llvm::formatv("{0,-24} {1,-48} {2,-36} {3,12} {4,12}\n", "location",
                        "from -> to", "route", "bytes/rank", "us");
    int64_t totalBytes = 0;
    double totalMicros = 0;
    for (const Row &row : rows) {
      os << llvm::formatv("{0,-24} {1,-48} {2,-36} {3,12} {4,12:f2}\n",
                          row.location, row.change, row.route, row.bytes,
                          row.micros);
      totalBytes += row.bytes;
      totalMicros += row.micros;
    }
    os << llvm::formatv("total: {0} boxing ops, {1} steps, {2} bytes/rank, "
                        "{3:f2} us\n",
                        rows.size(), steps, totalBytes, totalMicros);
    os.flush();
    markAllAnalysesPreserved();
  }
};

} // namespace
