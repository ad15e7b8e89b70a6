//===- InsertBoxing.cpp - Boxing where layouts differ ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"

#define DEBUG_TYPE "oneflow-insert-boxing"

namespace mlir::oneflow {
#define GEN_PASS_DEF_INSERTBOXINGPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The layouts `op`'s attribute asks for, one per operand; reports a
/// malformed attribute at the op.
static FailureOr<SmallVector<GlobalAttr>> readLayouts(Operation *op,
                                                      Attribute attr) {
  auto array = dyn_cast<ArrayAttr>(attr);
  if (!array)
    return op->emitOpError() << "'" << kOperandLayoutsAttrName
                             << "' must be an array of #oneflow.global layouts";
  if (array.size() != op->getNumOperands())
    return op->emitOpError()
           << "'" << kOperandLayoutsAttrName << "' has " << array.size()
           << " entries but the op has " << op->getNumOperands() << " operands";
  SmallVector<GlobalAttr> layouts;
  for (auto [index, entry] : llvm::enumerate(array)) {
    auto layout = dyn_cast<GlobalAttr>(entry);
    if (!layout)
      return op->emitOpError()
             << "entry " << index << " of '" << kOperandLayoutsAttrName
             << "' is " << entry << ", not a #oneflow.global layout";
    layouts.push_back(layout);
  }
  return layouts;
}

namespace {
struct InsertBoxingPass
    : public mlir::oneflow::impl::InsertBoxingPassBase<InsertBoxingPass> {
  void runOnOperation() override;

private:
  /// Makes operand `index` of `op` have `layout`, reusing a boxing of the
  /// same value to the same layout that dominates `op`.
  LogicalResult box(Operation *op, unsigned index, GlobalAttr layout);

  DominanceInfo *dominance = nullptr;
  /// The boxings made so far, by value and layout.
  DenseMap<std::pair<Value, Attribute>, SmallVector<BoxingOp, 1>> made;
};
} // namespace

LogicalResult InsertBoxingPass::box(Operation *op, unsigned index,
                                    GlobalAttr layout) {
  OpOperand &operand = op->getOpOperand(index);
  Value value = operand.get();
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return op->emitOpError() << "operand #" << index << " of type "
                             << value.getType() << " cannot take a layout";
  if (type.getEncoding() == layout)
    return success();
  if (!getGlobalEncoding(type))
    return op->emitOpError() << "operand #" << index
                             << " has no #oneflow.global layout to box from";
  if (failed(layout.verifyEncoding(type.getShape(), type.getElementType(), [&] {
        return op->emitOpError()
               << "operand #" << index << " cannot take "
               << "the layout in '" << kOperandLayoutsAttrName << "': ";
      })))
    return failure();
  SmallVector<BoxingOp, 1> &boxings = made[{value, layout}];
  for (BoxingOp boxing : boxings) {
    if (dominance->properlyDominates(boxing.getOperation(), op)) {
      operand.set(boxing.getResult());
      return success();
    }
  }
  OpBuilder builder(op);
  auto boxing = BoxingOp::create(
      builder, op->getLoc(),
      RankedTensorType::get(type.getShape(), type.getElementType(), layout),
      value);
  boxings.push_back(boxing);
  operand.set(boxing.getResult());
  return success();
}

void InsertBoxingPass::runOnOperation() {
  dominance = &getAnalysis<DominanceInfo>();
  made.clear();
  SmallVector<Operation *> consumers;
  getOperation().walk([&](Operation *op) {
    if (op->hasAttr(kOperandLayoutsAttrName))
      consumers.push_back(op);
  });
  bool failedAny = false;
  for (Operation *op : consumers) {
    FailureOr<SmallVector<GlobalAttr>> layouts =
        readLayouts(op, op->getAttr(kOperandLayoutsAttrName));
    if (failed(layouts)) {
      failedAny = true;
      continue;
    }
    for (auto [index, layout] : llvm::enumerate(*layouts))
      if (failed(box(op, index, layout)))
        failedAny = true;
    op->removeAttr(kOperandLayoutsAttrName);
  }
  if (failedAny)
    signalPassFailure();
  markAnalysesPreserved<DominanceInfo>();
}
