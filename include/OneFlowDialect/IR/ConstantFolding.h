//===- ConstantFolding.h - Constant evaluation of layout ops ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What reshape, transpose, concat, slice, gather, broadcasting, casts and
// the element-wise arithmetic, comparisons and selection compute on
// constants, in one place: the ops' `fold` hooks use it, and so does the
// ONNX importer's import-time evaluation of shape subgraphs (Transpose,
// Concat, Gather, Slice, Expand, Cast, Where, Equal, Neg, Add, ... of known
// values). Every function gives a null
// attribute when it does not fold: a result above kMaxFoldedElements (large
// values stay ops), or an index out of range (left to the kernel's error).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_CONSTANTFOLDING_H
#define ONEFLOWDIALECT_IR_CONSTANTFOLDING_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/Types.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>
#include <utility>

namespace mlir::oneflow {

/// Results above this many elements are not folded.
inline constexpr int64_t kMaxFoldedElements = 1 << 16;

/// The first index and the length of slice(start, end, step) of an axis of
/// `dim` elements with Python's rules (negative start and end count from
/// the end; both are clamped to [0, dim]; step >= 1).
std::pair<int64_t, int64_t> pythonSliceRange(int64_t dim, int64_t start,
                                             int64_t end, int64_t step);

/// `x` with its axes permuted: result axis i is axis perm[i] of x.
DenseElementsAttr foldTranspose(DenseElementsAttr x, ArrayRef<int64_t> perm);

/// `parts` (same rank and element type) joined along `axis`.
DenseElementsAttr foldConcat(ArrayRef<DenseElementsAttr> parts, int64_t axis);

/// The elements start[d] + i * step[d], i < size[d], of each axis d of x.
DenseElementsAttr foldSlice(DenseElementsAttr x, ArrayRef<int64_t> start,
                            ArrayRef<int64_t> step, ArrayRef<int64_t> size);

/// gather: x's axis `axis` replaced by the indices' shape; negative indices
/// count from the end.
DenseElementsAttr foldGather(DenseElementsAttr x, DenseElementsAttr indices,
                             int64_t axis);

/// `x` broadcast (numpy rules, trailing axes aligned) to `shape`.
DenseElementsAttr foldBroadcast(DenseElementsAttr x, ArrayRef<int64_t> shape);

/// The element-wise computations that fold (ElementwiseFolding.cpp), named
/// after the ops that do them.
enum class ElementwiseFold {
  add,
  sub,
  mul,
  div,
  pow,
  maximum,
  minimum, // Result: operand 0's type.
  equal,
  notEqual,
  less,
  lessEqual,
  greater,
  greaterEqual, // i1.
  logicalAnd,
  logicalOr,
  logicalXor, // i1 operands.
  neg,        // One operand.
  where,      // (i1 condition, x, y): x's type.
};

/// `kind` element by element over `operands` broadcast together (numpy
/// rules), computed as the kernels do: floats in double and rounded once to
/// the result's type (exact for + - * /), integers in two's complement of
/// their width, integer division truncating. Null when it does not fold:
/// shapes that do not broadcast, operands of different element types, a
/// result above kMaxFoldedElements, an integer division by zero or one
/// whose quotient does not fit, a NaN into maximum or minimum.
DenseElementsAttr foldElementwise(ElementwiseFold kind,
                                  ArrayRef<DenseElementsAttr> operands);

/// `x` converted to `elementType`: floats rounded to nearest even, floats
/// to integers truncated toward zero, integers wrapped to the target width,
/// anything to i1 as `!= 0`. Null for a NaN, an infinity or a value out of
/// the integer type's range converted to an integer (left to the kernel).
DenseElementsAttr foldCast(DenseElementsAttr x, Type elementType);

/// A tensor of `type` (a float element type) holding `values` rounded to
/// nearest even.
DenseElementsAttr denseOfDoubles(RankedTensorType type,
                                 ArrayRef<double> values);

/// A tensor of `type` (an integer element type) holding `values` wrapped to
/// its width (i1: `!= 0`).
DenseElementsAttr denseOfInts(RankedTensorType type, ArrayRef<int64_t> values);

/// The fold hook of the element-wise ops above (add, ..., neg, where):
/// their constant `operands` evaluated, when the result has no layout.
OpFoldResult foldElementwiseOp(Operation *op, ArrayRef<Attribute> operands);

/// The constant value of an op's operand for a fold hook: null unless the
/// op's result has no layout (a laid-out constant would need its pieces)
/// and a static shape.
DenseElementsAttr constantFoldOperand(Attribute operand, Type result);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_IR_CONSTANTFOLDING_H
