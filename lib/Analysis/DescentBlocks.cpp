//===- DescentBlocks.cpp - Block moves of the coordinate descent ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Moves that change many units at once, each exact for its block with the
// rest fixed: forests of units solved by min-sum dynamic programming, and
// windows of neighbouring units solved as an integer program (GLPK), whose
// solution is also tried in every layer that repeats the window.
//
//===----------------------------------------------------------------------===//

#include "Descent.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::detail;

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
  indexBlocks();
}

void Descent::indexBlocks() {
  SmallVector<int> slot(units.size(), -1);
  blocksNear.resize(units.size());
  for (auto [b, block] : llvm::enumerate(blocks)) {
    for (auto [i, u] : llvm::enumerate(block))
      slot[u] = i;
    SmallVector<int> &parent = parents[b];
    for (int &p : parent)
      p = p < 0 ? -1 : slot[p];
    offTree.emplace_back(block.size());
    for (auto [i, u] : llvm::enumerate(block)) {
      blocksNear[u].push_back(b);
      for (auto &[w, list] : neighbours[u]) {
        blocksNear[w].push_back(b);
        int j = slot[w];
        bool tree = j >= 0 && (parent[i] == j || parent[j] == int(i));
        if (!tree)
          offTree.back()[i].append(list.begin(), list.end());
      }
    }
    for (unsigned u : block)
      slot[u] = -1;
  }
  for (SmallVector<unsigned> &list : blocksNear) {
    llvm::sort(list);
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
}

unsigned Descent::nodeChoice(unsigned node, unsigned k) const {
  unsigned u = unitOfNode[node];
  if (units[u].anchor == node)
    return k;
  for (auto [i, follower] : llvm::enumerate(units[u].followers))
    if (follower.first == node)
      return units[u].followerChoices[k][i];
  return k;
}

void Descent::foldChild(unsigned up, ArrayRef<unsigned> list,
                        ArrayRef<double> childCost,
                        MutableArrayRef<double> parentCost,
                        SmallVector<unsigned> &argChild) {
  ArrayRef<ProblemEdge> edges = problem.getEdges();
  argChild.assign(parentCost.size(), 0);
  // The best child choice for parent choice `kp`: the cheapest total, the
  // first on ties.
  auto fold = [&](unsigned kp, double best, unsigned arg) {
    argChild[kp] = arg;
    parentCost[kp] += best;
  };
  if (list.size() != 1) {
    for (unsigned kp = 0, pe = parentCost.size(); kp < pe; ++kp) {
      if (std::isinf(parentCost[kp]))
        continue;
      double best = kInfinity;
      unsigned arg = 0;
      for (unsigned kc = 0, ce = childCost.size(); kc < ce; ++kc) {
        if (std::isinf(childCost[kc]) || childCost[kc] >= best)
          continue;
        double total = childCost[kc];
        for (unsigned e : list) {
          const ProblemEdge &edge = edges[e];
          total += unitOfNode[edge.producer] == up
                       ? problem.edgeCost(e, nodeChoice(edge.producer, kp),
                                          nodeChoice(edge.consumer, kc))
                       : problem.edgeCost(e, nodeChoice(edge.producer, kc),
                                          nodeChoice(edge.consumer, kp));
        }
        if (total < best) {
          best = total;
          arg = kc;
        }
      }
      fold(kp, best, arg);
    }
    return;
  }
  // One edge: the pair costs what the two layouts on it cost, so only the
  // cheapest child choice per layout competes, and each parent layout is
  // priced once.
  unsigned e = list.front();
  const ProblemEdge &edge = edges[e];
  bool parentGives = unitOfNode[edge.producer] == up;
  auto layoutOf = [&](unsigned k, bool producerSide) {
    return producerSide ? problem.givenLayout(e, nodeChoice(edge.producer, k))
                        : problem.neededLayout(e, nodeChoice(edge.consumer, k));
  };
  layoutSlot.resize(problem.getNumLayouts(), -1);
  // (child layout, its cheapest child choice)
  SmallVector<std::pair<unsigned, unsigned>> cheapest;
  for (unsigned kc = 0, ce = childCost.size(); kc < ce; ++kc) {
    if (std::isinf(childCost[kc]))
      continue;
    unsigned layout = layoutOf(kc, !parentGives);
    int &slot = layoutSlot[layout];
    if (slot < 0) {
      slot = cheapest.size();
      cheapest.push_back({layout, kc});
    } else if (childCost[kc] < childCost[cheapest[slot].second]) {
      cheapest[slot].second = kc;
    }
  }
  for (auto [layout, kc] : cheapest)
    layoutSlot[layout] = -1;
  // (parent layout, best total, child choice giving it)
  SmallVector<std::tuple<unsigned, double, unsigned>> priced;
  for (unsigned kp = 0, pe = parentCost.size(); kp < pe; ++kp) {
    if (std::isinf(parentCost[kp]))
      continue;
    unsigned mine = layoutOf(kp, parentGives);
    int &slot = layoutSlot[mine];
    if (slot < 0) {
      double best = kInfinity;
      unsigned arg = 0;
      for (auto [layout, kc] : cheapest) {
        double total =
            childCost[kc] + (parentGives ? problem.layoutCost(e, mine, layout)
                                         : problem.layoutCost(e, layout, mine));
        if (total < best || (total == best && kc < arg)) {
          best = total;
          arg = kc;
        }
      }
      slot = priced.size();
      priced.push_back({mine, best, arg});
    }
    fold(kp, std::get<1>(priced[slot]), std::get<2>(priced[slot]));
  }
  for (auto [layout, best, kc] : priced)
    layoutSlot[layout] = -1;
}

bool Descent::improveBlock(unsigned b, double bytesWeight) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  ArrayRef<ProblemEdge> edges = problem.getEdges();
  ArrayRef<unsigned> block = blocks[b];
  ArrayRef<int> parent = parents[b];
  // cost[i][k]: the best cost of the subtree under block unit i when it
  // takes k (own compute, edges leaving the tree, edges to children).
  if (blockCost.size() < block.size()) {
    blockCost.resize(block.size());
    blockArg.resize(block.size());
  }
  MutableArrayRef<SmallVector<double>> cost(blockCost.data(), block.size());
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
      // Edges off the tree see their far end fixed.
      for (unsigned e : offTree[b][i]) {
        const ProblemEdge &edge = edges[e];
        c += unitOfNode[edge.producer] == u
                 ? problem.edgeCost(e, nodeChoice(edge.producer, k),
                                    assignment[edge.consumer])
                 : problem.edgeCost(e, assignment[edge.producer],
                                    nodeChoice(edge.consumer, k));
      }
      cost[i][k] = c;
    }
  }
  // Children into parents, leaves first (reverse of parents-first order).
  for (int i = block.size() - 1; i >= 0; --i) {
    if (parent[i] < 0)
      continue;
    unsigned up = block[parent[i]], uc = block[i];
    foldChild(up, neighbours[up].find(uc)->second, cost[i], cost[parent[i]],
              blockArg[i]);
  }
  // Roots take their best; children what their parent's choice asks.
  SmallVector<unsigned> chosen(block.size(), 0);
  for (unsigned i = 0, e = block.size(); i < e; ++i)
    chosen[i] = parent[i] >= 0
                    ? blockArg[i][chosen[parent[i]]]
                    : std::min_element(cost[i].begin(), cost[i].end()) -
                          cost[i].begin();
  Move move;
  for (auto [i, u] : llvm::enumerate(block))
    if (chosen[i] != assignment[units[u].anchor] && validChoice(u, chosen[i]))
      appendUnit(u, chosen[i], move);
  if (move.empty())
    return false;
  double change = delta(move);
  return accept(move, change);
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
  // The integer program's columns for each edge between two free nodes:
  // the layouts one gives times those the other needs.
  SmallVector<size_t> edgeColumns(problem.getEdges().size(), 0);
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  if (small)
    for (auto [e, edge] : llvm::enumerate(problem.getEdges())) {
      if (edge.inPlace)
        continue;
      DenseSet<Attribute> gives, needs;
      for (const NdSbpSignature &choice : nodes[edge.producer].choices)
        gives.insert(choice.results[edge.result]);
      for (const NdSbpSignature &choice : nodes[edge.consumer].choices)
        needs.insert(choice.operands[edge.operand]);
      edgeColumns[e] = gives.size() * needs.size();
    }
  auto full = [&](ArrayRef<unsigned> window, size_t choices, size_t columns) {
    if (small && window.size() >= options.windowUnits &&
        columns >= kSmallGraphWindowColumns)
      return true;
    if (window.size() < size)
      return false;
    return !small || window.size() >= 2 * size ||
           choices >= kSmallGraphWindowChoices;
  };
  // A start every `stride` units in program order, counting the units of a
  // group (a repeated layer's op) in its first member only: a start there
  // starts the same window at every member, so that the layers' windows
  // share a class and one integer program stands for all of them.
  SmallVector<unsigned> starts;
  unsigned counted = 0;
  for (unsigned u = 0, e = units.size(); u < e; ++u) {
    int group = groupOfUnit.empty() ? -1 : groupOfUnit[u];
    if (group >= 0 && groups[group].front() != u)
      continue;
    if (counted++ % stride != 0)
      continue;
    if (group < 0)
      starts.push_back(u);
    else
      starts.append(groups[group].begin(), groups[group].end());
  }
  llvm::sort(starts);
  for (unsigned start : starts) {
    SmallVector<unsigned> window{start};
    DenseSet<unsigned> seen{start};
    size_t choices = 0, columns = 0;
    auto add = [&](unsigned u) {
      choices += nodes[units[u].anchor].choices.size();
      columns += nodes[units[u].anchor].choices.size();
      for (auto [follower, e] : units[u].followers)
        columns += nodes[follower].choices.size();
      for (auto &[v, list] : neighbours[u])
        if (v != u && seen.contains(v))
          for (unsigned e : list)
            columns += edgeColumns[e];
    };
    add(start);
    for (size_t head = 0;
         head < window.size() && !full(window, choices, columns); ++head)
      for (auto &[w, list] : neighbours[window[head]]) {
        if (full(window, choices, columns))
          break;
        if (seen.insert(w).second) {
          window.push_back(w);
          add(w);
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

FailureOr<std::vector<unsigned>> Descent::solveWindow(unsigned w,
                                                      ArrayRef<bool> free) {
  // Under a memory limit every node's bytes count: nothing is shared.
  std::vector<unsigned> key;
  bool shared = !options.memoryLimitBytes;
  if (shared) {
    key.push_back(w);
    for (const ProblemEdge &edge : problem.getEdges())
      if (free[edge.producer] != free[edge.consumer])
        key.push_back(
            assignment[free[edge.producer] ? edge.consumer : edge.producer]);
    std::lock_guard<std::mutex> lock(windowSolutions->mutex);
    auto it = windowSolutions->byKey.find(key);
    if (it != windowSolutions->byKey.end())
      return it->second;
  }
  // A node limit instead of a time limit: what a window gives does not
  // depend on the load (the programs here close in 1 to 3 nodes).
  SearchOptions exact = options;
  exact.timeLimitSeconds = 0;
  exact.nodeLimit = kWindowNodeLimit;
  std::string error;
  FailureOr<SmallVector<unsigned>> solved =
      solveRegion(problem, assignment, free, exact, error);
  if (failed(solved))
    return failure();
  std::vector<unsigned> choices;
  for (unsigned n = 0, e = free.size(); n < e; ++n)
    if (free[n])
      choices.push_back((*solved)[n]);
  if (shared) {
    std::lock_guard<std::mutex> lock(windowSolutions->mutex);
    windowSolutions->byKey.try_emplace(std::move(key), choices);
  }
  return choices;
}

bool Descent::improveWindow(unsigned w) {
  SmallVector<bool> free(problem.getNodes().size(), false);
  for (unsigned u : windows[w]) {
    free[units[u].anchor] = true;
    for (auto [follower, e] : units[u].followers)
      free[follower] = true;
  }
  FailureOr<std::vector<unsigned>> choices = solveWindow(w, free);
  if (failed(choices))
    return false;
  SmallVector<unsigned> solved(assignment.begin(), assignment.end());
  for (unsigned n = 0, e = free.size(), i = 0; n < e; ++n)
    if (free[n])
      solved[n] = (*choices)[i++];
  Move move;
  for (unsigned n = 0, e = assignment.size(); n < e; ++n)
    if (solved[n] != assignment[n])
      move.push_back({n, solved[n]});
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
      unsigned k = solved[units[u].anchor];
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
  return accept(move, change);
}

/// A label of an op that ignores names and seeds: its kind, types and
/// other attributes.
