//===- SbpCandidates.h - nd-SBP signatures of an op on a mesh ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The ways an op can run on a device mesh: OneFlow's Cartesian product of
// the op's 1-D signatures (plus all-broadcast) over the mesh axes, and
// which of them are legal (stated and pinned layouts, shapes that give
// every device a piece, operands written in place, placements), for
// propagation and the search alike.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ANALYSIS_SBPCANDIDATES_H
#define ONEFLOWDIALECT_ANALYSIS_SBPCANDIDATES_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"

#include <string>

namespace mlir::oneflow {

/// One way to run an op on a mesh: an nd-SBP per operand and per result.
struct NdSbpSignature {
  SmallVector<NdSbpAttr> operands;
  SmallVector<NdSbpAttr> results;

  /// The devices that share the op's work: the product of the sizes of the
  /// mesh axes on which some operand or result is not `B`.
  int64_t countPieces(ArrayRef<int64_t> mesh) const;
};

/// The candidates of `op` on `mesh`: for each mesh axis, the op's 1-D
/// signatures for that axis' size followed by all-broadcast; then their
/// Cartesian product with mesh axis 0 varying slowest. No duplicates.
SmallVector<NdSbpSignature> getNdSbpCandidates(SbpInterface op,
                                               ArrayRef<int64_t> mesh);

/// Whether `ndSbp` on `mesh` gives every device a non-empty piece of a
/// tensor of `type`: each split, applied in mesh-axis order to what the
/// axes before it left, divides a length at least as large as its axis.
/// Unknown dimensions fit.
bool fitsShape(RankedTensorType type, NdSbpAttr ndSbp, ArrayRef<int64_t> mesh);

/// The operands `op` writes in place (a MemWrite effect on the operand, as
/// an optimizer update writes its parameter and states): their layouts
/// cannot change, or the op would write into a copy.
SmallVector<unsigned> getInPlaceOperands(Operation *op);

/// The operands whose layouts cannot change: those written in place and
/// those the op's SbpInterface keeps (getLayoutKeepingOperands).
SmallVector<unsigned> getLayoutKeepingOperands(Operation *op);

/// Whether every operand and result of `candidate` fits its tensor's shape
/// on `mesh` (fitsShape).
bool fitsShapes(Operation *op, const NdSbpSignature &candidate,
                ArrayRef<int64_t> mesh);

/// Where `op` runs: the placement its stated result layouts give (they
/// must agree), else its own `oneflow.placement` (a pipeline stage's),
/// else `fallback`. Fails with `error` when stated results disagree.
FailureOr<PlacementAttr> getOpPlacement(Operation *op, PlacementAttr fallback,
                                        std::string &error);

/// The signatures of `op` on `placement` that a strategy may choose, in the
/// op's order; the one statement of legality that propagation and the
/// search share. A legal signature gives the layouts the op's results
/// state, takes the operand layouts pinned on it
/// (`oneflow.operand_layouts`, which must be on `placement`), leaves every
/// device a non-empty piece (fitsShapes) and, when `operandLayouts` (the
/// layouts the operands have now) is not empty, keeps the layout of every
/// operand the op writes in place (getInPlaceOperands). Fails with `error`
/// saying which of these left no signature.
FailureOr<SmallVector<NdSbpSignature>>
getLegalSignatures(SbpInterface op, PlacementAttr placement,
                   ArrayRef<GlobalAttr> operandLayouts, std::string &error);

/// Prints `[S(0), B]`.
std::string stringifyNdSbp(NdSbpAttr ndSbp);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_ANALYSIS_SBPCANDIDATES_H
