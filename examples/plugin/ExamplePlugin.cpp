//===- ExamplePlugin.cpp - A dialect and pass plugin for of-opt -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What a compiler researcher writes to extend OneFlow-MLIR without
// rebuilding it: a dialect with a custom op, and a pass that rewrites
// oneflow ops into it. Load with
//
//   of-opt --load-dialect-plugin=OneFlowExamplePlugin.so \
//          --load-pass-plugin=OneFlowExamplePlugin.so \
//          --pass-pipeline='builtin.module(oneflow-example-fuse-swish)'
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

//===----------------------------------------------------------------------===//
// Dialect
//===----------------------------------------------------------------------===//

#include "ExampleDialect.h.inc"

#define GET_OP_CLASSES
#include "ExampleOps.h.inc"

#include "ExampleDialect.cpp.inc"

#define GET_OP_CLASSES
#include "ExampleOps.cpp.inc"

void ofexample::ExampleDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "ExampleOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace ofexample {
#define GEN_PASS_DECL
#define GEN_PASS_DEF_FUSESWISHPASS
#define GEN_PASS_REGISTRATION
#include "ExamplePasses.h.inc"
} // namespace ofexample

namespace {
/// mul(x, sigmoid(x)) or mul(sigmoid(x), x) -> ofexample.swish(x).
struct FuseSwish : public mlir::OpRewritePattern<mlir::oneflow::MulOp> {
  using OpRewritePattern::OpRewritePattern;

  mlir::LogicalResult
  matchAndRewrite(mlir::oneflow::MulOp mul,
                  mlir::PatternRewriter &rewriter) const override {
    for (auto [x, other] : {std::pair(mul.getLhs(), mul.getRhs()),
                            std::pair(mul.getRhs(), mul.getLhs())}) {
      auto sigmoid = other.getDefiningOp<mlir::oneflow::SigmoidOp>();
      if (!sigmoid || sigmoid.getX() != x || x.getType() != mul.getType())
        continue;
      rewriter.replaceOpWithNewOp<ofexample::SwishOp>(mul, mul.getType(), x);
      return mlir::success();
    }
    return rewriter.notifyMatchFailure(mul, "not x * sigmoid(x)");
  }
};

struct FuseSwishPass
    : public ofexample::impl::FuseSwishPassBase<FuseSwishPass> {
  void runOnOperation() override {
    mlir::RewritePatternSet patterns(&getContext());
    patterns.add<FuseSwish>(&getContext());
    if (mlir::failed(
            mlir::applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

//===----------------------------------------------------------------------===//
// Plugin entry points
//===----------------------------------------------------------------------===//

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "OneFlowExample", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            registry->insert<ofexample::ExampleDialect,
                             mlir::oneflow::OneFlowDialect>();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "OneFlowExample", LLVM_VERSION_STRING,
          []() { ofexample::registerFuseSwishPass(); }};
}
