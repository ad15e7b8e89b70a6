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

#include "Descent.h"

#include "mlir/IR/Threading.h"
#include "llvm/ADT/Hashing.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::detail;

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
  buildBlocks();
  if (options.groupLayers)
    buildGroups();
  buildWindows();
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
        next[n] =
            llvm::hash_combine(next[n], label[problem.getEdges()[e].producer],
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
  groupOfUnit.assign(units.size(), -1);
  for (auto &[hash, members] : byLabel)
    if (members.size() > 1) {
      for (unsigned u : members)
        groupOfUnit[u] = groups.size();
      groups.push_back(std::move(members));
    }
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
  persistent += sign * n.workspace[choice];
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
    unsigned u = unitOfNode[n];
    for (unsigned b : blocksNear[u])
      blockDirty[b] = true;
    markUnitDirty(u);
    for (auto &[w, list] : neighbours[u])
      markUnitDirty(w);
    if (!windowsNear.empty())
      for (unsigned w : windowsNear[unitOfNode[n]])
        dirty[w] = true;
  }
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
  // Near-ties (within rounding) keep the earlier choice.
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
  return !bestMove.empty() && accept(bestMove, best);
}

bool Descent::accept(const Move &move, double change) {
  // A gain must beat rounding: sums of the same terms in another order.
  double threshold = 1e-9 * std::max(seconds, 1e-9);
  if (!(change < -threshold))
    return false;
  apply(move);
  seconds += std::isinf(change) ? 0 : change;
  return true;
}

std::pair<int, int> Descent::run(ArrayRef<unsigned> seed, bool useWindows) {
  assignment.assign(seed.begin(), seed.end());
  live = MaxTree(problem.getNumPositions() + 1);
  persistent = 0;
  for (unsigned n = 0, ne = assignment.size(); n < ne; ++n)
    account(n, assignment[n], +1);
  StrategyCost cost = problem.evaluate(assignment);
  seconds = cost.seconds();
  dirty.assign(windows.size(), true);
  blockDirty.assign(blocks.size(), true);
  unitDirty.assign(units.size(), true);
  groupDirty.assign(groups.size(), true);
  int sweeps = 0, moves = 0;
  while (sweeps < options.maxSweeps) {
    ++sweeps;
    int before = moves;
    for (unsigned b = 0, e = blocks.size(); b < e; ++b) {
      // A block nothing in or next to has moved since it was solved would
      // solve to the same choices (its own move leaves it at its optimum).
      // Under a memory limit a move's worth also depends on the peak
      // memory, which any move changes: every block is solved again.
      if (!blockDirty[b] && !options.memoryLimitBytes)
        continue;
      moves += improveBlock(b, 0);
      blockDirty[b] = false;
      // Under a memory limit, also blocks solved with bytes priced in.
      if (options.memoryLimitBytes)
        for (double scale : {0.25, 1.0, 4.0, 16.0})
          moves += improveBlock(b, scale * std::max(seconds, 1e-9) /
                                       *options.memoryLimitBytes);
    }
    // A window is solved again only when something in or next to it moved.
    // Of the same window in several layers, the first dirty one stands
    // for all (its solution is also tried in all of them at once).
    if (useWindows) {
      DenseSet<unsigned> solvedClasses;
      for (unsigned w = 0, e = windows.size(); w < e; ++w)
        if (dirty[w]) {
          dirty[w] = false;
          if (!solvedClasses.insert(windowClass[w]).second)
            continue;
          moves += improveWindow(w);
        }
    }
    // Likewise a group or unit whose members and their neighbours have not
    // moved since it was last tried.
    bool skipClean = !options.memoryLimitBytes;
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (skipClean && !groupDirty[g])
        continue;
      moves += improve(group);
      groupDirty[g] = false;
    }
    for (unsigned u = 0, e = units.size(); u < e; ++u) {
      if (skipClean && !unitDirty[u])
        continue;
      moves += improve(ArrayRef<unsigned>(u));
      unitDirty[u] = false;
    }
    if (moves == before)
      break;
  }
  return {sweeps, moves};
}

FailureOr<SearchResult> mlir::oneflow::searchCoordinateDescent(
    ParallelProblem &problem, ArrayRef<Seed> seeds,
    const SearchOptions &options, std::string &error) {
  MLIRContext *context = problem.getPlacement().getContext();
  // One descent is built, and copied for each seed, which descend on
  // threads where the context has them (the result does not depend on it).
  Descent prototype(problem, options);
  std::optional<SearchResult> best;
  auto within = [&](const StrategyCost &cost) {
    return !options.memoryLimitBytes ||
           cost.memoryBytes <= *options.memoryLimitBytes;
  };
  // Every seed descends with the cheap moves; the best then again
  // with windows solved exactly.
  SmallVector<std::optional<SearchResult>> started(seeds.size());
  parallelFor(context, 0, seeds.size(), [&](size_t i) {
    FailureOr<SmallVector<unsigned>> start = problem.completeSeed(seeds[i]);
    if (failed(start))
      return;
    Descent descent(prototype);
    auto [sweeps, moves] = descent.run(*start, /*useWindows=*/false);
    SearchResult result;
    result.assignment.assign(descent.getAssignment().begin(),
                             descent.getAssignment().end());
    result.cost = problem.evaluate(result.assignment);
    result.origin = seeds[i].name;
    result.sweeps = sweeps;
    result.moves = moves;
    started[i] = std::move(result);
  });
  SmallVector<SearchResult> descended;
  for (std::optional<SearchResult> &result : started)
    if (result)
      descended.push_back(std::move(*result));
  auto score = [&](const SearchResult &result) {
    double excess =
        options.memoryLimitBytes
            ? std::max(0.0, result.cost.memoryBytes - *options.memoryLimitBytes)
            : 0.0;
    return result.cost.seconds() + excess * kSecondsPerExcessByte;
  };
  std::stable_sort(descended.begin(), descended.end(),
                   [&](const SearchResult &a, const SearchResult &b) {
                     return score(a) < score(b);
                   });
  // Small graphs polish every seed, large ones the best (each window costs
  // an integer program).
  size_t polished =
      problem.getNodes().size() <= kSmallGraph ? descended.size() : 1;
  if (options.windowUnits >= 2)
    parallelFor(context, 0, std::min(polished, descended.size()),
                [&](size_t i) {
                  SearchResult &result = descended[i];
                  Descent descent(prototype);
                  auto [sweeps, moves] =
                      descent.run(result.assignment, /*useWindows=*/true);
                  result.assignment.assign(descent.getAssignment().begin(),
                                           descent.getAssignment().end());
                  result.cost = problem.evaluate(result.assignment);
                  result.sweeps += sweeps;
                  result.moves += moves;
                });
  for (SearchResult &result : descended) {
    if (std::isinf(result.cost.seconds()) || !within(result.cost))
      continue;
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
