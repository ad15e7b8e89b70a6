//===- ActorLayout.h - An actor's place in a multi-rank program -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What the compiler's per-rank lowering tells an actor about the other
// ranks, read from the plan's typed `layout` message (plan.proto): the piece
// a source or sink holds, a collective's group, a transfer's sends and
// receives, a local boxing step's box, the rows a gather's table piece
// holds, the divisor of a split mean. An actor has at most one.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_ACTORLAYOUT_H
#define OFRT_ACTORLAYOUT_H

#include "ofrt/ReduceOp.h"

#include <cstddef>
#include <cstdint>
#include <variant>
#include <vector>

namespace ofrt {

/// This rank's piece of a logical tensor: the box that starts at `begin`.
struct PieceLayout {
  std::vector<int64_t> logicalShape;
  std::vector<int64_t> begin;
  /// This rank holds zeros (a source on a P mesh axis, coordinate not 0).
  bool zero = false;
  /// With micro-batches: micro-batch m reads the box at begin + m * stride
  /// (empty: the same box every micro-batch).
  std::vector<int64_t> microStride;

  /// Where micro-batch `micro`'s box starts.
  std::vector<int64_t> beginAt(int64_t micro) const {
    std::vector<int64_t> at = begin;
    for (size_t d = 0; d < microStride.size() && d < at.size(); ++d)
      at[d] += micro * microStride[d];
    return at;
  }

  /// Whether the piece (of shape `shape`) is the whole logical tensor.
  bool whole(const std::vector<int64_t> &shape) const {
    return logicalShape == shape;
  }
};

/// An output's piece and how the ranks' pieces make the logical value.
struct SinkLayout {
  PieceLayout piece;
  bool partial = false; ///< Pieces are partial sums, added.
  bool primary = false; ///< The copy to use among replicas.
};

/// all_reduce, reduce_scatter, all_gather, all_to_all.
struct CollectiveLayout {
  std::vector<int64_t> group; ///< Global ranks, in group order.
  int64_t axis = 0;           ///< reduce_scatter, all_gather.
  int64_t inAxis = 0, outAxis = 0; ///< all_to_all.
  /// all_reduce, reduce_scatter: the operand's P, P(max) or P(min).
  ReduceOp reduce = ReduceOp::Sum;
};

/// One send or receive of a transfer.
struct PointToPoint {
  int64_t peer = 0; ///< Index into the transfer's group.
  uint32_t tag = 0;
  std::vector<int64_t> begin, size;

  int64_t numel() const {
    int64_t n = 1;
    for (int64_t dim : size)
      n *= dim;
    return n;
  }
};

/// oneflow.transfer between placements.
struct TransferLayout {
  std::vector<int64_t> group;
  std::vector<PointToPoint> sends, recvs;
  bool reduce = false;
};

/// local_slice and to_partial.
struct LocalBoxingLayout {
  std::vector<int64_t> begin;
  bool keep = true;
  /// With micro-batches: micro-batch m's box starts at begin + m * stride.
  std::vector<int64_t> microStride;
};

/// The rows [begin, begin + local) of `limit` a gather's table piece holds.
struct IndexRange {
  int64_t begin = 0, limit = 0;
};

/// A split reduce_mean: divide the piece's sum by the logical count.
struct MeanDivisor {
  int64_t divisor = 1;
};

using ActorLayout =
    std::variant<std::monostate, PieceLayout, SinkLayout, CollectiveLayout,
                 TransferLayout, LocalBoxingLayout, IndexRange, MeanDivisor>;

} // namespace ofrt

#endif // OFRT_ACTORLAYOUT_H
