//===- ExactSearchTest.cpp - The exact search and GLPK's environment ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// GLPK keeps an environment per thread that calls it. The exact search (and
// the lower bound, its LP relaxation) free it when their last program goes,
// so a thread that searched leaves nothing of GLPK behind: a library
// caller's pool compiling models does not grow.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <glpk.h>
#include <gtest/gtest.h>

#include <thread>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// A context with the dialects, and a module parsed in it.
class ExactSearch : public ::testing::Test {
protected:
  ExactSearch() : context(makeRegistry()) {
    context.loadDialect<OneFlowDialect, func::FuncDialect>();
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registerOneFlowExternalModels(registry);
    return registry;
  }
  /// The problem of `source`'s function @f on CPU ranks 0 to n - 1, `mesh`
  /// (n devices), priced with `cluster` (which it keeps a reference to).
  std::unique_ptr<ParallelProblem> build(StringRef source,
                                         ArrayRef<int64_t> mesh) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    SmallVector<int64_t> ranks;
    for (int64_t r = 0, n = computeProduct(mesh); r < n; ++r)
      ranks.push_back(r);
    std::string error;
    FailureOr<std::unique_ptr<ParallelProblem>> problem =
        ParallelProblem::build(
            module->lookupSymbol<func::FuncOp>("f"),
            PlacementAttr::get(&context, DeviceKind::cpu, ranks, mesh), cluster,
            error);
    EXPECT_TRUE(succeeded(problem)) << error;
    return succeeded(problem) ? std::move(*problem) : nullptr;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  ClusterDesc cluster = ClusterDesc::getDefault();
};

TEST_F(ExactSearch, LeavesNoGlpkEnvironmentOnItsThread) {
  std::unique_ptr<ParallelProblem> problem = build(
      R"mlir(
      func.func @f() {
        %x = oneflow.input "x" : tensor<8x4xf32>
        %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<4x6xf32>
        %v = oneflow.variable "v" {init = #oneflow.init<zeros>} : tensor<6x2xf32>
        %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<8x6xf32>
        %r = oneflow.relu %y : (tensor<8x6xf32>) -> tensor<8x6xf32>
        %z = oneflow.matmul %r, %v : (tensor<8x6xf32>, tensor<6x2xf32>) -> tensor<8x2xf32>
        oneflow.output "z", %z : tensor<8x2xf32>
        return
      })mlir",
      {2});
  ASSERT_TRUE(problem);
  bool solved = false, bounded = false;
  int freedAfter = 0;
  std::thread worker([&] {
    std::string why;
    solved = succeeded(searchExact(*problem, SearchOptions(), why));
    bounded = succeeded(lowerBound(*problem, SearchOptions(), why));
    // 1: this thread has no environment left to free.
    freedAfter = glp_free_env();
  });
  worker.join();
  EXPECT_TRUE(solved);
  EXPECT_TRUE(bounded);
  EXPECT_EQ(freedAfter, 1);
}

// A node limit stops the branch and bound where a time limit would, but at
// the same point on every machine: a memory limit that makes the LP
// relaxation fractional needs more than 13 nodes here; with the limit the
// search says so (naming it), without it GLPK proves the optimum.
TEST_F(ExactSearch, NodeLimitStopsTheBranchAndBound) {
  cluster = *ClusterDesc::getBuiltin("gloo");
  std::unique_ptr<ParallelProblem> problem = build(
      R"mlir(
      func.func @f() {
        %x = oneflow.input "x" : tensor<64x32xf32>
        %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<32x64xf32>
        %v = oneflow.variable "v" {init = #oneflow.init<zeros>} : tensor<64x32xf32>
        %u = oneflow.variable "u" {init = #oneflow.init<zeros>} : tensor<32x64xf32>
        %y = oneflow.matmul %x, %w : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
        %r = oneflow.relu %y : (tensor<64x64xf32>) -> tensor<64x64xf32>
        %z = oneflow.matmul %r, %v : (tensor<64x64xf32>, tensor<64x32xf32>) -> tensor<64x32xf32>
        %q = oneflow.matmul %z, %u : (tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<64x64xf32>
        %s = oneflow.add %q, %r : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
        oneflow.output "s", %s : tensor<64x64xf32>
        return
      })mlir",
      {2, 2});
  ASSERT_TRUE(problem);
  std::string error;
  SearchOptions options;
  options.memoryLimitBytes = problem->minimumMemory() * 1.15;
  options.timeLimitSeconds = 0;
  FailureOr<SearchResult> full = searchExact(*problem, options, error);
  ASSERT_TRUE(succeeded(full)) << error;
  EXPECT_TRUE(full->optimal);
  EXPECT_LE(full->cost.memoryBytes, *options.memoryLimitBytes);
  options.nodeLimit = 13;
  for (int run = 0; run < 2; ++run) {
    error.clear();
    EXPECT_TRUE(failed(searchExact(*problem, options, error)));
    EXPECT_EQ(error, "GLPK opened its limit of 13 branch-and-bound nodes "
                     "without a solution");
  }
  options.nodeLimit = 100000;
  FailureOr<SearchResult> roomy = searchExact(*problem, options, error);
  ASSERT_TRUE(succeeded(roomy)) << error;
  EXPECT_TRUE(roomy->optimal);
  EXPECT_EQ(roomy->assignment, full->assignment);
}

} // namespace
