//===- BoxingRoute.h - Routes between two tensor layouts --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The chain of boxing steps (collectives, local slices, transfers between
// placements) that turns one layout of a logical tensor into another. The
// lowering of `oneflow.boxing` and the cost model both use it, so that what
// is priced is what runs. docs/multi-rank-plans.md defines each step.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ANALYSIS_BOXINGROUTE_H
#define ONEFLOWDIALECT_ANALYSIS_BOXINGROUTE_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace mlir::oneflow {

/// What one boxing step does; each but `transfer` changes the SBP of one
/// mesh axis on one placement.
enum class BoxingKind {
  allReduce,     ///< P -> B (any reduction)
  reduceScatter, ///< P -> S(i) (any reduction)
  allGather,     ///< S(i) -> B
  allToAll,      ///< S(i) -> S(j)
  localSlice,    ///< B -> S(i)
  toPartial,     ///< B -> P (any reduction), S(i) -> P (sum only)
  transfer,      ///< a layout without P(max)/P(min) -> one without P, on
                 ///< another placement
};

/// The name of the step's op without "oneflow.": "all_reduce", ...
llvm::StringRef stringifyBoxingKind(BoxingKind kind);

/// One step of a route: `kind` turns layout `from` into `to`.
struct BoxingStep {
  BoxingKind kind;
  /// The mesh axis whose SBP changes; -1 for a transfer.
  int64_t meshAxis;
  GlobalAttr from, to;
};

/// The chain of steps turning `from` into `to` for a logical tensor of
/// `type` (static shape; its encoding is ignored); empty when from == to.
///
/// On one placement, each step changes one mesh axis, in an order where
/// every step is valid (no later mesh axis splits the tensor axis the step
/// splits or gathers), through intermediate layouts when no direct order
/// exists; among such routes the one moving the fewest elements wins, then
/// the one with fewer steps. A partial changes its reduction through B, and
/// a split becomes P(max) or P(min) through B. Between placements: P(max)
/// and P(min) axes of `from` all-reduced to B, a transfer to `to` with P
/// replaced by B, then one to_partial per P axis.
///
/// Fails, with `why` naming both layouts, on a dynamic shape or when a
/// layout would leave some rank an empty piece. Uneven splits are fine.
FailureOr<SmallVector<BoxingStep>> planBoxing(RankedTensorType type,
                                              GlobalAttr from, GlobalAttr to,
                                              std::string &why);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_ANALYSIS_BOXINGROUTE_H
