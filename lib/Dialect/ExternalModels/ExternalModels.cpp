//===- ExternalModels.cpp - registerOneFlowExternalModels -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "GradientBuilder.h"

#include "OneFlowDialect/IR/OneFlowDialect.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace mlir::oneflow;

void mlir::oneflow::registerOneFlowExternalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, OneFlowDialect *) {
    attachCostInterfaceModels(*context);
    attachMathGradientModels(*context);
    attachShapeGradientModels(*context);
    attachNNGradientModels(*context);
    attachConvGradientModels(*context);
    detail::attachRankLoweringModels(*context);
  });
}
