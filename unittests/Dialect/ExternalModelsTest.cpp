//===- ExternalModelsTest.cpp - Promised and registered interfaces --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// OneFlowDialect promises CostInterface for every op, GradientInterface
// for the ops with a gradient rule and RankLoweringInterface for those whose
// actors need per-rank attributes; registerOneFlowExternalModels keeps every
// promise, and nothing else: an op with a rule the dialect did not promise,
// or a promise without a rule, fails here.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"
#include "OneFlowDialect/Interfaces/RankLoweringInterface.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// The registered ops of the oneflow dialect in `context`.
SmallVector<RegisteredOperationName> oneflowOps(MLIRContext &context) {
  SmallVector<RegisteredOperationName> ops;
  for (RegisteredOperationName name : context.getRegisteredOperations())
    if (name.getDialectNamespace() == OneFlowDialect::getDialectNamespace())
      ops.push_back(name);
  return ops;
}

TEST(ExternalModels, UnregisteredRulesArePromisesOnly) {
  MLIRContext context;
  auto *dialect = context.getOrLoadDialect<OneFlowDialect>();
  SmallVector<RegisteredOperationName> ops = oneflowOps(context);
  ASSERT_GT(ops.size(), 100u);
  size_t gradients = 0;
  for (RegisteredOperationName name : ops) {
    SCOPED_TRACE(name.getStringRef().str());
    EXPECT_TRUE(dialect->hasPromisedInterface(name.getTypeID(),
                                              CostInterface::getInterfaceID()));
    EXPECT_FALSE(name.hasInterface<CostInterface>());
    EXPECT_FALSE(name.hasInterface<GradientInterface>());
    EXPECT_FALSE(name.hasInterface<RankLoweringInterface>());
    gradients += dialect->hasPromisedInterface(
        name.getTypeID(), GradientInterface::getInterfaceID());
  }
  EXPECT_GT(gradients, 50u);
  EXPECT_TRUE(dialect->hasPromisedInterface(
      TypeID::get<VariableOp>(), RankLoweringInterface::getInterfaceID()));
}

TEST(ExternalModels, RegistrationKeepsEveryPromise) {
  DialectRegistry registry;
  registerOneFlowExternalModels(registry);
  MLIRContext promised;
  auto *before = promised.getOrLoadDialect<OneFlowDialect>();
  MLIRContext context(registry);
  auto *dialect = context.getOrLoadDialect<OneFlowDialect>();
  for (RegisteredOperationName name : oneflowOps(context)) {
    SCOPED_TRACE(name.getStringRef().str());
    EXPECT_TRUE(name.hasInterface<CostInterface>());
    // Rules exactly where they were promised, and no promise left.
    std::optional<RegisteredOperationName> unregistered =
        RegisteredOperationName::lookup(name.getStringRef(), &promised);
    ASSERT_TRUE(unregistered);
    EXPECT_EQ(
        name.hasInterface<GradientInterface>(),
        before->hasPromisedInterface(unregistered->getTypeID(),
                                     GradientInterface::getInterfaceID()));
    EXPECT_EQ(
        name.hasInterface<RankLoweringInterface>(),
        before->hasPromisedInterface(unregistered->getTypeID(),
                                     RankLoweringInterface::getInterfaceID()));
    for (TypeID interface :
         {CostInterface::getInterfaceID(), GradientInterface::getInterfaceID(),
          RankLoweringInterface::getInterfaceID()})
      EXPECT_FALSE(dialect->hasPromisedInterface(name.getTypeID(), interface));
  }
}

} // namespace
