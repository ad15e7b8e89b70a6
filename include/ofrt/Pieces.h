//===- Pieces.h - Pieces of logical tensors ---------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// On several ranks every regst holds the rank's piece of a logical tensor: a
// box [begin, begin + size) per axis. These helpers copy and sum boxes
// between row-major tensors, map a piece's elements to logical indices (so
// that generated data depends only on the logical index), read the layout
// attributes of sources and sinks (docs/multi-rank-plans.md), and assemble a
// logical output from the ranks' pieces.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_PIECES_H
#define OFRT_PIECES_H

#include "ofrt/Kernel.h"

#include <cstdint>
#include <vector>

namespace ofrt {

/// Copies the box of extent `size` at `srcBegin` in `src` to `dstBegin` in
/// `dst` (same element type; the boxes must lie inside both tensors).
void copyBox(const TensorView &src, const std::vector<int64_t> &srcBegin,
             const TensorView &dst, const std::vector<int64_t> &dstBegin,
             const std::vector<int64_t> &size);

/// As copyBox, but adds the source box to the destination box. Error for
/// element types other than f32, f64, i32, i64.
absl::Status addBox(const TensorView &src, const std::vector<int64_t> &srcBegin,
                    const TensorView &dst, const std::vector<int64_t> &dstBegin,
                    const std::vector<int64_t> &size);

/// Calls fn(local, logical) for every element of a piece of `shape` that
/// starts at `begin` in a logical tensor of `logicalShape`, in row-major
/// order: `local` counts the piece's elements, `logical` is the row-major
/// index of the same element in the logical tensor.
template <typename Fn>
void forEachLogicalIndex(const std::vector<int64_t> &shape,
                         const std::vector<int64_t> &begin,
                         const std::vector<int64_t> &logicalShape, Fn &&fn) {
  int64_t total = 1;
  for (int64_t dim : shape)
    total *= dim;
  if (total == 0)
    return;
  size_t rank = shape.size();
  std::vector<int64_t> strides(rank, 1), index(rank, 0);
  for (size_t d = rank; d-- > 1;)
    strides[d - 1] = strides[d] * logicalShape[d];
  int64_t logical = 0;
  for (size_t d = 0; d < rank; ++d)
    logical += begin[d] * strides[d];
  for (int64_t local = 0; local < total; ++local) {
    fn(local, logical);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < shape[d]) {
        logical += strides[d];
        break;
      }
      logical -= strides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
}

/// Where the piece of shape `local` of a source or sink (`op`'s layout, a
/// PieceLayout or a SinkLayout's) lies; without one, it is the whole
/// tensor. A piece outside its logical tensor is an error naming the op.
absl::StatusOr<PieceLayout> readPieceLayout(const OpDesc &op,
                                            const std::vector<int64_t> &local);

/// One rank's value of an output, with where it goes.
struct OutputPiece {
  TensorData value;
  PieceLayout layout;
  bool partial = false; ///< A partial sum: pieces are added.
  bool primary = true;  ///< The copy to use among replicas.
};

/// An output actor's piece, from its SinkLayout; without one the piece is
/// the whole tensor, primary only on `rank` 0.
absl::StatusOr<OutputPiece> readOutputPiece(const OpDesc &op, int64_t rank);

/// The logical value of output `name` from its pieces on every rank: primary
/// pieces are copied (partial ones added) into their box. Pieces that
/// disagree on the logical type, or primary non-partial pieces that do not
/// cover the tensor, are an error naming the output. If a primary piece was
/// never computed (no bytes), so is the result: the logical type, no bytes.
absl::StatusOr<TensorData> assemblePieces(const std::string &name,
                                          const std::vector<OutputPiece> &pieces);

} // namespace ofrt

#endif // OFRT_PIECES_H
