//===- Compile.cpp - Programs to plans, for the tools ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Compile.h"

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Target/PlanExport.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

void oftools::registerToolDialects(DialectRegistry &registry) {
  registry.insert<oneflow::OneFlowDialect, oneflow::actor::OneFlowActorDialect,
                  func::FuncDialect>();
  oneflow::registerOneFlowExternalModels(registry);
}

absl::StatusOr<std::string>
oftools::compileToPlan(ModuleOp module, const std::string &what,
                       const TrainOptions *train, const std::string &device,
                       double *predictedStepSeconds) {
  auto failedWith = [&](const std::string &stage) {
    return absl::InvalidArgumentError("cannot " + stage + " '" + what +
                                      "' (the errors above say why)");
  };
  if (train) {
    PassManager training(module.getContext());
    oneflow::buildOneFlowTrainingPasses(training, *train);
    if (failed(training.run(module)))
      return failedWith("compile");
    module.walk([&](func::FuncOp func) {
      if (auto predicted =
              func->getAttrOfType<FloatAttr>(oneflow::kPredictedStepAttrName);
          predicted && predictedStepSeconds)
        *predictedStepSeconds = predicted.getValueAsDouble();
    });
  }
  PassManager pm(module.getContext());
  oneflow::OneFlowPipelineOptions options;
  options.device = device;
  oneflow::buildOneFlowDefaultPipeline(pm, options);
  if (failed(pm.run(module)))
    return failedWith("compile");
  std::string plan;
  llvm::raw_string_ostream os(plan);
  if (failed(oneflow::writePlan(module, os, oneflow::PlanFormat::Binary)))
    return failedWith("export a plan for");
  os.flush();
  return plan;
}
