//===- Descent.h - The state and moves of the coordinate descent -*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to lib/Analysis: the coordinate descent of searchCoordinateDescent
// (CoordinateDescent.cpp: units, groups, single moves, the sweeps) and its
// block moves (DescentBlocks.cpp: forests solved by min-sum, windows solved
// by the integer program).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_ANALYSIS_DESCENT_H
#define ONEFLOW_LIB_ANALYSIS_DESCENT_H

#include "OneFlowDialect/Analysis/AutoParallel.h"

#include "llvm/ADT/MapVector.h"

#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace mlir::oneflow::detail {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Seconds one byte over the memory limit costs: more than any strategy's
/// step time, so the search leaves infeasible strategies first.
inline constexpr double kSecondsPerExcessByte = 1.0;
/// Graphs of at most this many ops get wider windows and every seed
/// polished with them.
inline constexpr size_t kSmallGraph = 300;
/// Units per window on small graphs, and the signatures a window holds
/// before it stops growing past that.
inline constexpr unsigned kSmallGraphWindow = 32;
inline constexpr size_t kSmallGraphWindowChoices = 256;
/// Columns of a window's integer program past which it stops growing on
/// small graphs, once it has `windowUnits` units (GLPK's time grows faster
/// than the columns: about 0.1 s at 8000, 0.8 s at 25000 on a 2-core VM).
inline constexpr size_t kSmallGraphWindowColumns = 12000;
/// Branch-and-bound nodes a window's integer program may open.
inline constexpr int kWindowNodeLimit = 200;

/// Positions with values added over ranges; the maximum of all of them.
class MaxTree {
public:
  explicit MaxTree(size_t size) : size(std::max<size_t>(1, size)) {
    max.assign(4 * this->size, 0.0);
    pending.assign(4 * this->size, 0.0);
  }
  /// Adds `value` to positions [lo, hi].
  void add(size_t lo, size_t hi, double value) {
    add(1, 0, size - 1, lo, hi, value);
  }
  double top() const { return max[1]; }

private:
  void add(size_t node, size_t begin, size_t end, size_t lo, size_t hi,
           double value) {
    if (hi < begin || end < lo)
      return;
    if (lo <= begin && end <= hi) {
      max[node] += value;
      pending[node] += value;
      return;
    }
    size_t mid = (begin + end) / 2;
    add(2 * node, begin, mid, lo, hi, value);
    add(2 * node + 1, mid + 1, end, lo, hi, value);
    max[node] = std::max(max[2 * node], max[2 * node + 1]) + pending[node];
  }

  size_t size;
  SmallVector<double> max, pending;
};

/// Solved windows, shared by the copies of one descent (its seeds, on
/// threads): by the window and the choices of the fixed nodes next to it,
/// the choices of its free nodes. Without a memory limit a window's
/// integer program depends on nothing else, and GLPK, under a node limit
/// and no time limit, returns the same for the same program.
struct WindowSolutions {
  std::mutex mutex;
  std::map<std::vector<unsigned>, std::vector<unsigned>> byKey;
};

/// An op and the variables it writes in place, which follow its choice.
struct Unit {
  unsigned anchor;
  /// (follower node, the in-place edge that ties it).
  SmallVector<std::pair<unsigned, unsigned>> followers;
  /// Per anchor choice: the followers' choices; empty when some follower
  /// has no choice with the layout the anchor needs.
  SmallVector<SmallVector<unsigned>> followerChoices;
};

class Descent {
public:
  Descent(ParallelProblem &problem, const SearchOptions &options);

  /// Runs from `seed` (with window moves if `useWindows`); returns the
  /// sweeps and moves taken.
  std::pair<int, int> run(ArrayRef<unsigned> seed, bool useWindows);
  ArrayRef<unsigned> getAssignment() const { return assignment; }

private:
  using Move = SmallVector<std::pair<unsigned, unsigned>>;

  void buildUnits();
  void buildGroups();
  void buildBlocks();
  /// Parents as positions, the edges off each forest and blocksNear.
  void indexBlocks();
  /// The choice unit `u`'s member `i` (0: the anchor) takes when the unit
  /// takes `k`.
  unsigned memberChoice(unsigned u, unsigned i, unsigned k) const {
    return i == 0 ? k : units[u].followerChoices[k][i - 1];
  }
  unsigned memberNode(unsigned u, unsigned i) const {
    return i == 0 ? units[u].anchor : units[u].followers[i - 1].first;
  }
  bool validChoice(unsigned u, unsigned k) const {
    return units[u].followers.empty() || !units[u].followerChoices[k].empty();
  }
  /// Solves block `b` by min-sum over its forest, everything outside fixed
  /// (exact when the block's units form a forest; a spanning forest's other
  /// edges are priced against the current choice of their far end), with
  /// `bytesWeight` seconds per byte of results added, and applies the
  /// result if the exact score gains. Returns whether it moved.
  bool improveBlock(unsigned b, double bytesWeight);
  /// The choice of `node` when its unit takes `k`.
  unsigned nodeChoice(unsigned node, unsigned k) const;
  /// Min-sum's step from a child unit into its parent `up` over the
  /// problem edges `list` between them: adds to each parent choice's cost
  /// the best of child cost plus the edges, and records which child choice
  /// gave it (the first on ties).
  void foldChild(unsigned up, ArrayRef<unsigned> list,
                 ArrayRef<double> childCost, MutableArrayRef<double> parentCost,
                 SmallVector<unsigned> &argChild);
  void buildWindows();
  /// Solves window `w` exactly (the integer program over its units, the
  /// rest fixed) and applies the result if it gains.
  bool improveWindow(unsigned w);
  /// The choices window `w`'s integer program gives its `free` nodes (in
  /// node order), from windowSolutions where it was solved with the same
  /// fixed neighbours; failure when GLPK finds none.
  FailureOr<std::vector<unsigned>> solveWindow(unsigned w, ArrayRef<bool> free);
  /// Appends to `move` the unit `u` at anchor choice `c`; false when the
  /// followers cannot follow.
  bool appendUnit(unsigned u, unsigned c, Move &move) const;
  /// The change of the score if `move` were applied.
  double delta(const Move &move);
  void apply(const Move &move);
  /// Applies `move`, whose score change is `change`, if it gains more than
  /// rounding; returns whether it did.
  bool accept(const Move &move, double change);
  /// Tries every choice of the units in `members` (all the same choice);
  /// applies the best if it gains. Returns whether it moved.
  bool improve(ArrayRef<unsigned> members);
  double penalty(double memory) const {
    if (!options.memoryLimitBytes || memory <= *options.memoryLimitBytes)
      return 0;
    return (memory - *options.memoryLimitBytes) * kSecondsPerExcessByte;
  }
  double bytes(unsigned node, unsigned choice, unsigned r) const {
    return resultBytes[node][choice * numResults[node] + r];
  }
  /// Adds the memory of `node`'s results under `choice`, times `sign`.
  void account(unsigned node, unsigned choice, double sign);

  ParallelProblem &problem;
  const SearchOptions &options;
  SmallVector<Unit> units;
  SmallVector<SmallVector<unsigned>> groups;
  /// The unit of every node.
  SmallVector<unsigned> unitOfNode;
  /// Per unit: neighbouring units and the problem edges to each.
  SmallVector<llvm::MapVector<unsigned, SmallVector<unsigned>>> neighbours;
  /// Sets of units whose unit graph is a forest, covering every unit; the
  /// units of each in an order where a tree's parent comes first.
  SmallVector<SmallVector<unsigned>> blocks;
  /// Per block unit: the position in the block of its parent in the
  /// block's forest (-1 for roots).
  SmallVector<SmallVector<int>> parents;
  /// Per block unit: its problem edges that are not edges of the block's
  /// forest (min-sum prices them against the far end's current choice).
  SmallVector<SmallVector<SmallVector<unsigned>>> offTree;
  /// Per unit: the blocks that hold it or a neighbour of it.
  SmallVector<SmallVector<unsigned>> blocksNear;
  /// Blocks whose units or neighbours moved since they were last solved.
  SmallVector<bool> blockDirty;
  /// Units and groups whose members or their neighbours moved since they
  /// were last tried.
  SmallVector<bool> unitDirty, groupDirty;
  void markUnitDirty(unsigned u) {
    unitDirty[u] = true;
    if (!groupOfUnit.empty() && groupOfUnit[u] >= 0)
      groupDirty[groupOfUnit[u]] = true;
  }
  /// Scratch for improveBlock: per block position, cost per choice and the
  /// child's best choice per parent choice.
  SmallVector<SmallVector<double>> blockCost;
  SmallVector<SmallVector<unsigned>> blockArg;
  /// Connected sets of at most `options.windowUnits` units, whose nodes
  /// are solved together exactly.
  SmallVector<SmallVector<unsigned>> windows;
  /// Per unit: the windows that hold it or a neighbour of it.
  SmallVector<SmallVector<unsigned>> windowsNear;
  /// Windows to solve in the next sweep.
  SmallVector<bool> dirty;
  std::shared_ptr<WindowSolutions> windowSolutions =
      std::make_shared<WindowSolutions>();
  /// Per unit: its group, or -1.
  SmallVector<int> groupOfUnit;
  /// Per window: its class; windows whose units lie in the same groups in
  /// the same order (the same window in another layer) share one.
  SmallVector<unsigned> windowClass;
  SmallVector<unsigned> classSize;
  SmallVector<unsigned> numResults;
  SmallVector<SmallVector<double>> resultBytes;
  SmallVector<unsigned> assignment;
  MaxTree live;
  double persistent = 0;
  double seconds = 0;
  /// Scratch for foldChild: per layout number, a slot or -1.
  SmallVector<int> layoutSlot;
  /// Scratch for `delta`: nodes a move sets, by stamp.
  SmallVector<unsigned> stampOf, nextChoice;
  unsigned stamp = 0;
};

} // namespace mlir::oneflow::detail

#endif // ONEFLOW_LIB_ANALYSIS_DESCENT_H
