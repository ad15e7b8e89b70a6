//===- Layout.h - Balanced splits of SBP-laid-out tensors -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Which piece of a logical tensor each device holds, for a device mesh and an
// nd-SBP. Plain C++ with no MLIR, so that the compiler (local shapes, boxing
// plans) and the runtime (data sharding, checkpoints) share one definition.
//
// Splits are balanced as in OneFlow: a length L over n parts gives the first
// L mod n parts one more element than the rest (10 over 4: 3, 3, 2, 2). On an
// nd mesh, mesh axes are applied in order, each splitting the range left by
// the axes before it (length 6 on mesh [2, 2] under (S(0), S(0)): 2, 1, 2, 1).
//
//===----------------------------------------------------------------------===//

#ifndef OFSUPPORT_LAYOUT_H
#define OFSUPPORT_LAYOUT_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ofsupport {

enum class SbpKind { Split, Broadcast, Partial };

/// How the pieces of a partial tensor make the logical value: their
/// element-wise sum, maximum or minimum.
enum class Reduction { Sum, Max, Min };

/// The SBP of one mesh axis: split along a tensor axis, broadcast, or
/// partial (a sum unless said otherwise).
struct Sbp {
  SbpKind kind = SbpKind::Broadcast;
  int64_t axis = 0; ///< The split tensor axis; 0 unless kind is Split.
  /// The partial's reduction; Sum unless kind is Partial.
  Reduction reduction = Reduction::Sum;

  static Sbp split(int64_t axis) { return {SbpKind::Split, axis}; }
  static Sbp broadcast() { return {SbpKind::Broadcast, 0}; }
  static Sbp partial(Reduction reduction = Reduction::Sum) {
    return {SbpKind::Partial, 0, reduction};
  }
  bool operator==(const Sbp &other) const {
    return kind == other.kind && axis == other.axis &&
           reduction == other.reduction;
  }
  bool operator!=(const Sbp &other) const { return !(*this == other); }
  /// "S(i)", "B", "P", "P(max)" or "P(min)".
  std::string str() const;
};

/// "sum", "max" or "min".
const char *reductionName(Reduction reduction);

/// Whether `ndSbp` has partial axes with different reductions, which no
/// layout may have (a max of sums is not a sum of maxes).
bool mixesReductions(const std::vector<Sbp> &ndSbp);

/// A device mesh and one SBP per mesh axis.
struct TensorLayout {
  std::vector<int64_t> mesh;
  std::vector<Sbp> ndSbp;
};

/// A half-open range [begin, begin + size) of one tensor axis.
struct Range {
  int64_t begin = 0;
  int64_t size = 0;
  bool operator==(const Range &other) const {
    return begin == other.begin && size == other.size;
  }
};

/// Splits `length` into `parts` balanced consecutive ranges. Requires
/// length >= 0 and parts >= 1.
std::vector<Range> balancedSplit(int64_t length, int64_t parts);

/// The `index`-th of the ranges balancedSplit(length, parts) returns.
Range balancedPart(int64_t length, int64_t parts, int64_t index);

/// The row-major coordinate of device `parallelId` in `mesh`.
std::vector<int64_t> meshCoordinate(const std::vector<int64_t> &mesh,
                                    int64_t parallelId);

/// Why `layout` cannot lay out a tensor of `shape`, or nullopt if it can:
/// an empty or non-positive mesh, an nd-SBP whose length differs from the
/// mesh rank, or a split axis out of range.
std::optional<std::string> validateLayout(const std::vector<int64_t> &shape,
                                          const TensorLayout &layout);

/// The piece of a logical tensor of `shape` that device `parallelId` (its
/// position in the placement's rank list) holds: one range per tensor axis.
/// Broadcast and partial axes keep the whole range. Requires a valid layout.
std::vector<Range> localSlice(const std::vector<int64_t> &shape,
                              const TensorLayout &layout, int64_t parallelId);

/// The shape of localSlice's piece.
std::vector<int64_t> localShape(const std::vector<int64_t> &shape,
                                const TensorLayout &layout, int64_t parallelId);

} // namespace ofsupport

#endif // OFSUPPORT_LAYOUT_H
