//===- BoxingOps.cpp - Layout changes and collectives ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Verifiers of oneflow.boxing, the one-axis step ops and oneflow.transfer:
// the table of docs/multi-rank-plans.md.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::oneflow;

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

/// "S(i)", "B" or "P".
static std::string str(SbpAttr sbp) { return toSupportSbp(sbp).str(); }

/// Checks that operand and result have one logical type and both carry a
/// #oneflow.global layout, and returns the layouts.
static LogicalResult verifyLayouts(Operation *op, GlobalAttr &from,
                                   GlobalAttr &to) {
  auto in = cast<RankedTensorType>(op->getOperand(0).getType());
  auto out = cast<RankedTensorType>(op->getResult(0).getType());
  if (in.getShape() != out.getShape() ||
      in.getElementType() != out.getElementType())
    return op->emitOpError()
           << "changes the logical type from "
           << RankedTensorType::get(in.getShape(), in.getElementType())
           << " to "
           << RankedTensorType::get(out.getShape(), out.getElementType());
  from = getGlobalEncoding(in);
  to = getGlobalEncoding(out);
  if (!from)
    return op->emitOpError() << "operand needs a #oneflow.global layout";
  if (!to)
    return op->emitOpError() << "result needs a #oneflow.global layout";
  return success();
}

/// Checks a step that changes mesh axis `meshAxis` only, on one placement,
/// from an SBP that `fromOk` accepts to one that `toOk` accepts; `expected`
/// describes them for the error.
static LogicalResult verifyStep(Operation *op, int64_t meshAxis,
                                function_ref<bool(SbpAttr)> fromOk,
                                function_ref<bool(SbpAttr)> toOk,
                                StringRef expected) {
  GlobalAttr from, to;
  if (failed(verifyLayouts(op, from, to)))
    return failure();
  if (from.getPlacement() != to.getPlacement())
    return op->emitOpError()
           << "changes the placement; only oneflow.transfer does";
  int64_t meshRank = from.getPlacement().getMeshRank();
  if (meshAxis < 0 || meshAxis >= meshRank)
    return op->emitOpError() << "mesh_axis " << meshAxis
                             << " is out of range for a rank-" << meshRank
                             << " mesh";
  NdSbpAttr x = from.getNdSbp(), y = to.getNdSbp();
  for (int64_t axis = 0; axis < meshRank; ++axis)
    if (axis != meshAxis && x[axis] != y[axis])
      return op->emitOpError()
             << "changes mesh axis " << axis << " (" << str(x[axis]) << " -> "
             << str(y[axis]) << "), not only mesh_axis " << meshAxis;
  SbpAttr before = x[meshAxis], after = y[meshAxis];
  if (!fromOk(before) || !toOk(after) || before == after)
    return op->emitOpError() << "turns " << str(before) << " into "
                             << str(after) << " on mesh axis " << meshAxis
                             << ", expected " << expected;
  for (SbpAttr sbp : {before, after}) {
    if (!sbp.isSplit())
      continue;
    for (int64_t later = meshAxis + 1; later < meshRank; ++later)
      if (x[later] == sbp)
        return op->emitOpError()
               << "splits or gathers tensor axis " << sbp.getAxis()
               << " on mesh axis " << meshAxis << " while the later mesh axis "
               << later << " splits it too";
  }
  return success();
}

static bool isSplit(SbpAttr sbp) { return sbp.isSplit(); }
static bool isBroadcast(SbpAttr sbp) { return sbp.isBroadcast(); }
static bool isPartial(SbpAttr sbp) { return sbp.isPartial(); }

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult BoxingOp::verify() {
  GlobalAttr from, to;
  return verifyLayouts(*this, from, to);
}

LogicalResult AllReduceOp::verify() {
  return verifyStep(*this, getMeshAxis(), isPartial, isBroadcast, "P -> B");
}

LogicalResult ReduceScatterOp::verify() {
  return verifyStep(*this, getMeshAxis(), isPartial, isSplit, "P -> S(i)");
}

LogicalResult AllGatherOp::verify() {
  return verifyStep(*this, getMeshAxis(), isSplit, isBroadcast, "S(i) -> B");
}

LogicalResult AllToAllOp::verify() {
  return verifyStep(*this, getMeshAxis(), isSplit, isSplit,
                    "S(i) -> S(j) with i != j");
}

LogicalResult LocalSliceOp::verify() {
  return verifyStep(*this, getMeshAxis(), isBroadcast, isSplit, "B -> S(i)");
}

LogicalResult ToPartialOp::verify() {
  if (failed(verifyStep(
          *this, getMeshAxis(), [](SbpAttr sbp) { return !sbp.isPartial(); },
          isPartial, "B -> P or S(i) -> P")))
    return failure();
  // The other ranks' parts of a split would need the identity of max or
  // min; a split reaches P(max) or P(min) through B.
  int64_t axis = getMeshAxis();
  SbpAttr from = getGlobalEncoding(getX().getType()).getNdSbp()[axis];
  SbpAttr to = getGlobalEncoding(getResult().getType()).getNdSbp()[axis];
  if (from.isSplit() && !to.isPartialSum())
    return emitOpError() << "turns S(" << from.getAxis() << ") into "
                         << toSupportSbp(to).str() << " on mesh axis " << axis
                         << "; only P (a sum) comes from a split, "
                            "P(max) and P(min) from B";
  return success();
}

LogicalResult AccumulateOp::verify() {
  if (getMeshAxis() != 0)
    return emitOpError() << "accumulates over mesh axis " << getMeshAxis()
                         << "; micro-batches are mesh axis 0";
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  int64_t micro = func ? getMicroBatches(func) : 1;
  if (micro < 2)
    return emitOpError() << "needs a program split into micro-batches (a "
                         << kMicroBatchesAttrName << " of at least 2 on "
                         << "its function)";
  if (failed(verifyStep(*this, 0, isPartial, isBroadcast, "P -> B")))
    return failure();
  SbpAttr from = getGlobalEncoding(getX().getType()).getNdSbp()[0];
  if (!from.isPartialSum())
    return emitOpError() << "sums over micro-batches but its operand is "
                         << toSupportSbp(from).str() << " on mesh axis 0";
  int64_t axisSize =
      getGlobalEncoding(getX().getType()).getPlacement().getMesh().front();
  if (axisSize != micro)
    return emitOpError() << "sums " << axisSize << " values per step but "
                         << "the program has " << micro << " micro-batches";
  return success();
}

LogicalResult TransferOp::verify() {
  GlobalAttr from, to;
  if (failed(verifyLayouts(*this, from, to)))
    return failure();
  for (auto [axis, sbp] : llvm::enumerate(to.getNdSbp()))
    if (sbp.isPartial())
      return emitOpError() << "cannot produce P (mesh axis " << axis
                           << " of the result); transfer to B, then "
                              "oneflow.to_partial";
  for (auto [axis, sbp] : llvm::enumerate(from.getNdSbp()))
    if (sbp.isPartial() && !sbp.isPartialSum())
      return emitOpError() << "sums partial sources but mesh axis " << axis
                           << " of its operand is " << toSupportSbp(sbp).str()
                           << "; all-reduce it to B first";
  return success();
}
