//===- AutoParallel.h - Whole-graph SBP search (AutoDDL) --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The search of oneflow-auto-parallel as a library: a training graph on one
// placement becomes a problem in which every op picks one of its legal
// nd-SBP signatures (sources one layout), and a strategy costs
//
//   step time = sum over ops of compute(op, signature)
//             + sum over operands of boxing(producer layout -> needed layout)
//
// under the alpha-beta and roofline model of CostModel.h, with the memory
// per device (variables and optimizer states, plus the peak of the values
// live at once in program order) under an optional limit. Two searches
// solve it: AutoDDL's coordinate descent (seeded from hand strategies,
// sweeping ops and groups of identical ops until no move gains) and an
// exact integer program (GLPK) with its LP relaxation as a lower bound.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_ANALYSIS_AUTOPARALLEL_H
#define ONEFLOWDIALECT_ANALYSIS_AUTOPARALLEL_H

#include "OneFlowDialect/Analysis/CostModel.h"
#include "OneFlowDialect/Analysis/SbpCandidates.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace mlir::oneflow {

/// The f64 seconds per step that oneflow-auto-parallel predicts for the
/// layouts it chose, set on the function it laid out.
inline constexpr llvm::StringLiteral kPredictedStepAttrName =
    "oneflow.predicted_step_seconds";

/// What a strategy costs under the model.
struct StrategyCost {
  double computeSeconds = 0;
  double commSeconds = 0;
  /// Bytes per device: variables (parameters and optimizer states) and
  /// kernel workspaces, plus the peak of the other values live at once.
  double memoryBytes = 0;

  double seconds() const { return computeSeconds + commSeconds; }
};

/// Layouts a hand strategy gives the sources: the rest is completed greedily
/// op by op (the cheapest signature given its operands), as propagation
/// does.
struct Seed {
  std::string name;
  DenseMap<Operation *, NdSbpAttr> sources;
  /// Every op all-broadcast instead (each device computes everything).
  bool replicated = false;
  /// Whole signatures for some ops (a strategy found on another mesh,
  /// mapped to this one): taken where they are legal choices here.
  DenseMap<Operation *, NdSbpSignature> signatures;
};

/// One op of the problem and the ways it can run.
struct ProblemNode {
  Operation *op;
  /// Legal signatures (for sources, results only), in the op's order.
  SmallVector<NdSbpSignature> choices;
  /// Seconds of compute per choice (with the summing of a partial loss
  /// that an output reads).
  SmallVector<double> compute;
  /// A layout change stated by hand (an oneflow.boxing): its one choice's
  /// "compute" is the boxing's communication.
  bool isLayoutChange = false;
  /// Bytes per device of the kernel's workspace per choice
  /// (CostInterface::getWorkspaceBytes over the devices that share the
  /// work); kept for the whole run, like the variables.
  std::vector<double> workspace;
  /// Index in the function's block: values live from their producer's
  /// position to their last reader's.
  unsigned position = 0;
};

/// A tensor flowing from one node's result to another's operand.
struct ProblemEdge {
  unsigned producer, result, consumer, operand;
  /// The consumer writes the operand in place (an optimizer update): the
  /// two layouts must be equal.
  bool inPlace = false;
};

/// The search problem of one function on one placement. Its costs may be
/// read, and searched, from several threads at once.
class ParallelProblem {
public:
  /// Builds the problem for `func` on `placement`. Fails with `error`
  /// naming the op when an op has no SBP or cost rule, no legal signature,
  /// or a stated layout on another placement.
  static FailureOr<std::unique_ptr<ParallelProblem>>
  build(func::FuncOp func, PlacementAttr placement, const ClusterDesc &cluster,
        std::string &error);

  ArrayRef<ProblemNode> getNodes() const { return nodes; }
  ArrayRef<ProblemEdge> getEdges() const { return edges; }
  ArrayRef<unsigned> getInEdges(unsigned node) const { return inEdges[node]; }
  ArrayRef<unsigned> getOutEdges(unsigned node) const { return outEdges[node]; }
  PlacementAttr getPlacement() const { return placement; }
  int64_t getNumPositions() const { return numPositions; }

  /// Seconds edge `e` costs when its producer runs choice `from` and its
  /// consumer choice `to`: boxing, infinity when impossible (no route, or
  /// an in-place operand that would change layout). The searches' inner
  /// loop: table lookups once the pair of layouts has been priced.
  double edgeCost(unsigned e, unsigned from, unsigned to) {
    return layoutCost(e, givenLayout(e, from), neededLayout(e, to));
  }
  /// The number of the layout edge `e`'s producer gives it under choice
  /// `from`, and of the one its consumer needs under choice `to`: choices
  /// with equal numbers cost the edge the same.
  unsigned givenLayout(unsigned e, unsigned from) const {
    const EdgeKey &key = edgeKeys[e];
    return resultIndex[key.producer][from * key.producerResults + key.result];
  }
  unsigned neededLayout(unsigned e, unsigned to) const {
    const EdgeKey &key = edgeKeys[e];
    return operandIndex[key.consumer][to * key.consumerOperands + key.operand];
  }
  unsigned getNumLayouts() const { return layouts.size(); }
  /// Seconds edge `e` costs from the layout numbered `have` to `need`.
  double layoutCost(unsigned e, unsigned have, unsigned need) {
    if (have == need)
      return 0;
    const EdgeKey &key = edgeKeys[e];
    if (key.inPlace)
      return std::numeric_limits<double>::infinity();
    std::atomic<double> &slot =
        typeCosts[key.type][have * layouts.size() + need];
    double seconds = slot.load(std::memory_order_relaxed);
    if (std::isnan(seconds)) {
      seconds = priceEdge(e, have, need);
      slot.store(seconds, std::memory_order_relaxed);
    }
    return seconds;
  }
  /// The layout of result `r` of `node` under `choice`.
  GlobalAttr resultLayout(unsigned node, unsigned r, unsigned choice) const;
  /// The layout operand `i` of `node` needs under `choice`.
  GlobalAttr operandLayout(unsigned node, unsigned i, unsigned choice) const;
  /// Bytes one device holds of result `r` of `node` under `choice`.
  double resultBytes(unsigned node, unsigned r, unsigned choice) const;
  /// Bytes one device keeps for `node`'s kernel under `choice`.
  double workspaceBytes(unsigned node, unsigned choice) const {
    return nodes[node].workspace[choice];
  }
  /// Whether `node` is a variable (its bytes live for the whole step).
  bool isPersistent(unsigned node) const;
  /// The last position that reads result `r` of `node` (its own position
  /// when nothing reads it).
  unsigned lastUse(unsigned node, unsigned r) const;

  /// The cost of `assignment` (one choice per node).
  StrategyCost evaluate(ArrayRef<unsigned> assignment);
  /// A lower bound on the step time of any assignment, in one pass over
  /// the graph: every op at its cheapest choice counting its compute and
  /// the boxing of its operands, each operand from its producer's layout
  /// that boxes cheapest into it (an edge is counted at its reader only).
  double localLowerBound();
  /// The smallest memory per device any assignment can have: every value
  /// at its smallest piece.
  double minimumMemory() const;

  /// Completes `seed`: sources take its layouts (or their first choice),
  /// every other node in order the cheapest choice given the choices
  /// before it. Fails when a seeded layout is not a legal choice.
  FailureOr<SmallVector<unsigned>> completeSeed(const Seed &seed);

private:
  ParallelProblem() = default;
  /// The node of `op`, a layout change stated by hand (ZeRO's gathers): one
  /// choice, which costs its route.
  LogicalResult addLayoutChangeNode(Operation *op, unsigned position,
                                    std::string &error);
  /// The node of `op`, an op with an SBP and a cost rule: its legal
  /// choices and what each costs.
  LogicalResult addOpNode(Operation *op, unsigned position,
                          std::string &error);
  /// The edges between the nodes (`nodeOf`), and each result's last use
  /// (`positionOf`).
  LogicalResult connect(const DenseMap<Operation *, unsigned> &nodeOf,
                        const DenseMap<Operation *, unsigned> &positionOf,
                        std::string &error);
  /// Adds to `n`'s compute the all-reduce that sums a partial scalar an
  /// output reads (a loss), as propagation lays outputs out.
  void addOutputCosts(unsigned n);
  /// Seconds to turn `from` into `to`, cached by logical type and layouts
  /// (safe to call from several threads).
  double cachedBoxing(RankedTensorType type, GlobalAttr from, GlobalAttr to);
  /// Numbers every layout the choices state and every edge's type, and
  /// sizes the tables edgeCost fills.
  void indexLayouts();
  /// The boxing of edge `e` from layout `have` to layout `need` (indices).
  double priceEdge(unsigned e, unsigned have, unsigned need);

  /// What edgeCost reads of an edge, in one place.
  struct EdgeKey {
    unsigned producer, result, producerResults;
    unsigned consumer, operand, consumerOperands;
    unsigned type;
    bool inPlace;
  };

  PlacementAttr placement;
  ClusterDesc cluster;
  SmallVector<ProblemNode> nodes;
  SmallVector<ProblemEdge> edges;
  SmallVector<SmallVector<unsigned>> inEdges, outEdges;
  /// Per node and result: the last position that reads it.
  SmallVector<SmallVector<unsigned>> lastUses;
  int64_t numPositions = 0;
  /// Boxing costs by (logical type, from, to), under `boxingMutex`.
  DenseMap<std::tuple<Type, Attribute, Attribute>, double> boxingCosts;
  std::mutex boxingMutex;
  /// Every nd-SBP a choice states, numbered.
  SmallVector<NdSbpAttr> layouts;
  /// Per node: the numbers of each choice's result layouts ([choice *
  /// results + r]) and operand layouts ([choice * operands + i]).
  SmallVector<SmallVector<unsigned>> resultIndex, operandIndex;
  SmallVector<EdgeKey> edgeKeys;
  /// The logical types the edges carry, numbered.
  SmallVector<RankedTensorType> edgeTypes;
  /// Per edge type: seconds by (layout given, layout needed), NaN until
  /// priced. Searches on several threads share them: a slot two threads
  /// price at once gets the same value twice.
  SmallVector<std::unique_ptr<std::atomic<double>[]>> typeCosts;
};

/// How to search.
struct SearchOptions {
  /// Bytes per device a strategy may use; none: no limit.
  std::optional<double> memoryLimitBytes;
  /// Move groups of identical ops (repeated layers) together, as well as
  /// single ops.
  bool groupLayers = true;
  /// Coordinate descent: units (an op with the variables it updates) per
  /// window solved together exactly; below 2, no windows.
  unsigned windowUnits = 12;
  /// Sweeps over the graph before giving up on convergence.
  int maxSweeps = 50;
  /// The exact search: seconds GLPK may take; 0: no limit.
  double timeLimitSeconds = 60;
  /// Integer programs: branch-and-bound nodes GLPK may open before it
  /// stops with the best solution found; 0: no limit. Unlike the time
  /// limit, what a solve returns then does not depend on the machine or
  /// its load.
  int nodeLimit = 0;
};

/// A strategy found by a search.
struct SearchResult {
  SmallVector<unsigned> assignment;
  StrategyCost cost;
  /// The seed the coordinate descent started from, or "exact".
  std::string origin;
  /// Coordinate descent: sweeps and moves taken. Exact: whether GLPK
  /// proved the optimum (else the best it found within the time limit).
  int sweeps = 0;
  int moves = 0;
  bool optimal = false;
};

/// AutoDDL's coordinate descent from every seed; the best result (the
/// earliest seed on ties). Fails with `error` when no seed gives a
/// strategy within the memory limit.
FailureOr<SearchResult> searchCoordinateDescent(ParallelProblem &problem,
                                                ArrayRef<Seed> seeds,
                                                const SearchOptions &options,
                                                std::string &error);

/// The same problem as an integer program (choice variables, one
/// transport polytope per edge, one memory row per program position),
/// solved with GLPK. Fails with `error` when infeasible or unsolved.
FailureOr<SearchResult> searchExact(ParallelProblem &problem,
                                    const SearchOptions &options,
                                    std::string &error);

/// The integer program over the nodes `free` marks, every other node fixed
/// at `assignment`: the best choices of a region given the rest (the block
/// moves of the coordinate descent). Returns every node's choice.
FailureOr<SmallVector<unsigned>> solveRegion(ParallelProblem &problem,
                                             ArrayRef<unsigned> assignment,
                                             ArrayRef<bool> free,
                                             const SearchOptions &options,
                                             std::string &error);

/// The LP relaxation of the integer program: a lower bound on the step
/// time of any strategy within the memory limit.
FailureOr<double> lowerBound(ParallelProblem &problem,
                             const SearchOptions &options, std::string &error);

/// The column titles of printCostRow.
void printCostHeader(llvm::raw_ostream &os);
/// One row: a strategy's name, step time, compute, communication (us) and
/// bytes per device.
void printCostRow(llvm::raw_ostream &os, StringRef name,
                  const StrategyCost &cost);
/// One line per op of `problem` under `assignment`: location, signature,
/// compute, the boxing of its operands, the bytes of its results, and the
/// best other signature with every other op fixed and what it would change.
void printOpCosts(ParallelProblem &problem, ArrayRef<unsigned> assignment,
                  llvm::raw_ostream &os);

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_ANALYSIS_AUTOPARALLEL_H
