//===- PropagatedSeed.h - Hand strategies as propagation lays them -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_TRANSFORMS_PROPAGATEDSEED_H
#define ONEFLOW_LIB_TRANSFORMS_PROPAGATEDSEED_H

#include "OneFlowDialect/Analysis/AutoParallel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mlir::oneflow {

/// A hand strategy as SBP propagation lays it out, and the mesh it is on.
struct PropagatedSeed {
  SmallVector<int64_t> mesh;
  Seed seed;
};

/// The built-in strategy `name` (dp, tp, zero, hybrid) on `devices`
/// devices of `device`, as oneflow-apply-strategy and
/// oneflow-sbp-propagation (priced with `cluster`, a file or builtin:...)
/// lay out a copy of `func`: every op's signature, as a seed. None when the
/// copy does not lay out on one placement (a layout the program states that
/// the strategy contradicts) or its ops are not the function's one for one.
std::optional<PropagatedSeed> propagatedSeed(func::FuncOp func, StringRef name,
                                             int64_t devices, StringRef device,
                                             StringRef cluster,
                                             const ClusterDesc &figures);

} // namespace mlir::oneflow

#endif // ONEFLOW_LIB_TRANSFORMS_PROPAGATEDSEED_H
