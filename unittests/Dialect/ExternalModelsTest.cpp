//===- ExternalModelsTest.cpp - Promised and registered interfaces --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// OneFlowDialect promises CostInterface for every op and GradientInterface
// for the ops with a gradient rule; registerOneFlowExternalModels keeps
// every promise, and nothing else: an op with a rule the dialect did not
// promise, or a promise without a rule, fails here.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"

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
    gradients += dialect->hasPromisedInterface(
        name.getTypeID(), GradientInterface::getInterfaceID());
  }
  EXPECT_GT(gradients, 50u);
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
    // A gradient rule exactly where one was promised, and no promise left.
    std::optional<RegisteredOperationName> unregistered =
        RegisteredOperationName::lookup(name.getStringRef(), &promised);
    ASSERT_TRUE(unregistered);
    EXPECT_EQ(
        name.hasInterface<GradientInterface>(),
        before->hasPromisedInterface(unregistered->getTypeID(),
                                     GradientInterface::getInterfaceID()));
    EXPECT_FALSE(dialect->hasPromisedInterface(
        name.getTypeID(), CostInterface::getInterfaceID()));
    EXPECT_FALSE(dialect->hasPromisedInterface(
        name.getTypeID(), GradientInterface::getInterfaceID()));
  }
}

} // namespace
