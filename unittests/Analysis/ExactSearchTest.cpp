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

TEST(ExactSearch, LeavesNoGlpkEnvironmentOnItsThread) {
  DialectRegistry registry;
  registerOneFlowExternalModels(registry);
  MLIRContext context(registry);
  context.loadDialect<OneFlowDialect, func::FuncDialect>();
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
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
      &context);
  ASSERT_TRUE(module);
  auto func = module->lookupSymbol<func::FuncOp>("f");
  ClusterDesc cluster;
  std::string error;
  FailureOr<std::unique_ptr<ParallelProblem>> problem = ParallelProblem::build(
      func, PlacementAttr::get(&context, DeviceKind::cpu, {0, 1}, {2}),
      cluster, error);
  ASSERT_TRUE(succeeded(problem)) << error;
  bool solved = false, bounded = false;
  int freedAfter = 0;
  std::thread worker([&] {
    std::string why;
    solved = succeeded(searchExact(**problem, SearchOptions(), why));
    bounded = succeeded(lowerBound(**problem, SearchOptions(), why));
    // 1: this thread has no environment left to free.
    freedAfter = glp_free_env();
  });
  worker.join();
  EXPECT_TRUE(solved);
  EXPECT_TRUE(bounded);
  EXPECT_EQ(freedAfter, 1);
}

} // namespace
