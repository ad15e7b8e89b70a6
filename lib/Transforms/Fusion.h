//===- Fusion.h - Checks for passes that make several ops one ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A pass that replaces ops of one block by one op built after the last of
// them, and sorts the block topologically so that users of the earlier ones
// follow it (oneflow-fuse-all-reduce, oneflow-fuse-nonfinite-checks), must
// know that no member depends on another and that no in-place write moves
// past a reader of the value it writes. With several groups, a fusion makes
// new dependencies (every member's operand now precedes every member's
// result), so two groups independent in the program may not be both fused:
// `fuseGroups` fuses one group at a time and checks the next on the block
// as the fusions before it left it.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_LIB_TRANSFORMS_FUSION_H
#define ONEFLOWDIALECT_LIB_TRANSFORMS_FUSION_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

namespace mlir::oneflow {

/// Whether `op` uses, directly or through other ops of the block, a result
/// of one of `members` (all in one block, the first of which comes first):
/// then `op` cannot be fused with them.
bool dependsOnAny(Operation *op, ArrayRef<Operation *> members);

/// Whether fusing `members` keeps every in-place write where it is
/// relative to the other users of the value it writes: the users of the
/// members' results (and theirs) only move later, and an op among them
/// that writes in place (an optimizer update) must not move past a user of
/// that value which came after it.
bool keepsWritesInOrder(ArrayRef<Operation *> members);

/// Fuses `groups` of `block`'s ops with `fuse` (which replaces the ops it
/// is given, two or more, by ops built after the last of them), one group
/// at a time, sorting the block topologically after each. A group is first
/// split, in program order, where a member depends on an earlier one
/// (through the block as the fusions before it left it: a group that was
/// independent in the program may no longer be), and a part is fused only
/// if `keepsWritesInOrder` holds for it; `fuse` gets a part's members in
/// the group's order. Returns whether anything was fused.
bool fuseGroups(Block &block, ArrayRef<SmallVector<Operation *>> groups,
                function_ref<void(ArrayRef<Operation *>)> fuse);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_LIB_TRANSFORMS_FUSION_H
