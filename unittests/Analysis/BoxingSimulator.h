//===- BoxingSimulator.h - Reference semantics of boxing steps --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A plain, slow model of what each boxing step does to the pieces the ranks
// hold (docs/multi-rank-plans.md), used to check the routes planBoxing
// gives. Every rank's piece carries the region of the logical tensor it
// covers, computed by the steps themselves (concatenating and slicing), so
// that comparing regions with ofsupport::localSlice at the end checks the
// route rather than assuming it.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_UNITTESTS_ANALYSIS_BOXINGSIMULATOR_H
#define ONEFLOWDIALECT_UNITTESTS_ANALYSIS_BOXINGSIMULATOR_H

#include "OneFlowDialect/Analysis/BoxingRoute.h"
#include "ofsupport/Layout.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace boxingsim {

using Region = std::vector<ofsupport::Range>;

/// What one rank holds: a region of the logical tensor and its values,
/// row-major over the region.
struct Piece {
  Region region;
  std::vector<int64_t> values;
};

/// The pieces of every rank of a placement, by position in its rank list.
using Pieces = std::vector<Piece>;

/// Logical values 1, 2, 3, ... for a tensor of `shape`.
std::vector<int64_t> iota(const std::vector<int64_t> &shape);

/// The pieces of `logical` under `layout`. The logical tensor is split at
/// random into one summand per combination of coordinates on P mesh axes
/// (for P(max), P(min): one part holds each value, the others random
/// values below, above, it).
Pieces distribute(const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &logical,
                  const ofsupport::TensorLayout &layout, std::mt19937 &rng);

/// Applies `step` to `pieces` (laid out as `step.from`). Returns an empty
/// string, or why the step cannot apply (its kind does not match the SBPs,
/// its axis group's pieces do not tile one range, ...).
std::string apply(const std::vector<int64_t> &shape,
                  const mlir::oneflow::BoxingStep &step, Pieces &pieces);

/// Checks that `pieces` hold `logical` under `layout`: each rank's region
/// is its localSlice, replicas along B axes agree, and the pieces summed
/// (maxed, mined) over P axes give the logical values. Returns an empty string
/// or why not.
std::string check(const std::vector<int64_t> &shape,
                  const std::vector<int64_t> &logical,
                  const ofsupport::TensorLayout &layout, const Pieces &pieces);

} // namespace boxingsim

#endif // ONEFLOWDIALECT_UNITTESTS_ANALYSIS_BOXINGSIMULATOR_H
