//===- ExactSearch.cpp - The SBP search as an integer program (GLPK) ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Variables: x[n][c] in {0, 1}, node n runs choice c (one per node). Each
// edge couples the layout its producer gives with the one its consumer
// needs: y[e][L][L'] >= 0 with sum over L' of y = the producer's x summed
// over choices giving L, and sum over L of y = the consumer's x summed over
// choices needing L' (a transport polytope, whose LP relaxation is tight on
// trees); an in-place edge instead forces the two sums equal per layout.
// The objective is compute(n, c) x + boxing(L, L') y, in microseconds. With
// a memory limit, one row per position where a value is produced: the
// variables' bytes plus those of every value live there.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"

#include "llvm/ADT/MapVector.h"

#include <glpk.h>

#include <cmath>
#include <map>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// Times in the program are microseconds, memory MiB: GLPK's tolerances
/// are absolute.
constexpr double kMicroseconds = 1e6;
constexpr double kMiB = 1.0 / (1 << 20);

/// The programs alive on this thread. GLPK keeps an environment per thread
/// that calls it (thread-local); the last program of a thread frees it, so
/// that threads that search (a library caller's pool) leave nothing behind.
thread_local int liveProgramsOfThread = 0;

/// A GLPK problem being built: columns, rows and the coefficients.
class IntegerProgram {
public:
  IntegerProgram() : lp(glp_create_prob()) {
    ++liveProgramsOfThread;
    glp_set_obj_dir(lp, GLP_MIN);
  }
  ~IntegerProgram() {
    glp_delete_prob(lp);
    if (--liveProgramsOfThread == 0)
      glp_free_env();
  }
  IntegerProgram(const IntegerProgram &) = delete;
  IntegerProgram &operator=(const IntegerProgram &) = delete;

  int addColumn(double cost, bool binary) {
    int column = glp_add_cols(lp, 1);
    glp_set_col_kind(lp, column, binary ? GLP_BV : GLP_CV);
    if (!binary)
      glp_set_col_bnds(lp, column, GLP_LO, 0, 0);
    glp_set_obj_coef(lp, column, cost);
    return column;
  }
  /// A row `lo <= sum <= hi` (`hi` infinite: only `lo`; equal: fixed).
  int addRow(double lo, double hi) {
    int row = glp_add_rows(lp, 1);
    if (lo == hi)
      glp_set_row_bnds(lp, row, GLP_FX, lo, hi);
    else if (std::isinf(hi))
      glp_set_row_bnds(lp, row, GLP_LO, lo, 0);
    else
      glp_set_row_bnds(lp, row, GLP_UP, 0, hi);
    return row;
  }
  /// Adds `value` to the objective coefficient of `column`; an infinite one
  /// fixes the column at 0.
  void addCost(int column, double value) {
    if (std::isinf(value)) {
      glp_set_col_bnds(lp, column, GLP_FX, 0, 0);
      return;
    }
    glp_set_obj_coef(lp, column, glp_get_obj_coef(lp, column) + value);
  }
  /// Adds `value` to the coefficient of `column` in `row`.
  void add(int row, int column, double value) {
    coefficients[{row, column}] += value;
  }
  void load() {
    // GLPK takes each (row, column) once, 1-based.
    std::vector<int> ia{0}, ja{0};
    std::vector<double> ar{0};
    for (auto [at, value] : coefficients) {
      ia.push_back(at.first);
      ja.push_back(at.second);
      ar.push_back(value);
    }
    glp_load_matrix(lp, ia.size() - 1, ia.data(), ja.data(), ar.data());
  }
  glp_prob *get() { return lp; }

private:
  glp_prob *lp;
  std::map<std::pair<int, int>, double> coefficients;
};

} // namespace

/// A row per free node (it takes one choice) and a column per choice,
/// which costs the choice's compute; `columns[n][c]` receives x[n][c]'s
/// column (empty for fixed nodes).
static void addChoiceColumns(ParallelProblem &problem, ArrayRef<bool> free,
                             IntegerProgram &program,
                             SmallVector<SmallVector<int>> &columns) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  columns.assign(nodes.size(), {});
  for (auto [n, node] : llvm::enumerate(nodes)) {
    if (!free[n])
      continue;
    int row = program.addRow(1, 1);
    for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c) {
      int column = program.addColumn(node.compute[c] * kMicroseconds, true);
      program.add(row, column, 1);
      columns[n].push_back(column);
    }
  }
}

/// The boxing of edge `e` between two free nodes: an in-place edge gives
/// what it needs (rows that pair the layouts); another costs a column per
/// pair of the layouts given and needed.
static void addFreeEdge(ParallelProblem &problem, unsigned e,
                        IntegerProgram &program,
                        ArrayRef<SmallVector<int>> columns) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  const ProblemEdge &edge = problem.getEdges()[e];
  // Choices grouped by the layout they give / need.
  llvm::MapVector<Attribute, SmallVector<unsigned>> gives, needs;
  for (unsigned c = 0, ce = nodes[edge.producer].choices.size(); c < ce; ++c)
    gives[nodes[edge.producer].choices[c].results[edge.result]].push_back(c);
  for (unsigned c = 0, ce = nodes[edge.consumer].choices.size(); c < ce; ++c)
    needs[nodes[edge.consumer].choices[c].operands[edge.operand]].push_back(c);
  if (edge.inPlace) {
    SmallVector<Attribute> layouts;
    for (auto &[layout, choices] : gives)
      layouts.push_back(layout);
    for (auto &[layout, choices] : needs)
      if (!gives.count(layout))
        layouts.push_back(layout);
    for (Attribute layout : layouts) {
      int row = program.addRow(0, 0);
      for (unsigned c : gives.lookup(layout))
        program.add(row, columns[edge.producer][c], 1);
      for (unsigned c : needs.lookup(layout))
        program.add(row, columns[edge.consumer][c], -1);
    }
    return;
  }
  SmallVector<int> giveRows, needRows;
  for (auto &[layout, choices] : gives) {
    int row = program.addRow(0, 0);
    for (unsigned c : choices)
      program.add(row, columns[edge.producer][c], -1);
    giveRows.push_back(row);
  }
  for (auto &[layout, choices] : needs) {
    int row = program.addRow(0, 0);
    for (unsigned c : choices)
      program.add(row, columns[edge.consumer][c], -1);
    needRows.push_back(row);
  }
  for (auto [i, give] : llvm::enumerate(gives))
    for (auto [j, need] : llvm::enumerate(needs)) {
      double cost =
          problem.edgeCost(e, give.second.front(), need.second.front());
      if (std::isinf(cost))
        continue;
      int column = program.addColumn(cost * kMicroseconds, false);
      program.add(giveRows[i], column, 1);
      program.add(needRows[j], column, 1);
    }
}

/// The edges' boxing: an edge with one fixed end prices the free end's
/// choices against the fixed one (an impossible pairing fixes the column
/// at 0); edges between free nodes go to addFreeEdge.
static void addEdgeTerms(ParallelProblem &problem, ArrayRef<bool> free,
                         ArrayRef<unsigned> assignment,
                         IntegerProgram &program,
                         ArrayRef<SmallVector<int>> columns) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  for (auto [e, edge] : llvm::enumerate(problem.getEdges())) {
    bool producerFree = free[edge.producer], consumerFree = free[edge.consumer];
    if (!producerFree && !consumerFree)
      continue;
    if (producerFree != consumerFree) {
      unsigned n = producerFree ? edge.producer : edge.consumer;
      for (unsigned c = 0, ce = nodes[n].choices.size(); c < ce; ++c) {
        double cost = producerFree
                          ? problem.edgeCost(e, c, assignment[edge.consumer])
                          : problem.edgeCost(e, assignment[edge.producer], c);
        program.addCost(columns[n][c], cost * kMicroseconds);
      }
      continue;
    }
    addFreeEdge(problem, e, program, columns);
  }
}

/// With a memory limit: one row per position where a non-variable value is
/// produced (the peak lies at one of them) and a free node's value is
/// live; fixed nodes' bytes lower the row's bound.
static void addMemoryRows(ParallelProblem &problem,
                          const SearchOptions &options, ArrayRef<bool> free,
                          ArrayRef<unsigned> assignment,
                          IntegerProgram &program,
                          ArrayRef<SmallVector<int>> columns) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  double persistentFixed = 0;
  bool anyPersistentFree = false;
  SmallVector<double> fixedChange(problem.getNumPositions() + 1, 0.0);
  std::map<unsigned, int> rows;
  for (auto [n, node] : llvm::enumerate(nodes)) {
    // Kernel workspaces are kept all along, as variables are.
    if (!free[n])
      persistentFixed += problem.workspaceBytes(n, assignment[n]);
    else if (llvm::any_of(node.workspace, [](double b) { return b > 0; }))
      anyPersistentFree = true;
    for (unsigned r = 0, re = node.op->getNumResults(); r < re; ++r) {
      if (problem.isPersistent(n)) {
        if (free[n])
          anyPersistentFree = true;
        else
          persistentFixed += problem.resultBytes(n, r, assignment[n]);
        continue;
      }
      rows.try_emplace(node.position, 0);
      if (free[n])
        continue;
      double bytes = problem.resultBytes(n, r, assignment[n]);
      fixedChange[node.position] += bytes;
      fixedChange[problem.lastUse(n, r) + 1] -= bytes;
    }
  }
  // Which rows have a free term.
  SmallVector<bool> touched(problem.getNumPositions() + 1, anyPersistentFree);
  for (auto [n, node] : llvm::enumerate(nodes))
    if (free[n] && !problem.isPersistent(n))
      for (unsigned r = 0, re = node.op->getNumResults(); r < re; ++r)
        for (unsigned t = node.position, e = problem.lastUse(n, r); t <= e; ++t)
          touched[t] = true;
  double live = 0;
  unsigned position = 0;
  for (auto it = rows.begin(); it != rows.end();) {
    for (; position <= it->first; ++position)
      live += fixedChange[position];
    if (!touched[it->first]) {
      it = rows.erase(it);
      continue;
    }
    it->second = program.addRow(
        -INFINITY, (*options.memoryLimitBytes - persistentFixed - live) * kMiB);
    ++it;
  }
  for (auto [n, node] : llvm::enumerate(nodes)) {
    if (!free[n])
      continue;
    for (auto it = rows.begin(); it != rows.end(); ++it)
      for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c)
        if (node.workspace[c] > 0)
          program.add(it->second, columns[n][c], node.workspace[c] * kMiB);
    for (unsigned r = 0, re = node.op->getNumResults(); r < re; ++r) {
      auto begin = problem.isPersistent(n) ? rows.begin()
                                           : rows.lower_bound(node.position);
      auto end = problem.isPersistent(n)
                     ? rows.end()
                     : rows.upper_bound(problem.lastUse(n, r));
      for (auto it = begin; it != end; ++it)
        for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c)
          program.add(it->second, columns[n][c],
                      problem.resultBytes(n, r, c) * kMiB);
    }
  }
}

/// Builds the program over the nodes `free` marks, every other node fixed
/// at `assignment`; `columns[n][c]` receives x[n][c]'s column (empty for
/// fixed nodes).
static void buildProgram(ParallelProblem &problem, const SearchOptions &options,
                         ArrayRef<bool> free, ArrayRef<unsigned> assignment,
                         IntegerProgram &program,
                         SmallVector<SmallVector<int>> &columns) {
  addChoiceColumns(problem, free, program, columns);
  addEdgeTerms(problem, free, assignment, program, columns);
  if (options.memoryLimitBytes)
    addMemoryRows(problem, options, free, assignment, program, columns);
}

/// GLPK's callback under a node limit: ends the branch and bound, keeping
/// the best solution found, once more nodes than the limit were opened.
static void stopAfterNodes(glp_tree *tree, void *info) {
  if (glp_ios_reason(tree) != GLP_ISELECT)
    return;
  int active = 0, current = 0, total = 0;
  glp_ios_tree_size(tree, &active, &current, &total);
  if (total > *static_cast<const int *>(info))
    glp_ios_terminate(tree);
}

/// Solves the program's LP relaxation by the simplex with GLPK's presolver,
/// within the options' time limit; GLPK's return code.
static int solveRelaxation(IntegerProgram &program,
                           const SearchOptions &options) {
  glp_term_out(GLP_OFF);
  glp_smcp parameters;
  glp_init_smcp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  if (options.timeLimitSeconds > 0)
    parameters.tm_lim = static_cast<int>(options.timeLimitSeconds * 1000);
  return glp_simplex(program.get(), &parameters);
}

/// Solves the program over `free` nodes; on success returns every node's
/// choice (fixed ones as in `assignment`) and whether it is proven optimal.
static FailureOr<std::pair<SmallVector<unsigned>, bool>>
solve(ParallelProblem &problem, const SearchOptions &options,
      ArrayRef<bool> free, ArrayRef<unsigned> assignment, std::string &error) {
  IntegerProgram program;
  SmallVector<SmallVector<int>> columns;
  buildProgram(problem, options, free, assignment, program, columns);
  program.load();
  // The LP relaxation first, by the simplex with its presolver, then the
  // branch and bound from its basis: faster than glp_intopt's own
  // presolver on these programs.
  int code = solveRelaxation(program, options);
  int status = code == 0 && glp_get_status(program.get()) == GLP_NOFEAS
                   ? GLP_NOFEAS
                   : GLP_UNDEF;
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.msg_lev = GLP_MSG_OFF;
  if (options.timeLimitSeconds > 0)
    parameters.tm_lim = static_cast<int>(options.timeLimitSeconds * 1000);
  int nodeLimit = options.nodeLimit;
  if (nodeLimit > 0) {
    parameters.cb_func = stopAfterNodes;
    parameters.cb_info = &nodeLimit;
  }
  if (code == 0 && glp_get_status(program.get()) == GLP_OPT) {
    code = glp_intopt(program.get(), &parameters);
    status = glp_mip_status(program.get());
  }
  if ((code != 0 && code != GLP_ETMLIM && code != GLP_ESTOP) ||
      (status != GLP_OPT && status != GLP_FEAS)) {
    error = status == GLP_NOFEAS || code == GLP_ENOPFS
                ? "the integer program has no solution" +
                      std::string(options.memoryLimitBytes
                                      ? " within the memory limit; the "
                                        "smallest possible is " +
                                            std::to_string(int64_t(
                                                problem.minimumMemory())) +
                                            " bytes per device"
                                      : "")
            : code == GLP_ETMLIM
                ? "GLPK reached its time limit of " +
                      std::to_string(int(options.timeLimitSeconds)) +
                      " s without a solution; search=cd scales to this graph"
            : code == GLP_ESTOP
                ? "GLPK opened its limit of " + std::to_string(nodeLimit) +
                      " branch-and-bound nodes without a solution"
                : "GLPK found no solution (code " + std::to_string(code) +
                      ", status " + std::to_string(status) + ")";
    return failure();
  }
  SmallVector<unsigned> chosen(assignment.begin(), assignment.end());
  for (auto [n, choices] : llvm::enumerate(columns)) {
    double most = -1;
    for (auto [c, column] : llvm::enumerate(choices)) {
      double value = glp_mip_col_val(program.get(), column);
      if (value > most) {
        most = value;
        chosen[n] = c;
      }
    }
  }
  return std::make_pair(std::move(chosen), status == GLP_OPT);
}

FailureOr<SmallVector<unsigned>>
mlir::oneflow::solveRegion(ParallelProblem &problem,
                           ArrayRef<unsigned> assignment, ArrayRef<bool> free,
                           const SearchOptions &options, std::string &error) {
  FailureOr<std::pair<SmallVector<unsigned>, bool>> solved =
      solve(problem, options, free, assignment, error);
  if (failed(solved))
    return failure();
  return std::move(solved->first);
}

FailureOr<SearchResult> mlir::oneflow::searchExact(ParallelProblem &problem,
                                                   const SearchOptions &options,
                                                   std::string &error) {
  SmallVector<bool> free(problem.getNodes().size(), true);
  SmallVector<unsigned> none(problem.getNodes().size(), 0);
  FailureOr<std::pair<SmallVector<unsigned>, bool>> solved =
      solve(problem, options, free, none, error);
  if (failed(solved))
    return failure();
  SearchResult result;
  result.origin = "exact";
  result.optimal = solved->second;
  result.assignment = std::move(solved->first);
  result.cost = problem.evaluate(result.assignment);
  return result;
}

FailureOr<double> mlir::oneflow::lowerBound(ParallelProblem &problem,
                                            const SearchOptions &options,
                                            std::string &error) {
  IntegerProgram program;
  SmallVector<SmallVector<int>> columns;
  SmallVector<bool> free(problem.getNodes().size(), true);
  SmallVector<unsigned> none(problem.getNodes().size(), 0);
  buildProgram(problem, options, free, none, program, columns);
  program.load();
  int code = solveRelaxation(program, options);
  if (code != 0 || glp_get_status(program.get()) != GLP_OPT) {
    error =
        "the LP relaxation has no optimum (code " + std::to_string(code) + ")";
    return failure();
  }
  return glp_get_obj_val(program.get()) / kMicroseconds;
}
