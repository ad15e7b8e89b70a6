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
#include <map>

using namespace mlir;
using namespace mlir::oneflow;

static constexpr double kInfinity = std::numeric_limits<double>::infinity();
/// Seconds one byte over the memory limit costs: more than any strategy's
/// step time, so the search leaves infeasible strategies first.
static constexpr double kSecondsPerExcessByte = 1.0;
/// Graphs of at most this many ops get wider windows and every seed
/// polished with them.
static constexpr size_t kSmallGraph = 300;
/// Units per window on small graphs, and the signatures a window holds
/// before it stops growing past that.
static constexpr unsigned kSmallGraphWindow = 32;
static constexpr size_t kSmallGraphWindowChoices = 256;

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

  /// Runs from `seed` (with window moves if `useWindows`); returns the
  /// sweeps and moves taken.
  std::pair<int, int> run(ArrayRef<unsigned> seed, bool useWindows);
  ArrayRef<unsigned> getAssignment() const { return assignment; }

private:
  using Move = SmallVector<std::pair<unsigned, unsigned>>;

  void buildUnits();
  void buildGroups();
  void buildBlocks();
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
  void buildWindows();
  /// Solves window `w` exactly (the integer program over its units, the
  /// rest fixed) and applies the result if it gains.
  bool improveWindow(unsigned w);
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
  /// The unit of every node.
  SmallVector<unsigned> unitOfNode;
  /// Per unit: neighbouring units and the problem edges to each.
  SmallVector<llvm::MapVector<unsigned, SmallVector<unsigned>>> neighbours;
  /// Sets of units whose unit graph is a forest, covering every unit; the
  /// units of each in an order where a tree's parent comes first.
  SmallVector<SmallVector<unsigned>> blocks;
  /// Per block unit: its parent in the block's forest (-1 for roots).
  SmallVector<SmallVector<int>> parents;
  /// Connected sets of at most `options.windowUnits` units, whose nodes
  /// are solved together exactly.
  SmallVector<SmallVector<unsigned>> windows;
  /// Per unit: the windows that hold it or a neighbour of it.
  SmallVector<SmallVector<unsigned>> windowsNear;
  /// Windows to solve in the next sweep.
  SmallVector<bool> dirty;
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

void Descent::buildBlocks() {
  ArrayRef<ProblemEdge> edges = problem.getEdges();
  unitOfNode.assign(problem.getNodes().size(), 0);
  for (auto [u, unit] : llvm::enumerate(units)) {
    unitOfNode[unit.anchor] = u;
    for (auto [follower, e] : unit.followers)
      unitOfNode[follower] = u;
  }
  neighbours.resize(units.size());
  for (auto [e, edge] : llvm::enumerate(edges)) {
    unsigned a = unitOfNode[edge.producer], b = unitOfNode[edge.consumer];
    if (a == b)
      continue;
    neighbours[a][b].push_back(e);
    neighbours[b][a].push_back(e);
  }
  // Grow forests in program order (a unit joins the first block where its
  // neighbours already there lie in distinct trees), then in reverse order:
  // two coverings whose trees cut the graph differently.
  for (bool reverse : {false, true}) {
    SmallVector<unsigned> order;
    for (unsigned u = 0, e = units.size(); u < e; ++u)
      order.push_back(reverse ? e - 1 - u : u);
    SmallVector<int> blockOf(units.size(), -1);
    // Union-find over units, per block implicitly (units of one block only
    // join units of the same block).
    SmallVector<unsigned> root(units.size());
    for (unsigned u = 0, e = units.size(); u < e; ++u)
      root[u] = u;
    auto find = [&](unsigned u) {
      while (root[u] != u)
        u = root[u] = root[root[u]];
      return u;
    };
    size_t first = blocks.size();
    for (unsigned u : order) {
      for (size_t b = first;; ++b) {
        if (b == blocks.size()) {
          blocks.emplace_back();
          parents.emplace_back();
        }
        SmallVector<unsigned> trees;
        bool fits = true;
        for (auto &[w, list] : neighbours[u]) {
          if (blockOf[w] != int(b))
            continue;
          unsigned tree = find(w);
          if (llvm::is_contained(trees, tree)) {
            fits = false;
            break;
          }
          trees.push_back(tree);
        }
        if (!fits)
          continue;
        blockOf[u] = b;
        for (unsigned tree : trees)
          root[tree] = u;
        blocks[b].push_back(u);
        break;
      }
    }
    // Order each block's forest from its roots, parents first.
    for (size_t b = first; b < blocks.size(); ++b) {
      SmallVector<unsigned> ordered;
      DenseMap<unsigned, int> parentOf;
      DenseSet<unsigned> seen;
      for (unsigned start : blocks[b]) {
        if (!seen.insert(start).second)
          continue;
        parentOf[start] = -1;
        SmallVector<unsigned> stack{start};
        while (!stack.empty()) {
          unsigned u = stack.pop_back_val();
          ordered.push_back(u);
          for (auto &[w, list] : neighbours[u])
            if (blockOf[w] == int(b) && seen.insert(w).second) {
              parentOf[w] = u;
              stack.push_back(w);
            }
        }
      }
      blocks[b] = ordered;
      for (unsigned u : ordered)
        parents[b].push_back(parentOf[u]);
    }
  }
  // Spanning forests of every unit, breadth first from the units in
  // program order and in reverse: moves over the whole graph at once.
  for (bool reverse : {false, true}) {
    SmallVector<unsigned> ordered;
    SmallVector<int> parentOf(units.size(), -2);
    for (unsigned i = 0, e = units.size(); i < e; ++i) {
      unsigned start = reverse ? e - 1 - i : i;
      if (parentOf[start] != -2)
        continue;
      parentOf[start] = -1;
      size_t head = ordered.size();
      ordered.push_back(start);
      while (head < ordered.size()) {
        unsigned u = ordered[head++];
        for (auto &[w, list] : neighbours[u])
          if (parentOf[w] == -2) {
            parentOf[w] = u;
            ordered.push_back(w);
          }
      }
    }
    blocks.push_back(ordered);
    parents.emplace_back();
    for (unsigned u : ordered)
      parents.back().push_back(parentOf[u]);
  }
}

bool Descent::improveBlock(unsigned b, double bytesWeight) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  ArrayRef<ProblemEdge> edges = problem.getEdges();
  ArrayRef<unsigned> block = blocks[b];
  DenseMap<unsigned, unsigned> indexOf;
  for (auto [i, u] : llvm::enumerate(block))
    indexOf[u] = i;
  // The choice of `node` when its unit takes `k`.
  auto choiceFor = [&](unsigned node, unsigned k) {
    unsigned u = unitOfNode[node];
    if (units[u].anchor == node)
      return k;
    for (auto [i, follower] : llvm::enumerate(units[u].followers))
      if (follower.first == node)
        return units[u].followerChoices[k][i];
    return k;
  };
  // cost[i][k]: the best cost of the subtree under block unit i when it
  // takes k (own compute, edges leaving the block, edges to children).
  SmallVector<SmallVector<double>> cost(block.size());
  SmallVector<SmallVector<unsigned>> bestChild(block.size());
  for (auto [i, u] : llvm::enumerate(block)) {
    unsigned numChoices = nodes[units[u].anchor].choices.size();
    cost[i].assign(numChoices, kInfinity);
    for (unsigned k = 0; k < numChoices; ++k) {
      if (!validChoice(u, k))
        continue;
      double c = 0;
      for (unsigned m = 0, me = units[u].followers.size() + 1; m < me; ++m) {
        unsigned node = memberNode(u, m), choice = memberChoice(u, m, k);
        c += nodes[node].compute[choice];
        if (bytesWeight > 0)
          for (unsigned r = 0; r < numResults[node]; ++r)
            c += bytesWeight * bytes(node, choice, r);
      }
      for (auto &[w, list] : neighbours[u]) {
        // Tree edges are the pairwise terms; others see the far end fixed.
        auto other = indexOf.find(w);
        if (other != indexOf.end() &&
            (parents[b][i] == int(w) || parents[b][other->second] == int(u)))
          continue;
        for (unsigned e : list) {
          const ProblemEdge &edge = edges[e];
          c += unitOfNode[edge.producer] == u
                   ? problem.edgeCost(e, choiceFor(edge.producer, k),
                                      assignment[edge.consumer])
                   : problem.edgeCost(e, assignment[edge.producer],
                                      choiceFor(edge.consumer, k));
        }
      }
      cost[i][k] = c;
    }
  }
  // Children into parents, leaves first (reverse of parents-first order).
  SmallVector<SmallVector<unsigned>> argChild(block.size());
  for (int i = block.size() - 1; i >= 0; --i) {
    int parent = parents[b][i];
    if (parent < 0)
      continue;
    unsigned p = indexOf[parent], c = i;
    unsigned up = block[p], uc = block[c];
    const SmallVector<unsigned> &list = neighbours[up].find(uc)->second;
    argChild[c].assign(cost[p].size(), 0);
    for (unsigned kp = 0, pe = cost[p].size(); kp < pe; ++kp) {
      if (std::isinf(cost[p][kp]))
        continue;
      double best = kInfinity;
      for (unsigned kc = 0, ce = cost[c].size(); kc < ce; ++kc) {
        if (std::isinf(cost[c][kc]) || cost[c][kc] >= best)
          continue;
        double total = cost[c][kc];
        for (unsigned e : list) {
          const ProblemEdge &edge = edges[e];
          total += unitOfNode[edge.producer] == up
                       ? problem.edgeCost(e, choiceFor(edge.producer, kp),
                                          choiceFor(edge.consumer, kc))
                       : problem.edgeCost(e, choiceFor(edge.producer, kc),
                                          choiceFor(edge.consumer, kp));
        }
        if (total < best) {
          best = total;
          argChild[c][kp] = kc;
        }
      }
      cost[p][kp] += best;
    }
  }
  // Roots take their best; children what their parent's choice asks.
  SmallVector<unsigned> chosen(block.size(), 0);
  for (auto [i, u] : llvm::enumerate(block)) {
    int parent = parents[b][i];
    if (parent >= 0) {
      chosen[i] = argChild[i][chosen[indexOf[parent]]];
      continue;
    }
    chosen[i] =
        std::min_element(cost[i].begin(), cost[i].end()) - cost[i].begin();
  }
  Move move;
  for (auto [i, u] : llvm::enumerate(block))
    if (chosen[i] != assignment[units[u].anchor] && validChoice(u, chosen[i]))
      appendUnit(u, chosen[i], move);
  if (move.empty())
    return false;
  double change = delta(move);
  double threshold = 1e-9 * std::max(seconds, 1e-9);
  if (!(change < -threshold))
    return false;
  apply(move);
  seconds += std::isinf(change) ? 0 : change;
  return true;
}

void Descent::buildWindows() {
  if (options.windowUnits < 2)
    return;
  // Breadth first from every `size / 2`-th unit in program order:
  // overlapping windows that cover the graph. On small graphs a window
  // keeps growing past `size` units (up to twice) while its units have
  // few signatures between them (a 1-D mesh), since the integer program's
  // cost follows the signatures more than the units.
  bool small = problem.getNodes().size() <= kSmallGraph;
  unsigned size = small ? std::max(options.windowUnits, kSmallGraphWindow)
                        : options.windowUnits;
  unsigned stride = std::max(1u, size / 2);
  auto full = [&](ArrayRef<unsigned> window, size_t choices) {
    if (window.size() < size)
      return false;
    return !small || window.size() >= 2 * size ||
           choices >= kSmallGraphWindowChoices;
  };
  for (unsigned start = 0, e = units.size(); start < e; start += stride) {
    SmallVector<unsigned> window{start};
    DenseSet<unsigned> seen{start};
    size_t choices = problem.getNodes()[units[start].anchor].choices.size();
    for (size_t head = 0; head < window.size() && !full(window, choices);
         ++head)
      for (auto &[w, list] : neighbours[window[head]]) {
        if (full(window, choices))
          break;
        if (seen.insert(w).second) {
          window.push_back(w);
          choices += problem.getNodes()[units[w].anchor].choices.size();
        }
      }
    windows.push_back(std::move(window));
  }
  std::map<std::vector<int64_t>, unsigned> classes;
  for (const SmallVector<unsigned> &window : windows) {
    std::vector<int64_t> key;
    for (unsigned u : window)
      key.push_back(!groupOfUnit.empty() && groupOfUnit[u] >= 0
                        ? groupOfUnit[u]
                        : -int64_t(u) - 1);
    auto [it, inserted] = classes.try_emplace(key, classes.size());
    windowClass.push_back(it->second);
    if (inserted)
      classSize.push_back(0);
    ++classSize[it->second];
  }
  windowsNear.resize(units.size());
  for (auto [w, window] : llvm::enumerate(windows))
    for (unsigned u : window) {
      windowsNear[u].push_back(w);
      for (auto &[v, list] : neighbours[u])
        windowsNear[v].push_back(w);
    }
  for (SmallVector<unsigned> &list : windowsNear) {
    llvm::sort(list);
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
}

bool Descent::improveWindow(unsigned w) {
  SmallVector<bool> free(problem.getNodes().size(), false);
  for (unsigned u : windows[w]) {
    free[units[u].anchor] = true;
    for (auto [follower, e] : units[u].followers)
      free[follower] = true;
  }
  std::string error;
  SearchOptions exact = options;
  exact.timeLimitSeconds = 10;
  FailureOr<SmallVector<unsigned>> solved =
      solveRegion(problem, assignment, free, exact, error);
  if (failed(solved))
    return false;
  Move move;
  for (unsigned n = 0, e = assignment.size(); n < e; ++n)
    if ((*solved)[n] != assignment[n])
      move.push_back({n, (*solved)[n]});
  if (move.empty())
    return false;
  double change = delta(move);
  // The same window in every other layer: each unit's group takes what
  // the unit took (when no group appears twice with two choices).
  if (classSize[windowClass[w]] > 1) {
    DenseMap<unsigned, unsigned> groupChoice;
    bool consistent = true;
    std::map<unsigned, unsigned> nodes;
    for (unsigned u : windows[w]) {
      unsigned k = (*solved)[units[u].anchor];
      int g = groupOfUnit[u];
      if (g < 0) {
        Move own;
        if (appendUnit(u, k, own))
          for (auto [n, c] : own)
            nodes[n] = c;
        continue;
      }
      auto [it, inserted] = groupChoice.try_emplace(g, k);
      consistent &= it->second == k;
    }
    for (auto [g, k] : groupChoice) {
      for (unsigned v : groups[g]) {
        Move member;
        consistent &= appendUnit(v, k, member);
        for (auto [n, c] : member)
          nodes[n] = c;
      }
    }
    Move everywhere;
    for (auto [n, c] : nodes)
      if (c != assignment[n])
        everywhere.push_back({n, c});
    if (consistent && !everywhere.empty()) {
      double broad = delta(everywhere);
      if (broad < change) {
        change = broad;
        move = std::move(everywhere);
      }
    }
  }
  double threshold = 1e-9 * std::max(seconds, 1e-9);
  if (!(change < -threshold))
    return false;
  apply(move);
  seconds += std::isinf(change) ? 0 : change;
  return true;
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
  for (auto [n, c] : move)
    if (!windowsNear.empty())
      for (unsigned w : windowsNear[unitOfNode[n]])
        dirty[w] = true;
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

std::pair<int, int> Descent::run(ArrayRef<unsigned> seed, bool useWindows) {
  assignment.assign(seed.begin(), seed.end());
  live = MaxTree(problem.getNumPositions() + 1);
  persistent = 0;
  for (unsigned n = 0, ne = assignment.size(); n < ne; ++n)
    account(n, assignment[n], +1);
  StrategyCost cost = problem.evaluate(assignment);
  seconds = cost.seconds();
  dirty.assign(windows.size(), true);
  int sweeps = 0, moves = 0;
  while (sweeps < options.maxSweeps) {
    ++sweeps;
    int before = moves;
    for (unsigned b = 0, e = blocks.size(); b < e; ++b) {
      moves += improveBlock(b, 0);
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
    for (ArrayRef<unsigned> group : groups)
      moves += improve(group);
    for (unsigned u = 0, e = units.size(); u < e; ++u)
      moves += improve(ArrayRef<unsigned>(u));
    if (moves == before)
      break;
  }
  return {sweeps, moves};
}

FailureOr<SearchResult> mlir::oneflow::searchCoordinateDescent(
    ParallelProblem &problem, ArrayRef<Seed> seeds,
    const SearchOptions &options, std::string &error) {
  Descent descent(problem, options);
  std::optional<SearchResult> best;
  auto within = [&](const StrategyCost &cost) {
    return !options.memoryLimitBytes ||
           cost.memoryBytes <= *options.memoryLimitBytes;
  };
  // Every seed descends with the cheap moves; the best then again
  // with windows solved exactly.
  SmallVector<SearchResult> descended;
  for (const Seed &seed : seeds) {
    FailureOr<SmallVector<unsigned>> start = problem.completeSeed(seed);
    if (failed(start))
      continue;
    auto [sweeps, moves] = descent.run(*start, /*useWindows=*/false);
    SearchResult result;
    result.assignment.assign(descent.getAssignment().begin(),
                             descent.getAssignment().end());
    result.cost = problem.evaluate(result.assignment);
    result.origin = seed.name;
    result.sweeps = sweeps;
    result.moves = moves;
    descended.push_back(std::move(result));
  }
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
    for (size_t i = 0; i < std::min(polished, descended.size()); ++i) {
      SearchResult &result = descended[i];
      auto [sweeps, moves] = descent.run(result.assignment, true);
      result.assignment.assign(descent.getAssignment().begin(),
                               descent.getAssignment().end());
      result.cost = problem.evaluate(result.assignment);
      result.sweeps += sweeps;
      result.moves += moves;
    }
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
