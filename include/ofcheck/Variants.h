//===- Variants.h - Multi-rank variants of a program ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The programs the parallel-equals-serial checker compares: a program's
// single-device form, and forms of it laid out over a placement, either by
// pinning one op to one of its nd-SBP signatures (everything else
// broadcast), or by giving sources layouts and letting propagation do the
// rest, or a bare boxing from one layout to another.
//
//===----------------------------------------------------------------------===//

#ifndef OFCHECK_VARIANTS_H
#define OFCHECK_VARIANTS_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"

#include "mlir/IR/BuiltinOps.h"

#include <random>
#include <string>

namespace ofcheck {

/// One way to run an op on a mesh: an nd-SBP per operand and per result.
struct NdSignature {
  llvm::SmallVector<mlir::oneflow::NdSbpAttr> operands, results;
  std::string str() const;
};

/// The op's candidate nd signatures on `placement`'s mesh, as propagation
/// and the search see them (getNdSbpCandidates: the product of its 1-D
/// signatures, all-broadcast included, never two partial reductions in one
/// layout), keeping those whose splits leave every rank a non-empty piece.
llvm::SmallVector<NdSignature>
getNdSignatures(mlir::Operation *op, mlir::oneflow::PlacementAttr placement);

/// Removes every layout from `module`: the single-device program.
void stripLayouts(mlir::ModuleOp module);

/// Lays out every tensor of `module` on `placement`: op number `target` (in
/// walk order) runs `signature`, every other op all-broadcast, and each
/// op's operand layouts are recorded for oneflow-insert-boxing.
void pinSignature(mlir::ModuleOp module, mlir::oneflow::PlacementAttr placement,
                  mlir::Operation *target, const NdSignature &signature);

/// Gives every input and variable of `module` a random layout on
/// `placement` (one whose pieces are non-empty), leaving the rest to
/// oneflow-sbp-propagation. Returns the layouts chosen, for messages.
std::string randomizeSourceLayouts(mlir::ModuleOp module,
                                   mlir::oneflow::PlacementAttr placement,
                                   std::mt19937_64 &rng);

/// The ops a signature check visits: those with an SBP rule that are not
/// sources or sinks, in walk order.
llvm::SmallVector<mlir::Operation *> getCheckedOps(mlir::ModuleOp module);

/// A program that reads input "x" of `type` laid out as `from` and writes
/// output "y" laid out as `to` (recorded for oneflow-insert-boxing). An
/// output cannot be P(max) or P(min): such a `to` is an explicit boxing,
/// whose result the output all-reduces.
mlir::OwningOpRef<mlir::ModuleOp>
buildBoxingProgram(mlir::MLIRContext *context, mlir::RankedTensorType type,
                   mlir::oneflow::GlobalAttr from, mlir::oneflow::GlobalAttr to);

/// Every layout of one mesh with SBPs from {S(0), ..., S(rank-1), B, P}
/// (and P(max), P(min) with `reductions`, never two reductions in one
/// layout) per axis whose pieces of `shape` are non-empty.
llvm::SmallVector<mlir::oneflow::GlobalAttr>
enumerateLayouts(mlir::oneflow::PlacementAttr placement,
                 llvm::ArrayRef<int64_t> shape, bool reductions = false);

/// Whether some axis of `global` is P(max) or P(min).
bool hasMaxOrMin(mlir::oneflow::GlobalAttr global);

/// Whether `global` leaves every rank a non-empty piece of `shape`.
bool fits(llvm::ArrayRef<int64_t> shape, mlir::oneflow::GlobalAttr global);

} // namespace ofcheck

#endif // OFCHECK_VARIANTS_H
