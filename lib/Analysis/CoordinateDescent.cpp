//===- CoordinateDescent.cpp - AutoDDL's search over SBP signatures -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Coordinate descent as in AutoDDL: from a complete strategy, move one
// coordinate at a time to its best value given the rest, until a whole
// sweep gains nothing. A coordinate is a unit: an op together with the
// variables it writes in place (an optimizer update and its parameter and
// states move together, since their layouts must stay equal), or a group
// of identical units (the same op on the same shapes in every repeated
// layer, found by Weisfeiler-Lehman labels over producers), which is
// searched once for all its layers before each unit on its own. Over a
// memory limit, every byte of excess costs a second, so moves first bring
// the strategy under the limit.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/MapVector.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::oneflow;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Seconds one byte over the memory limit costs: more than any strategy's
/// step time, so the search leaves infeasible strategies first.
static constexpr double kSecondsPerExcessByte = 1.0;

namespace {

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

  /// Runs from `seed`; returns the sweeps and moves taken.
  std::pair<int, int> run(ArrayRef<unsigned> seed);
  ArrayRef<unsigned> getAssignment() const { return assignment; }

private:
  using Move = SmallVector<std::pair<unsigned, unsigned>>;

  void buildUnits();
  void buildGroups();
  /// Appends to `move` the unit `u` at anchor choice `c`; false when the
  /// followers cannot follow.
  bool appendUnit(unsigned u, unsigned c, Move &move) const;
  /// The change of the score if `move` were applied.
  double delta(const Move &move);
  void apply(const Move &move);
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
  SmallVector<unsigned> numResults;
  SmallVector<SmallVector<double>> resultBytes;
  SmallVector<unsigned> assignment;
  MaxTree live;
  double persistent = 0;
  double seconds = 0;
  /// Scratch for `delta`: nodes a move sets, by stamp.
  SmallVector<unsigned> stampOf, nextChoice;
  unsigned stamp = 0;
};

} // namespace

Descent::Descent(ParallelProblem &problem, const SearchOptions &options)
    : problem(problem), options(options), live(problem.getNumPositions() + 1) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  stampOf.assign(nodes.size(), 0);
  nextChoice.assign(nodes.size(), 0);
  for (auto [n, node] : llvm::enumerate(nodes)) {
    numResults.push_back(node.op->getNumResults());
    SmallVector<double> sizes;
    if (options.memoryLimitBytes)
      for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c)
        for (unsigned r = 0; r < numResults.back(); ++r)
          sizes.push_back(problem.resultBytes(n, r, c));
    resultBytes.push_back(std::move(sizes));
  }
  buildUnits();
  if (options.groupLayers)
    buildGroups();
}

void Descent::buildUnits() {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  SmallVector<int> leader(nodes.size(), -1);
  for (auto [e, edge] : llvm::enumerate(problem.getEdges()))
    if (edge.inPlace && leader[edge.producer] < 0)
      leader[edge.producer] = edge.consumer;
  DenseMap<unsigned, unsigned> unitOf;
  for (unsigned n = 0, ne = nodes.size(); n < ne; ++n) {
    if (leader[n] >= 0)
      continue;
    unitOf[n] = units.size();
    units.push_back(Unit{n, {}, {}});
  }
  for (auto [e, edge] : llvm::enumerate(problem.getEdges()))
    if (edge.inPlace && leader[edge.producer] == int(edge.consumer) &&
        unitOf.count(edge.consumer))
      units[unitOf[edge.consumer]].followers.push_back(
          {edge.producer, unsigned(e)});
  for (Unit &unit : units) {
    const ProblemNode &anchor = nodes[unit.anchor];
    for (unsigned c = 0, ce = anchor.choices.size(); c < ce; ++c) {
      SmallVector<unsigned> choices;
      for (auto [follower, e] : unit.followers) {
        const ProblemEdge &edge = problem.getEdges()[e];
        NdSbpAttr need = anchor.choices[c].operands[edge.operand];
        const auto &options = nodes[follower].choices;
        auto it = llvm::find_if(options, [&](const NdSbpSignature &choice) {
          return choice.results[edge.result] == need;
        });
        if (it == options.end()) {
          choices.clear();
          break;
        }
        choices.push_back(it - options.begin());
      }
      if (choices.size() != unit.followers.size())
        choices.clear();
      unit.followerChoices.push_back(std::move(choices));
    }
  }
}

/// A label of an op that ignores names and seeds: its kind, types and
/// other attributes.
static llvm::hash_code initialLabel(Operation *op) {
  llvm::hash_code hash = llvm::hash_value(op->getName().getAsOpaquePointer());
  for (Type type : op->getOperandTypes())
    hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
  for (Type type : op->getResultTypes())
    hash = llvm::hash_combine(hash, type.getAsOpaquePointer());
  for (NamedAttribute attr : op->getAttrs()) {
    if (isa<StringAttr>(attr.getValue()) || attr.getName() == "seed")
      continue;
    hash = llvm::hash_combine(hash, attr.getName().getAsOpaquePointer(),
                              attr.getValue().getAsOpaquePointer());
  }
  return hash;
}

void Descent::buildGroups() {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  SmallVector<llvm::hash_code> label;
  for (const ProblemNode &node : nodes)
    label.push_back(initialLabel(node.op));
  // Three rounds over producers: ops of repeated layers share labels, ops
  // near the ends of the stack (whose producers differ) do not.
  for (int round = 0; round < 3; ++round) {
    SmallVector<llvm::hash_code> next(label);
    for (unsigned n = 0, ne = nodes.size(); n < ne; ++n)
      for (unsigned e : problem.getInEdges(n))
        next[n] = llvm::hash_combine(next[n], label[problem.getEdges()[e].producer],
                                     problem.getEdges()[e].result);
    label = std::move(next);
  }
  llvm::MapVector<size_t, SmallVector<unsigned>> byLabel;
  for (auto [u, unit] : llvm::enumerate(units)) {
    llvm::hash_code hash = label[unit.anchor];
    for (const NdSbpSignature &choice : nodes[unit.anchor].choices) {
      for (NdSbpAttr sbp : choice.operands)
        hash = llvm::hash_combine(hash, sbp.getAsOpaquePointer());
      for (NdSbpAttr sbp : choice.results)
        hash = llvm::hash_combine(hash, sbp.getAsOpaquePointer());
    }
    for (auto [follower, e] : unit.followers)
      hash = llvm::hash_combine(hash, label[follower]);
    byLabel[hash].push_back(u);
  }
  for (auto &[hash, members] : byLabel)
    if (members.size() > 1)
      groups.push_back(std::move(members));
}

bool Descent::appendUnit(unsigned u, unsigned c, Move &move) const {
  const Unit &unit = units[u];
  if (!unit.followers.empty() && unit.followerChoices[c].empty())
    return false;
  move.push_back({unit.anchor, c});
  for (auto [i, follower] : llvm::enumerate(unit.followers))
    move.push_back({follower.first, unit.followerChoices[c][i]});
  return true;
}

void Descent::account(unsigned node, unsigned choice, double sign) {
  if (!options.memoryLimitBytes)
    return;
  const ProblemNode &n = problem.getNodes()[node];
  for (unsigned r = 0; r < numResults[node]; ++r) {
    double size = sign * bytes(node, choice, r);
    if (problem.isPersistent(node))
      persistent += size;
    else
      live.add(n.position, problem.lastUse(node, r), size);
  }
}

double Descent::delta(const Move &move) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  ArrayRef<ProblemEdge> edges = problem.getEdges();
  ++stamp;
  for (auto [n, c] : move) {
    stampOf[n] = stamp;
    nextChoice[n] = c;
  }
  auto next = [&](unsigned n) {
    return stampOf[n] == stamp ? nextChoice[n] : assignment[n];
  };
  double before = 0, after = 0;
  for (auto [n, c] : move) {
    before += nodes[n].compute[assignment[n]];
    after += nodes[n].compute[c];
    for (unsigned e : problem.getInEdges(n)) {
      unsigned p = edges[e].producer;
      before += problem.edgeCost(e, assignment[p], assignment[n]);
      after += problem.edgeCost(e, next(p), c);
    }
    for (unsigned e : problem.getOutEdges(n)) {
      unsigned q = edges[e].consumer;
      if (stampOf[q] == stamp)
        continue; // Counted from the consumer.
      before += problem.edgeCost(e, assignment[n], assignment[q]);
      after += problem.edgeCost(e, c, assignment[q]);
    }
  }
  if (std::isinf(after))
    return kInfinity;
  double change = std::isinf(before) ? -kInfinity : after - before;
  if (options.memoryLimitBytes) {
    double old = penalty(persistent + live.top());
    for (auto [n, c] : move) {
      account(n, assignment[n], -1);
      account(n, c, +1);
    }
    change += penalty(persistent + live.top()) - old;
    for (auto [n, c] : move) {
      account(n, c, -1);
      account(n, assignment[n], +1);
    }
  }
  return change;
}

void Descent::apply(const Move &move) {
  for (auto [n, c] : move) {
    account(n, assignment[n], -1);
    account(n, c, +1);
    assignment[n] = c;
  }
}

bool Descent::improve(ArrayRef<unsigned> members) {
  unsigned numChoices =
      problem.getNodes()[units[members.front()].anchor].choices.size();
  double best = 0;
  Move bestMove;
  // A gain must beat rounding: sums of the same terms in another order.
  double threshold = 1e-9 * std::max(seconds, 1e-9);
  for (unsigned c = 0; c < numChoices; ++c) {
    Move move;
    bool possible = true;
    for (unsigned u : members)
      possible = possible && appendUnit(u, c, move);
    if (!possible)
      continue;
    double change = delta(move);
    if (change < best - threshold) {
      best = change;
      bestMove = std::move(move);
    }
  }
  if (bestMove.empty())
    return false;
  apply(bestMove);
  seconds += std::isinf(best) ? 0 : best;
  return true;
}

std::pair<int, int> Descent::run(ArrayRef<unsigned> seed) {
  assignment.assign(seed.begin(), seed.end());
  live = MaxTree(problem.getNumPositions() + 1);
  persistent = 0;
  for (unsigned n = 0, ne = assignment.size(); n < ne; ++n)
    account(n, assignment[n], +1);
  StrategyCost cost = problem.evaluate(assignment);
  seconds = cost.seconds();
  int sweeps = 0, moves = 0;
  while (sweeps < options.maxSweeps) {
    ++sweeps;
    int before = moves;
    for (ArrayRef<unsigned> group : groups)
      moves += improve(group);
    for (unsigned u = 0, e = units.size(); u < e; ++u)
      moves += improve(ArrayRef<unsigned>(u));
    if (moves == before)
      break;
  }
  return {sweeps, moves};
}

FailureOr<SearchResult>
mlir::oneflow::searchCoordinateDescent(ParallelProblem &problem,
                                       ArrayRef<Seed> seeds,
                                       const SearchOptions &options,
                                       std::string &error) {
  Descent descent(problem, options);
  std::optional<SearchResult> best;
  auto within = [&](const StrategyCost &cost) {
    return !options.memoryLimitBytes ||
           cost.memoryBytes <= *options.memoryLimitBytes;
  };
  for (const Seed &seed : seeds) {
    FailureOr<SmallVector<unsigned>> start = problem.completeSeed(seed);
    if (failed(start))
      continue;
    auto [sweeps, moves] = descent.run(*start);
    SearchResult result;
    result.assignment.assign(descent.getAssignment().begin(),
                             descent.getAssignment().end());
    result.cost = problem.evaluate(result.assignment);
    if (std::isinf(result.cost.seconds()) || !within(result.cost))
      continue;
    result.origin = seed.name;
    result.sweeps = sweeps;
    result.moves = moves;
    if (!best || result.cost.seconds() < best->cost.seconds())
      best = std::move(result);
  }
  if (!best) {
    error = options.memoryLimitBytes
                ? "no strategy found within the memory limit of " +
                      std::to_string(int64_t(*options.memoryLimitBytes)) +
                      " bytes per device; the smallest possible is " +
                      std::to_string(int64_t(problem.minimumMemory())) +
                      " bytes per device (every tensor at its smallest "
                      "piece)"
                : "no seed gives a strategy (every layout of some tensor "
                  "has no route to what its reader needs)";
    return failure();
  }
  return *best;
}
