//===- Layout.cpp - Balanced splits of SBP-laid-out tensors ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofsupport/Layout.h"

#include <cassert>

using namespace ofsupport;

std::string Sbp::str() const {
  switch (kind) {
  case SbpKind::Split:
    return "S(" + std::to_string(axis) + ")";
  case SbpKind::Broadcast:
    return "B";
  case SbpKind::Partial:
    return reduction == Reduction::Sum
               ? "P"
               : std::string("P(") + reductionName(reduction) + ")";
  }
  return "?";
}

const char *ofsupport::reductionName(Reduction reduction) {
  switch (reduction) {
  case Reduction::Sum:
    return "sum";
  case Reduction::Max:
    return "max";
  case Reduction::Min:
    return "min";
  }
  return "?";
}

bool ofsupport::mixesReductions(const std::vector<Sbp> &ndSbp) {
  const Sbp *first = nullptr;
  for (const Sbp &sbp : ndSbp) {
    if (sbp.kind != SbpKind::Partial)
      continue;
    if (first && first->reduction != sbp.reduction)
      return true;
    first = &sbp;
  }
  return false;
}

Range ofsupport::balancedPart(int64_t length, int64_t parts, int64_t index) {
  assert(length >= 0 && parts >= 1 && index >= 0 && index < parts);
  int64_t base = length / parts;
  int64_t extra = length % parts;
  // The first `extra` parts hold base + 1 elements.
  int64_t begin = index * base + (index < extra ? index : extra);
  return {begin, base + (index < extra ? 1 : 0)};
}

std::vector<Range> ofsupport::balancedSplit(int64_t length, int64_t parts) {
  std::vector<Range> ranges;
  ranges.reserve(parts);
  for (int64_t i = 0; i < parts; ++i)
    ranges.push_back(balancedPart(length, parts, i));
  return ranges;
}

std::vector<int64_t> ofsupport::meshCoordinate(const std::vector<int64_t> &mesh,
                                               int64_t parallelId) {
  std::vector<int64_t> coord(mesh.size());
  for (size_t i = mesh.size(); i-- > 0;) {
    coord[i] = parallelId % mesh[i];
    parallelId /= mesh[i];
  }
  return coord;
}

std::optional<std::string>
ofsupport::validateLayout(const std::vector<int64_t> &shape,
                          const TensorLayout &layout) {
  if (layout.mesh.empty())
    return std::string("the device mesh has no axes");
  for (int64_t dim : layout.mesh)
    if (dim < 1)
      return "mesh axis of size " + std::to_string(dim) + " is not positive";
  if (layout.ndSbp.size() != layout.mesh.size())
    return "nd-SBP has " + std::to_string(layout.ndSbp.size()) +
           " entries but the mesh has " + std::to_string(layout.mesh.size()) +
           " axes";
  for (const Sbp &sbp : layout.ndSbp)
    if (sbp.kind == SbpKind::Split &&
        (sbp.axis < 0 || sbp.axis >= static_cast<int64_t>(shape.size())))
      return "split axis " + std::to_string(sbp.axis) +
             " is out of range for a rank-" + std::to_string(shape.size()) +
             " tensor";
  for (int64_t dim : shape)
    if (dim < 0)
      return "dimension " + std::to_string(dim) + " is negative";
  return std::nullopt;
}

std::vector<Range> ofsupport::localSlice(const std::vector<int64_t> &shape,
                                         const TensorLayout &layout,
                                         int64_t parallelId) {
  assert(!validateLayout(shape, layout) && "invalid layout");
  std::vector<Range> ranges;
  ranges.reserve(shape.size());
  for (int64_t dim : shape)
    ranges.push_back({0, dim});
  std::vector<int64_t> coord = meshCoordinate(layout.mesh, parallelId);
  // Mesh axes apply in order, each splitting what the previous ones left.
  for (size_t i = 0; i < layout.mesh.size(); ++i) {
    const Sbp &sbp = layout.ndSbp[i];
    if (sbp.kind != SbpKind::Split)
      continue;
    Range &range = ranges[sbp.axis];
    Range part = balancedPart(range.size, layout.mesh[i], coord[i]);
    range = {range.begin + part.begin, part.size};
  }
  return ranges;
}

std::vector<int64_t> ofsupport::localShape(const std::vector<int64_t> &shape,
                                           const TensorLayout &layout,
                                           int64_t parallelId) {
  std::vector<int64_t> local;
  for (const Range &range : localSlice(shape, layout, parallelId))
    local.push_back(range.size);
  return local;
}
