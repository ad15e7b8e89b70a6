//===- Fusion.cpp - Checks for passes that make several ops one ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Fusion.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;
using namespace mlir::oneflow;

bool mlir::oneflow::dependsOnAny(Operation *op, ArrayRef<Operation *> members) {
  Operation *first = members.front();
  SmallPtrSet<Operation *, 8> targets(members.begin(), members.end()), seen;
  SmallVector<Operation *> work{op};
  while (!work.empty()) {
    Operation *current = work.pop_back_val();
    for (Value operand : current->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (!def || def->getBlock() != first->getBlock() ||
          def->isBeforeInBlock(first) || !seen.insert(def).second)
        continue;
      if (targets.contains(def))
        return true;
      work.push_back(def);
    }
  }
  return false;
}

bool mlir::oneflow::keepsWritesInOrder(ArrayRef<Operation *> members) {
  SetVector<Operation *> moving;
  SmallVector<Operation *> work(members.begin(), members.end());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    for (Operation *user : op->getUsers())
      if (moving.insert(user))
        work.push_back(user);
  }
  for (Operation *op : moving) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects)
      continue;
    for (Value operand : op->getOperands()) {
      if (!effects.getEffectOnValue<MemoryEffects::Write>(operand))
        continue;
      for (Operation *user : operand.getUsers())
        if (!moving.contains(user) && user->getBlock() == op->getBlock() &&
            op->isBeforeInBlock(user))
          return false;
    }
  }
  return true;
}

bool mlir::oneflow::fuseGroups(
    Block &block, ArrayRef<SmallVector<Operation *>> groups,
    function_ref<void(ArrayRef<Operation *>)> fuse) {
  bool fusedAny = false;
  for (ArrayRef<Operation *> group : groups) {
    // Parts are fused with their members in the group's order.
    llvm::DenseMap<Operation *, size_t> place;
    for (auto [i, op] : llvm::enumerate(group))
      place[op] = i;
    SmallVector<Operation *> rest(group);
    while (rest.size() > 1) {
      llvm::sort(rest, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      // The block is in topological order, so a member can depend only on
      // earlier ones: `part` holds no member that depends on another, and
      // making it one op makes no cycle.
      SmallVector<Operation *> part{rest.front()}, later;
      for (Operation *op : llvm::drop_begin(rest))
        (dependsOnAny(op, part) ? later : part).push_back(op);
      llvm::sort(part, [&](Operation *a, Operation *b) {
        return place[a] < place[b];
      });
      if (part.size() > 1 && keepsWritesInOrder(part)) {
        fuse(part);
        fusedAny = true;
        bool sorted = sortTopologically(&block);
        assert(sorted && "a fused group made a cycle");
        (void)sorted;
      }
      rest = std::move(later);
    }
  }
  return fusedAny;
}
