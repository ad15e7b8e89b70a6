//===- FuseNonfiniteChecks.cpp - One NaN check per layout -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The find_nonfinite ops of a block are grouped by result type (layout
// included), in program order; a check that depends on a member's result
// starts a new group. Each group of two or more becomes one find_nonfinite
// after its last member, every use of a member's result uses it, the block
// is sorted topologically, and maximum(x, x) is replaced by x.
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#define DEBUG_TYPE "oneflow-fuse-nonfinite-checks"

namespace mlir::oneflow {
#define GEN_PASS_DEF_FUSENONFINITECHECKSPASS
#include "OneFlowDialect/Transforms/Passes.h.inc"
} // namespace mlir::oneflow

using namespace mlir;
using namespace mlir::oneflow;

/// The groups of `block`'s checks that may become one op each, in order.
static SmallVector<SmallVector<Operation *>> groupChecks(Block &block) {
  llvm::MapVector<Type, SmallVector<Operation *>> open;
  SmallVector<SmallVector<Operation *>> groups;
  for (FindNonfiniteOp check : block.getOps<FindNonfiniteOp>()) {
    SmallVector<Operation *> &members = open[check.getType()];
    if (!members.empty() && dependsOnAny(check, members)) {
      groups.push_back(std::move(members));
      members.clear();
    }
    members.push_back(check);
  }
  for (auto &entry : open)
    groups.push_back(std::move(entry.second));
  return groups;
}

/// Replaces the checks of `group` (two or more of one result type) by one.
static void fuse(ArrayRef<Operation *> group) {
  OpBuilder b(group.back());
  b.setInsertionPointAfter(group.back());
  SmallVector<Value> tensors;
  SmallVector<int64_t> codes;
  SmallVector<Attribute> labels;
  SmallVector<Location> locs;
  for (Operation *op : group) {
    auto check = cast<FindNonfiniteOp>(op);
    llvm::append_range(tensors, check.getX());
    llvm::append_range(codes, check.getCodes());
    llvm::append_range(labels, check.getLabels());
    locs.push_back(check.getLoc());
  }
  Value fused = FindNonfiniteOp::create(
      b, b.getFusedLoc(locs), group.back()->getResult(0).getType(),
      tensors, ValueRange{}, b.getDenseI64ArrayAttr(codes),
      b.getArrayAttr(labels));
  for (Operation *op : group) {
    op->getResult(0).replaceAllUsesWith(fused);
    op->erase();
  }
}

namespace {

struct FuseNonfiniteChecksPass
    : public mlir::oneflow::impl::FuseNonfiniteChecksPassBase<
          FuseNonfiniteChecksPass> {
  using Base::Base;

  void runOnOperation() override {
    for (Block &block : getOperation().getBody()) {
      if (!fuseGroups(block, groupChecks(block), fuse))
        continue;
      // The maximum is idempotent: max(x, x) is x. In program order, so
      // that a chain of maximums of one value folds from its first link.
      for (MaximumOp max : llvm::to_vector(block.getOps<MaximumOp>())) {
        if (max.getLhs() != max.getRhs() ||
            max.getType() != max.getLhs().getType())
          continue;
        max.getResult().replaceAllUsesWith(max.getLhs());
        max.erase();
      }
    }
  }
};

} // namespace
