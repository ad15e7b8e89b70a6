//===- CostModel.h - Alpha-beta cost of boxing and compute ------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One cost model for propagation tie-breaks, the auto-parallel search and
// the boxing cost report. Communication follows the alpha-beta model: a
// message of n bytes over a link costs alpha + n / beta seconds; collectives
// in a group of p ranks cost
//
//   all-reduce                          2(p-1) alpha + 2(p-1)/p * n / beta
//   reduce-scatter, all-gather, a2a      (p-1) alpha +  (p-1)/p * n / beta
//
// where n is the bytes of the tensor the group holds together. A group uses
// the inter-node link as soon as it spans two nodes. Local steps (slice, to
// partial) are memory-bandwidth copies; transfers between placements cost the
// most any rank receives. Compute is roofline: max(flops / flops-per-second,
// bytes / memory bandwidth), divided over the ranks that share the work.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ANALYSIS_COSTMODEL_H
#define ONEFLOWDIALECT_ANALYSIS_COSTMODEL_H

#include "OneFlowDialect/Analysis/BoxingRoute.h"
#include "OneFlowDialect/IR/OneFlowAttrs.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <limits>
#include <map>
#include <optional>
#include <string>

namespace mlir::oneflow {

/// Latency and bandwidth of one kind of link.
struct LinkDesc {
  /// Seconds per message.
  double alpha = 0;
  /// Bytes per second.
  double beta = 1;
};

/// The machines a program runs on, as the cost model sees them. Ranks
/// `k * ranksPerNode` to `(k + 1) * ranksPerNode - 1` share node `k`.
struct ClusterDesc {
  /// Ranks per node; a group whose ranks lie on two nodes uses `interNode`.
  /// (The defaults here only keep a default-constructed description
  /// defined: one node, figures of the order of a CPU core. getDefault()
  /// and getBuiltin() have measured ones.)
  int64_t ranksPerNode = std::numeric_limits<int32_t>::max();
  LinkDesc intraNode;
  LinkDesc interNode;
  /// Measured figures per collective for groups inside one node
  /// (of-calibrate), which override `intraNode` there: all-reduce,
  /// reduce-scatter, all-gather, all-to-all.
  std::optional<LinkDesc> allReduce, reduceScatter, allGather, allToAll;
  /// Measured figures per collective for the groups along one axis of a
  /// mesh of ranks 0 .. N-1 in order, all groups at once (of-calibrate
  /// --mesh): they override the per-collective ones for a placement with
  /// that mesh and those ranks, where groups along different axes may
  /// differ (ranks that share a core, a socket, a switch).
  struct MeshAxisFigures {
    SmallVector<int64_t> mesh;
    int64_t axis = 0;
    std::optional<LinkDesc> allReduce, reduceScatter, allGather, allToAll;
  };
  std::vector<MeshAxisFigures> meshAxes;
  /// Bytes per second one rank copies in memory.
  double memoryBandwidth = 1e10;
  /// Floating-point operations per second of one rank.
  double flops = 1e11;
  /// A measured rate by the size of the call, in increasing `amount`.
  struct Throughput {
    double amount = 0; ///< Operations (or bytes) of one call.
    double rate = 0;   ///< Per second.
  };
  /// of-calibrate's "matmul_flops" (square matmuls in the runtime's
  /// engine); when present it replaces `flops` (flopsPerSecond).
  std::vector<Throughput> flopsBySize;
  /// of-calibrate's "elementwise_bandwidth" (adds in the runtime's engine);
  /// when present it replaces `memoryBandwidth` for ops
  /// (bytesPerSecond).
  std::vector<Throughput> bandwidthBySize;
  /// of-calibrate's "op_rates": per op name ("oneflow.gelu"), the bytes
  /// per second of its own kernel by the bytes of a call; an op listed
  /// here is priced by them instead (bytesPerSecondOf).
  std::map<std::string, std::vector<Throughput>, std::less<>> opRates;
  /// Seconds every kernel costs whatever its size (dispatch, the engine's
  /// firing): paid by each op and each local boxing step once per step.
  double opOverhead = 0;

  /// The CPU's default: ranks as threads of one process exchanging through
  /// shared memory (getBuiltin("inproc")).
  static ClusterDesc getDefault();
  /// Built-in figures for a collective library, measured on a 2-core build
  /// machine (ClusterDesc.cpp): "inproc" (ranks as threads, shared
  /// memory), "gloo" (ranks as processes, loopback TCP), "nccl" (GPUs of
  /// an NVLink node, typical figures, not measured here); none for another
  /// name.
  static std::optional<ClusterDesc> getBuiltin(StringRef library);
  /// What a `cluster` option starts with to name built-in figures
  /// ("builtin:gloo") instead of a file.
  static constexpr llvm::StringLiteral kBuiltinPrefix = "builtin:";

  /// Parses a JSON object whose keys override the defaults:
  /// `{"ranks_per_node": 8, "intra_node": {"alpha": 5e-6, "beta": 1e11},
  ///   "inter_node": {...}, "memory_bandwidth": 2e11, "flops": 1e14,
  ///   "collectives": {"all_reduce": {"alpha": ..., "beta": ...}, ...},
  ///   "mesh_axes": [{"mesh": [2, 2], "axis": 0, "collectives": {...}}],
  ///   "matmul_flops": [{"flops": 8192, "rate": 6.6e9}, ...],
  ///   "elementwise_bandwidth": [{"bytes": 12288, "rate": 4e9}, ...],
  ///   "op_rates": {"oneflow.gelu": [{"bytes": 131072, "rate": 2e9}, ...]}}`
  /// (collectives: all_reduce, reduce_scatter, all_gather, all_to_all).
  /// "format" and "identity" (what of-run's cache of measured figures
  /// adds) are accepted and not read.
  /// On failure, `error` names `source` and the offending key.
  static FailureOr<ClusterDesc> parse(StringRef json, StringRef source,
                                      std::string &error);
  /// Reads and parses the file at `path`; an empty path (a pass's
  /// `cluster` option left out) gives getDefault(), "builtin:LIBRARY"
  /// getBuiltin(LIBRARY).
  static FailureOr<ClusterDesc> load(StringRef path, std::string &error);

  /// The link a group of `ranks` (global ranks) communicates over.
  const LinkDesc &linkFor(ArrayRef<int64_t> ranks) const;

  /// Operations per second of a call of `callFlops` operations: the
  /// measured throughput interpolated in log(flops) between the two
  /// nearest sizes (the nearest outside them), else `flops`.
  double flopsPerSecond(double callFlops) const;
  /// Bytes per second of an op that moves `bytes`, the same way.
  double bytesPerSecond(double bytes) const;
  /// The measured rate of the op named `op` moving `bytes` ("op_rates"),
  /// the same way; none where it was not measured.
  std::optional<double> bytesPerSecondOf(StringRef op, double bytes) const;
};

/// What one boxing step costs.
struct StepCost {
  double seconds = 0;
  /// Bytes the busiest rank sends or receives over links (0 for local
  /// steps).
  int64_t bytesPerRank = 0;
};

/// Prices `step` of a boxing of a logical tensor of `type` (static shape).
StepCost priceBoxingStep(RankedTensorType type, const BoxingStep &step,
                         const ClusterDesc &cluster);

/// One priced step of a route.
struct PricedStep {
  BoxingStep step;
  StepCost cost;
};

/// The route `planBoxing` gives from `from` to `to`, each step priced;
/// fails with `why` when no route exists.
FailureOr<SmallVector<PricedStep>> priceBoxing(RankedTensorType type,
                                               GlobalAttr from, GlobalAttr to,
                                               const ClusterDesc &cluster,
                                               std::string &why);

/// Seconds to turn `from` into `to`: 0 when equal, infinity when no route
/// exists.
double boxingCost(RankedTensorType type, GlobalAttr from, GlobalAttr to,
                  const ClusterDesc &cluster);

/// Seconds `op` takes on one rank when the work is split into `pieces`
/// (from its CostInterface, plus the cluster's per-kernel overhead; 0 for
/// an op without one, which propagation and the search refuse before they
/// ask).
double computeCost(Operation *op, int64_t pieces, const ClusterDesc &cluster);

/// Seconds of the collectives `op` runs inside itself with result layouts
/// `results` on `placement`: a softmax, log_softmax or cross-entropy over a
/// split axis (oneflow-expand-split-softmax) all-reduces a max and a sum of
/// the tensor reduced along that axis; 0 for every other op and layout.
double hiddenCommunicationCost(Operation *op, ArrayRef<NdSbpAttr> results,
                               PlacementAttr placement,
                               const ClusterDesc &cluster);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_ANALYSIS_COSTMODEL_H
