//===- SbpRules.h - SBP signatures from an op's iteration dims --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// An op describes its iteration space once, einsum-like: which iteration
// dimension each axis of each operand and result indexes, and how each
// dimension may be split. `SbpDims::derive` turns that into the op's 1-D
// SBP signatures (`SbpInterface::getSbpSignatures`).
//
// Matmul without transposes, `(m, k) x (k, n) -> (m, n)`:
//
//   SbpDims dims(op);
//   int64_t m = dims.addDim(SbpDimKind::parallel);
//   int64_t n = dims.addDim(SbpDimKind::parallel);
//   int64_t k = dims.addDim(SbpDimKind::reduction);
//   dims.mapOperand(0, {m, k});
//   dims.mapOperand(1, {k, n});
//   dims.mapResult(0, {m, n});
//   dims.addPartials("PB,BP");
//   dims.derive(meshAxisSize, signatures);
//
// gives `S(0), B -> S(0) | B, S(1) -> S(1) | S(1), S(0) -> P | P, B -> P |
// B, P -> P`.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_SBPRULES_H
#define ONEFLOWDIALECT_INTERFACES_SBPRULES_H

#include "OneFlowDialect/Interfaces/SbpInterface.h"

#include "mlir/IR/Operation.h"

#include <string>

namespace mlir::oneflow {

/// What splitting one iteration dimension over a mesh axis does to an op.
enum class SbpDimKind {
  /// Split everywhere it appears: `S(axis)` on every operand and result
  /// with an axis indexing it, `B` on the others.
  parallel,
  /// Reduced over: `S(axis)` on the tensors with an axis indexing it, `B`
  /// on the other operands and `P` on the other results (`P(max)` or
  /// `P(min)` for a dimension added with that reduction). Only for ops that
  /// are linear in the operands indexing it (matmul's k, reduce_sum's
  /// reduced axes, the class axis of a cross-entropy's loss), or take their
  /// maximum (minimum) over it (reduce_max's reduced axes).
  reduction,
  /// Never split.
  broadcastOnly,
};

/// An op's iteration dimensions, the axis-to-dimension map of its operands
/// and results, and its partial-sum rules.
class SbpDims {
public:
  /// An axis that indexes no dimension: the tensor is `B` whatever is
  /// split (a size-1 broadcast axis, a sliced or normalized axis).
  static constexpr int64_t kNone = -1;

  /// Every axis of every ranked operand and result starts unmapped.
  explicit SbpDims(Operation *op);

  /// Numpy broadcasting: one parallel dimension per axis of the first
  /// result (of the first operand if there is none); operands are aligned
  /// at the trailing axis and their size-1 axes facing a larger (or
  /// unknown) result size are unmapped. Fits element-wise ops and sources.
  static SbpDims elementwise(Operation *op);

  /// Adds a dimension and returns its id; `reduction` is the partial a
  /// `reduction` dimension leaves on the results that do not index it.
  int64_t addDim(SbpDimKind kind,
                 PartialReduction reduction = PartialReduction::sum);
  /// Changes the kind of dimension `dim`.
  void setKind(int64_t dim, SbpDimKind kind) { kinds[dim] = kind; }
  /// Maps axis `axis` of operand `index` to dimension `dim`.
  void mapOperandAxis(unsigned index, int64_t axis, int64_t dim);
  /// Maps axis `axis` of result `index` to dimension `dim`.
  void mapResultAxis(unsigned index, int64_t axis, int64_t dim);
  /// Maps every axis of operand `index`, in order.
  void mapOperand(unsigned index, ArrayRef<int64_t> dims);
  /// Maps every axis of result `index`, in order.
  void mapResult(unsigned index, ArrayRef<int64_t> dims);

  /// Adds partial rules, comma-separated; each has one letter per operand,
  /// `B`, `P` (a sum), `M` (P(max)) or `N` (P(min)), and makes every result
  /// the operands' partial, or the one letter after `->`: `"PP"` for add,
  /// `"PB,BP"` for mul, `"P"` for a linear unary op, `"M"` for reduce_max,
  /// `"M->N,N->M"` for neg.
  void addPartials(StringRef rules);

  /// Appends the signatures: one per splittable dimension in the order the
  /// dimensions were added, then the partial rules in their order. A split
  /// of an axis whose static size is below `meshAxisSize` drops the whole
  /// signature; duplicates and the all-broadcast signature are not listed.
  void derive(int64_t meshAxisSize,
              SmallVectorImpl<SbpSignature> &signatures) const;

private:
  Operation *op;
  SmallVector<SbpDimKind> kinds;
  SmallVector<PartialReduction> reductions;
  SmallVector<SmallVector<int64_t>> operandDims, resultDims;
  /// Each rule: one letter per operand, then the results' letter.
  SmallVector<std::pair<std::string, char>> partials;
};

/// The (input axis, output axis) pairs along which a reshape from `in` to
/// `out` may be split over `meshAxisSize` devices: both axes have the same
/// product of the sizes before them, and either equal sizes or sizes both
/// divisible by `meshAxisSize`. Empty when a shape is not static.
SmallVector<std::pair<int64_t, int64_t>>
getReshapeSplitAxes(ArrayRef<int64_t> in, ArrayRef<int64_t> out,
                    int64_t meshAxisSize);

/// Prints `S(i)`, `B`, `P`, `P(max)` or `P(min)`.
std::string stringifySbp(SbpAttr sbp);

/// Prints `S(0), B -> S(0)`.
std::string stringifySbpSignature(const SbpSignature &signature);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_INTERFACES_SBPRULES_H
