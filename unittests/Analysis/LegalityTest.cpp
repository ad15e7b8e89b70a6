//===- LegalityTest.cpp - One statement of legality, one error per rule ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// getLegalSignatures is what propagation and the search both ask: the
// search's choices for an op are exactly its legal signatures, and each
// rule that leaves none has its own error. An op with an SBP rule but no
// cost rule (a plugin op whose author forgot CostInterface; here an op of a
// dialect defined in this file) is an error naming it in propagation and
// in the search, not an op priced as free.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/Analysis/SbpCandidates.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Interfaces/SbpRules.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// An element-wise op with an SBP rule and no cost rule.
class NoCostOp : public Op<NoCostOp, OpTrait::ZeroRegions, OpTrait::OneResult,
                           OpTrait::ZeroSuccessors, OpTrait::OneOperand> {
public:
  using Op::Op;
  static StringRef getOperationName() { return "legalitytest.no_cost"; }
  static ArrayRef<StringRef> getAttributeNames() { return {}; }
};

struct NoCostSbp : public SbpInterface::ExternalModel<NoCostSbp, NoCostOp> {
  void getSbpSignatures(Operation *op, int64_t meshAxisSize,
                        SmallVectorImpl<SbpSignature> &signatures) const {
    SbpDims::elementwise(op).derive(meshAxisSize, signatures);
  }
};

class LegalityTestDialect : public Dialect {
public:
  explicit LegalityTestDialect(MLIRContext *context)
      : Dialect(getDialectNamespace(), context,
                TypeID::get<LegalityTestDialect>()) {
    addOperations<NoCostOp>();
    NoCostOp::attachInterface<NoCostSbp>(*context);
  }
  static StringRef getDialectNamespace() { return "legalitytest"; }
};

class LegalityTest : public ::testing::Test {
protected:
  LegalityTest() {
    DialectRegistry registry;
    registerOneFlowExternalModels(registry);
    context.appendDialectRegistry(registry);
    context
        .loadDialect<OneFlowDialect, func::FuncDialect, LegalityTestDialect>();
  }

  OwningOpRef<ModuleOp> parse(StringRef source) {
    return parseSourceString<ModuleOp>(source, &context);
  }

  /// Runs oneflow-sbp-propagation; returns the errors it reported.
  std::string propagate(ModuleOp module) {
    std::string errors;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
      errors += diagnostic.str() + "\n";
      return success();
    });
    PassManager pm(&context);
    pm.nest<func::FuncOp>().addPass(createSbpPropagationPass());
    (void)pm.run(module);
    return errors;
  }

  MLIRContext context;
};

constexpr const char *kNoCost = R"mlir(
#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
func.func @f() {
  %x = oneflow.input "x" : tensor<8x4xf32, #oneflow.global<#p2, [S(0)]>>
  %y = "legalitytest.no_cost"(%x) : (tensor<8x4xf32, #oneflow.global<#p2, [S(0)]>>) -> tensor<8x4xf32>
  oneflow.output "y", %y : tensor<8x4xf32>
  return
}
)mlir";

TEST_F(LegalityTest, AnOpWithoutACostRuleIsAnErrorInPropagation) {
  OwningOpRef<ModuleOp> module = parse(kNoCost);
  ASSERT_TRUE(module);
  EXPECT_EQ(propagate(*module),
            "op 'legalitytest.no_cost' has no cost rule (CostInterface)\n");
}

TEST_F(LegalityTest, AnOpWithoutACostRuleIsAnErrorInTheSearch) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @f() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %y = "legalitytest.no_cost"(%x) : (tensor<8x4xf32>) -> tensor<8x4xf32>
  oneflow.output "y", %y : tensor<8x4xf32>
  return
}
)mlir");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  std::string error;
  FailureOr<std::unique_ptr<ParallelProblem>> problem = ParallelProblem::build(
      func, PlacementAttr::get(&context, DeviceKind::cpu, {0, 1}, {2}),
      ClusterDesc::getDefault(), error);
  EXPECT_TRUE(failed(problem));
  EXPECT_NE(error.find("'legalitytest.no_cost' has no cost rule "
                       "(CostInterface)"),
            std::string::npos)
      << error;
}

TEST_F(LegalityTest, TheSearchChoosesAmongTheLegalSignatures) {
  // A relu whose operand is pinned S(1): of its four signatures on a mesh
  // of 2 (S(0), S(1), P-free, B), the search may take only S(1) -> S(1).
  OwningOpRef<ModuleOp> module = parse(R"mlir(
#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
func.func @f() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %y = oneflow.relu %x {oneflow.operand_layouts = [#oneflow.global<#p2, [S(1)]>]} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  oneflow.output "y", %y : tensor<8x4xf32>
  return
}
)mlir");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  PlacementAttr placement =
      PlacementAttr::get(&context, DeviceKind::cpu, {0, 1}, {2});
  std::string error;
  FailureOr<std::unique_ptr<ParallelProblem>> problem =
      ParallelProblem::build(func, placement, ClusterDesc::getDefault(), error);
  ASSERT_TRUE(succeeded(problem)) << error;
  ReluOp relu = *func.getOps<ReluOp>().begin();
  FailureOr<SmallVector<NdSbpSignature>> legal = getLegalSignatures(
      cast<SbpInterface>(relu.getOperation()), placement, {}, error);
  ASSERT_TRUE(succeeded(legal)) << error;
  ASSERT_EQ(legal->size(), 1u);
  EXPECT_EQ(stringifyNdSbp(legal->front().operands[0]), "[S(1)]");
  for (const ProblemNode &node : (*problem)->getNodes())
    if (node.op == relu.getOperation()) {
      ASSERT_EQ(node.choices.size(), 1u);
      EXPECT_EQ(node.choices[0].operands, legal->front().operands);
      EXPECT_EQ(node.choices[0].results, legal->front().results);
    }
}

TEST_F(LegalityTest, OperandsWrittenInPlaceKeepTheirLayouts) {
  // An SGD update writes its parameter: with the parameter S(0), only
  // signatures that take it S(0) are legal; given no current layouts
  // (the search, which makes the edge one that cannot box), all are.
  OwningOpRef<ModuleOp> module = parse(R"mlir(
#p2 = #oneflow.placement<cpu, ranks = [0, 1]>
func.func @f() {
  %w = oneflow.variable "w" {init = #oneflow.init<zeros>} : tensor<8x4xf32, #oneflow.global<#p2, [S(0)]>>
  %g = oneflow.input "g" : tensor<8x4xf32, #oneflow.global<#p2, [S(1)]>>
  oneflow.sgd_update %w, %g {lr = 0.1 : f64} : tensor<8x4xf32, #oneflow.global<#p2, [S(0)]>>, tensor<8x4xf32, #oneflow.global<#p2, [S(1)]>>
  return
}
)mlir");
  ASSERT_TRUE(module);
  auto func = *module->getOps<func::FuncOp>().begin();
  Operation *update = (*func.getOps<SgdUpdateOp>().begin()).getOperation();
  PlacementAttr placement =
      PlacementAttr::get(&context, DeviceKind::cpu, {0, 1}, {2});
  SmallVector<GlobalAttr> current;
  for (Value operand : update->getOperands())
    current.push_back(getGlobalEncoding(operand.getType()));
  std::string error;
  FailureOr<SmallVector<NdSbpSignature>> kept =
      getLegalSignatures(cast<SbpInterface>(update), placement, current, error);
  ASSERT_TRUE(succeeded(kept)) << error;
  for (const NdSbpSignature &signature : *kept)
    EXPECT_EQ(stringifyNdSbp(signature.operands[0]), "[S(0)]");
  FailureOr<SmallVector<NdSbpSignature>> all =
      getLegalSignatures(cast<SbpInterface>(update), placement, {}, error);
  ASSERT_TRUE(succeeded(all)) << error;
  EXPECT_GT(all->size(), kept->size());

  // A parameter whose layout no signature keeps (the update is never
  // P on its parameter): the in-place rule's own error.
  current[0] = GlobalAttr::get(
      &context, placement,
      NdSbpAttr::get(&context, {SbpAttr::getPartial(&context)}));
  EXPECT_TRUE(failed(getLegalSignatures(cast<SbpInterface>(update), placement,
                                        current, error)));
  EXPECT_NE(error.find("keeps the layouts of the operands it writes in place"),
            std::string::npos)
      << error;
}

} // namespace
