//===- ConstantFolding.h - Constant evaluation of layout ops ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What reshape, transpose, concat, slice, gather and broadcasting compute on
// constants, in one place: the ops' `fold` hooks use it, and so does the ONNX
// importer's import-time evaluation of shape subgraphs (Transpose, Concat,
// Gather, Slice, Expand of known values). Every function gives a null
// attribute when it does not fold: a result above kMaxFoldedElements (large
// values stay ops), or an index out of range (left to the kernel's error).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_CONSTANTFOLDING_H
#define ONEFLOWDIALECT_IR_CONSTANTFOLDING_H

#include "mlir/IR/BuiltinAttributes.h"
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

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_IR_CONSTANTFOLDING_H
