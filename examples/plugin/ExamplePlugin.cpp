//===- ExamplePlugin.cpp - A dialect and pass plugin for of-opt -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What a compiler researcher writes to extend OneFlow-MLIR without
// rebuilding it: a dialect with a custom op, the op's rules for our passes
// (SBP signatures, gradient and cost, as external models of our interfaces
// registered with the dialect), and a pass that rewrites oneflow ops into
// it. A second op, ofexample.add_row_index, needs its rank's place in the
// logical tensor: its RankLoweringInterface model returns a typed actor
// layout, which plan export and the runtime carry to its kernel unchanged.
// Load with
//
//   of-opt --load-dialect-plugin=OneFlowExamplePlugin.so \
//          --load-pass-plugin=OneFlowExamplePlugin.so \
//          --pass-pipeline='builtin.module(oneflow-example-fuse-swish)'
//
// With the rules, a program that uses ofexample.swish goes through
// propagation, boxing, autodiff and the layout search like any oneflow op
// and lowers to actors; its kernel is the runtime half of the plugin
// (ExampleKernels.cpp). of-run loads both with --plugin.
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"
#include "OneFlowDialect/Interfaces/RankLayout.h"
#include "OneFlowDialect/Interfaces/RankLoweringInterface.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"

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
// Rules: what our passes need to know about ofexample.swish
//===----------------------------------------------------------------------===//

namespace {
using ofexample::SwishOp;

/// Element-wise: every axis parallel, as oneflow's unary ops.
struct SwishSbp
    : public mlir::oneflow::SbpInterface::ExternalModel<SwishSbp, SwishOp> {
  void getSbpSignatures(
      mlir::Operation *op, int64_t meshAxisSize,
      llvm::SmallVectorImpl<mlir::oneflow::SbpSignature> &signatures) const {
    mlir::oneflow::SbpDims::elementwise(op).derive(meshAxisSize, signatures);
  }
};

/// d swish / dx = s + x s (1 - s) = s (1 + x - x s), s = sigmoid(x), built
/// from oneflow ops.
struct SwishGradient
    : public mlir::oneflow::GradientInterface::ExternalModel<SwishGradient,
                                                             SwishOp> {
  mlir::LogicalResult
  buildGradient(mlir::Operation *op, mlir::OpBuilder &b,
                mlir::ValueRange resultGrads,
                llvm::SmallVectorImpl<mlir::Value> &operandGrads) const {
    namespace of = mlir::oneflow;
    mlir::Location loc = op->getLoc();
    mlir::Value x = op->getOperand(0), dy = resultGrads[0];
    if (!dy) {
      operandGrads.push_back(mlir::Value());
      return mlir::success();
    }
    mlir::Value s = of::SigmoidOp::create(b, loc, x);
    mlir::Value xs = of::MulOp::create(b, loc, x, s);
    mlir::Value onePlusX =
        of::ScalarAddOp::create(b, loc, x, b.getF64FloatAttr(1.0));
    mlir::Value inner = of::SubOp::create(b, loc, onePlusX, xs);
    mlir::Value derivative = of::MulOp::create(b, loc, s, inner);
    operandGrads.push_back(of::MulOp::create(b, loc, dy, derivative));
    return mlir::success();
  }
};

/// About five operations per element (exp, add, divide, multiply) and the
/// bytes of its operand and result; no workspace.
struct SwishCost
    : public mlir::oneflow::CostInterface::ExternalModel<SwishCost, SwishOp> {
  static double elements(mlir::Operation *op) {
    auto type = mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType());
    return type.hasStaticShape() ? static_cast<double>(type.getNumElements())
                                 : 1.0;
  }
  double getComputeFlops(mlir::Operation *op) const { return 5 * elements(op); }
  double getMemoryBytes(mlir::Operation *op) const {
    auto type = mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType());
    return 2 * elements(op) * type.getElementTypeBitWidth() / 8;
  }
  /// The kernel reads x and writes y, nothing else.
  double getWorkspaceBytes(mlir::Operation *) const { return 0; }
};

using ofexample::AddRowIndexOp;

/// Element-wise as swish; no partial, since the added index is not.
struct AddRowIndexSbp
    : public mlir::oneflow::SbpInterface::ExternalModel<AddRowIndexSbp,
                                                        AddRowIndexOp> {
  void getSbpSignatures(
      mlir::Operation *op, int64_t meshAxisSize,
      llvm::SmallVectorImpl<mlir::oneflow::SbpSignature> &signatures) const {
    mlir::oneflow::SbpDims::elementwise(op).derive(meshAxisSize, signatures);
  }
};

/// The index does not depend on x: dx = dy.
struct AddRowIndexGradient
    : public mlir::oneflow::GradientInterface::ExternalModel<
          AddRowIndexGradient, AddRowIndexOp> {
  mlir::LogicalResult
  buildGradient(mlir::Operation *, mlir::OpBuilder &,
                mlir::ValueRange resultGrads,
                llvm::SmallVectorImpl<mlir::Value> &operandGrads) const {
    operandGrads.push_back(resultGrads[0]);
    return mlir::success();
  }
};

/// One multiply-add per element, its operand and result's bytes.
struct AddRowIndexCost
    : public mlir::oneflow::CostInterface::ExternalModel<AddRowIndexCost,
                                                         AddRowIndexOp> {
  double getComputeFlops(mlir::Operation *op) const {
    return 2 * SwishCost::elements(op);
  }
  double getMemoryBytes(mlir::Operation *op) const {
    auto type = mlir::cast<mlir::RankedTensorType>(op->getResult(0).getType());
    return 2 * SwishCost::elements(op) * type.getElementTypeBitWidth() / 8;
  }
  double getWorkspaceBytes(mlir::Operation *) const { return 0; }
};

/// The rows of the logical tensor that the rank's piece holds, as the
/// typed layout the gathers of the oneflow dialect use; none on one
/// device.
struct AddRowIndexRankLowering
    : public mlir::oneflow::RankLoweringInterface::ExternalModel<
          AddRowIndexRankLowering, AddRowIndexOp> {
  mlir::Attribute getRankLayout(mlir::Operation *op,
                                const mlir::oneflow::RankPosition &where,
                                mlir::NamedAttrList &) const {
    mlir::Type type = op->getResult(0).getType();
    auto tensor = mlir::cast<mlir::RankedTensorType>(type);
    if (!mlir::oneflow::getGlobalEncoding(type) || tensor.getRank() == 0)
      return {};
    llvm::SmallVector<int64_t> begin =
        mlir::oneflow::getLocalBegin(type, where.rank);
    return mlir::oneflow::actor::IndexRangeLayoutAttr::get(
        op->getContext(), begin.empty() ? 0 : begin[0], tensor.getDimSize(0));
  }
};
} // namespace

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
            registry->addExtension(
                +[](mlir::MLIRContext *context, ofexample::ExampleDialect *) {
                  SwishOp::attachInterface<SwishSbp, SwishGradient, SwishCost>(
                      *context);
                  AddRowIndexOp::attachInterface<
                      AddRowIndexSbp, AddRowIndexGradient, AddRowIndexCost,
                      AddRowIndexRankLowering>(*context);
                });
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "OneFlowExample", LLVM_VERSION_STRING,
          []() { ofexample::registerFuseSwishPass(); }};
}
