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

/// A GLPK problem being built: columns, rows and the coefficients.
class IntegerProgram {
public:
  IntegerProgram() : lp(glp_create_prob()) {
    glp_set_obj_dir(lp, GLP_MIN);
    ia.push_back(0);
    ja.push_back(0);
    ar.push_back(0);
  }
  ~IntegerProgram() { glp_delete_prob(lp); }
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
  void add(int row, int column, double value) {
    ia.push_back(row);
    ja.push_back(column);
    ar.push_back(value);
  }
  void load() { glp_load_matrix(lp, ia.size() - 1, ia.data(), ja.data(), ar.data()); }
  glp_prob *get() { return lp; }

private:
  glp_prob *lp;
  std::vector<int> ia, ja;
  std::vector<double> ar;
};

} // namespace

/// Builds the program; `columns[n][c]` receives x[n][c]'s column.
static void buildProgram(ParallelProblem &problem, const SearchOptions &options,
                         IntegerProgram &program,
                         SmallVector<SmallVector<int>> &columns) {
  ArrayRef<ProblemNode> nodes = problem.getNodes();
  for (auto [n, node] : llvm::enumerate(nodes)) {
    int row = program.addRow(1, 1);
    SmallVector<int> choiceColumns;
    for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c) {
      int column = program.addColumn(node.compute[c] * kMicroseconds, true);
      program.add(row, column, 1);
      choiceColumns.push_back(column);
    }
    columns.push_back(std::move(choiceColumns));
  }

  for (auto [e, edge] : llvm::enumerate(problem.getEdges())) {
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
      continue;
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
        double cost = problem.edgeCost(e, give.second.front(),
                                       need.second.front());
        if (std::isinf(cost))
          continue;
        int column = program.addColumn(cost * kMicroseconds, false);
        program.add(giveRows[i], column, 1);
        program.add(needRows[j], column, 1);
      }
  }

  if (!options.memoryLimitBytes)
    return;
  // One row per position where a non-variable value is produced: the peak
  // lies at one of them.
  std::map<unsigned, int> rows;
  double limit = *options.memoryLimitBytes * kMiB;
  for (auto [n, node] : llvm::enumerate(nodes))
    if (!problem.isPersistent(n) && node.op->getNumResults() > 0)
      rows.try_emplace(node.position, 0);
  for (auto &[position, row] : rows)
    row = program.addRow(-INFINITY, limit);
  for (auto [n, node] : llvm::enumerate(nodes)) {
    for (unsigned r = 0, re = node.op->getNumResults(); r < re; ++r) {
      auto begin = problem.isPersistent(n) ? rows.begin()
                                           : rows.lower_bound(node.position);
      auto end = problem.isPersistent(n) ? rows.end()
                                         : rows.upper_bound(problem.lastUse(n, r));
      for (auto it = begin; it != end; ++it)
        for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c)
          program.add(it->second, columns[n][c],
                      problem.resultBytes(n, r, c) * kMiB);
    }
  }
}

FailureOr<SearchResult>
mlir::oneflow::searchExact(ParallelProblem &problem,
                           const SearchOptions &options, std::string &error) {
  IntegerProgram program;
  SmallVector<SmallVector<int>> columns;
  buildProgram(problem, options, program, columns);
  program.load();
  glp_term_out(GLP_OFF);
  glp_iocp parameters;
  glp_init_iocp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.tm_lim = static_cast<int>(options.timeLimitSeconds * 1000);
  int code = glp_intopt(program.get(), &parameters);
  int status = glp_mip_status(program.get());
  if ((code != 0 && code != GLP_ETMLIM) ||
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
                : "GLPK found no solution (code " + std::to_string(code) +
                      ", status " + std::to_string(status) + ")";
    return failure();
  }
  SearchResult result;
  result.origin = "exact";
  result.optimal = status == GLP_OPT;
  for (auto [n, choices] : llvm::enumerate(columns)) {
    unsigned chosen = 0;
    double most = -1;
    for (auto [c, column] : llvm::enumerate(choices)) {
      double value = glp_mip_col_val(program.get(), column);
      if (value > most) {
        most = value;
        chosen = c;
      }
    }
    result.assignment.push_back(chosen);
  }
  result.cost = problem.evaluate(result.assignment);
  return result;
}

FailureOr<double> mlir::oneflow::lowerBound(ParallelProblem &problem,
                                            const SearchOptions &options,
                                            std::string &error) {
  IntegerProgram program;
  SmallVector<SmallVector<int>> columns;
  buildProgram(problem, options, program, columns);
  program.load();
  glp_term_out(GLP_OFF);
  glp_smcp parameters;
  glp_init_smcp(&parameters);
  parameters.presolve = GLP_ON;
  parameters.msg_lev = GLP_MSG_OFF;
  parameters.tm_lim = static_cast<int>(options.timeLimitSeconds * 1000);
  int code = glp_simplex(program.get(), &parameters);
  if (code != 0 || glp_get_status(program.get()) != GLP_OPT) {
    error = "the LP relaxation has no optimum (code " + std::to_string(code) +
            ")";
    return failure();
  }
  return glp_get_obj_val(program.get()) / kMicroseconds;
}
