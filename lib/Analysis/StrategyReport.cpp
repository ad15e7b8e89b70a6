//===- StrategyReport.cpp - Print what a strategy costs -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The tables of oneflow-auto-parallel{explain} and
// oneflow-report-strategy-cost: totals per strategy, then per op its
// signature, compute, the boxing of its operands, the bytes of its results
// and the best other signature with every other op as it is.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>

using namespace mlir;
using namespace mlir::oneflow;

void mlir::oneflow::printCostHeader(llvm::raw_ostream &os) {
  os << llvm::format("  %-24s %12s %12s %12s %14s\n", "strategy", "step us",
                     "compute us", "comm us", "bytes/device");
}

void mlir::oneflow::printCostRow(llvm::raw_ostream &os, StringRef name,
                                 const StrategyCost &cost) {
  os << llvm::format("  %-24s %12.2f %12.2f %12.2f %14.0f\n",
                     name.str().c_str(), cost.seconds() * 1e6,
                     cost.computeSeconds * 1e6, cost.commSeconds * 1e6,
                     cost.memoryBytes);
}

/// Seconds `node` costs under `choice` with every other node as assigned:
/// its compute and the boxing of every edge it touches.
static double localCost(ParallelProblem &problem, ArrayRef<unsigned> assignment,
                        unsigned node, unsigned choice) {
  double cost = problem.getNodes()[node].compute[choice];
  for (unsigned e : problem.getInEdges(node))
    cost +=
        problem.edgeCost(e, assignment[problem.getEdges()[e].producer], choice);
  for (unsigned e : problem.getOutEdges(node))
    cost +=
        problem.edgeCost(e, choice, assignment[problem.getEdges()[e].consumer]);
  return cost;
}

static std::string formatSignature(const NdSbpSignature &signature) {
  auto list = [](ArrayRef<NdSbpAttr> sbps) {
    return llvm::join(llvm::map_range(sbps, stringifyNdSbp), ", ");
  };
  if (signature.operands.empty())
    return list(signature.results);
  return list(signature.operands) + " -> " + list(signature.results);
}

void mlir::oneflow::printOpCosts(ParallelProblem &problem,
                                 ArrayRef<unsigned> assignment,
                                 llvm::raw_ostream &os) {
  os << "  per op (comm: the boxing of its operands; else: the best other "
        "signature with the rest fixed)\n";
  for (auto [n, node] : llvm::enumerate(problem.getNodes())) {
    unsigned chosen = assignment[n];
    double comm = 0;
    for (unsigned e : problem.getInEdges(n))
      comm += problem.edgeCost(e, assignment[problem.getEdges()[e].producer],
                               chosen);
    double bytes = problem.workspaceBytes(n, chosen);
    for (unsigned r = 0, re = node.op->getNumResults(); r < re; ++r)
      bytes += problem.resultBytes(n, r, chosen);
    double here = localCost(problem, assignment, n, chosen);
    std::optional<unsigned> alternative;
    double alternativeCost = INFINITY;
    for (unsigned c = 0, ce = node.choices.size(); c < ce; ++c) {
      if (c == chosen)
        continue;
      double cost = localCost(problem, assignment, n, c);
      if (cost < alternativeCost) {
        alternativeCost = cost;
        alternative = c;
      }
    }
    std::string location;
    llvm::raw_string_ostream locationStream(location);
    node.op->getLoc().print(locationStream);
    os << "  " << location << " " << node.op->getName() << " "
       << formatSignature(node.choices[chosen])
       << llvm::format("  compute %.1f us, comm %.1f us, %.0f bytes",
                       node.compute[chosen] * 1e6, comm * 1e6, bytes);
    if (alternative && std::isfinite(alternativeCost))
      os << "; else " << formatSignature(node.choices[*alternative])
         << llvm::format(" (%+.1f us)", (alternativeCost - here) * 1e6);
    os << "\n";
  }
}
