//===- TrainingPipeline.cpp - oneflow-training-pipeline -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The passes that make a program written for one device a training step on
// several: what of-run --train runs, so that of-opt can replay it.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

using namespace mlir;
using namespace mlir::oneflow;

void mlir::oneflow::buildOneFlowTrainingPasses(OpPassManager &pm,
                                               const TrainingConfig &config) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createInferShapesPass());
  if (config.precision != "f32") {
    MixedPrecisionPassOptions mixed;
    mixed.dtype = config.precision;
    funcPm.addPass(createMixedPrecisionPass(mixed));
  }
  if (config.stages > 1) {
    AssignStagesPassOptions assign;
    assign.stages = config.stages;
    assign.strategy = config.strategy;
    assign.loss = config.loss;
    funcPm.addPass(createAssignStagesPass(assign));
  }
  if (config.batchNormStatistics == BatchNormStatistics::local) {
    LocalBatchStatisticsPassOptions local;
    local.groups = config.batchNormGroups > 0
                       ? config.batchNormGroups
                       : config.devices / std::max<int64_t>(config.stages, 1) *
                             config.microBatches;
    funcPm.addPass(createLocalBatchStatisticsPass(local));
  }
  AutodiffPassOptions autodiff;
  autodiff.loss = config.loss;
  funcPm.addPass(createAutodiffPass(autodiff));
  if (config.recompute) {
    ActivationCheckpointingPassOptions checkpointing;
    checkpointing.loss = config.loss;
    checkpointing.strategy = config.strategy;
    funcPm.addPass(createActivationCheckpointingPass(checkpointing));
  }
  funcPm.addPass(createOptimizerPass(config.optimizer));
  funcPm.addPass(createUpdateMovingStatisticsPass());
  std::string strategy = config.strategy;
  bool oneDevice =
      config.devices == 1 && config.microBatches == 1 && config.stages == 1;
  if (strategy.empty() && !oneDevice)
    strategy = "dp";
  // On one device every built-in layout is the program as written: laying
  // it out would only add boxings over a mesh of one (a GPT step on one CPU
  // rank under dp ran 41 collectives with no one, 3.9 ms against 1.9).
  if (oneDevice && llvm::is_contained({"dp", "tp", "hybrid", "zero"},
                                      StringRef(strategy)))
    strategy.clear();
  if (strategy.empty())
    return;
  if (strategy == "auto" && config.microBatches == 1 && config.stages == 1) {
    AutoParallelPassOptions search = config.autoParallel;
    search.devices = config.devices;
    search.device = config.device;
    funcPm.addPass(createAutoParallelPass(search));
    return;
  }
  ApplyStrategyPassOptions apply;
  apply.strategy = strategy;
  apply.devices = config.devices;
  apply.device = config.device;
  apply.microBatches = config.microBatches;
  apply.stages = config.stages;
  apply.schedule = config.pipelineSchedule;
  funcPm.addPass(createApplyStrategyPass(apply));
}

TrainingConfig OneFlowTrainingPipelineOptions::config() const {
  TrainingConfig config;
#define OF_TRAINING_OPTION(IDENT, NAME, TYPE, FIELD, HELP) config.FIELD = IDENT;
#include "OneFlowDialect/Transforms/TrainingOptions.def"
  config.autoParallel.mesh.assign(mesh.begin(), mesh.end());
  return config;
}

void mlir::oneflow::buildOneFlowTrainingPipeline(
    OpPassManager &pm, const OneFlowTrainingPipelineOptions &options) {
  buildOneFlowTrainingPasses(pm, options.config());
  OneFlowPipelineOptions rest;
  rest.regstCount = options.regstCount;
  rest.device = options.device;
  buildOneFlowDefaultPipeline(pm, rest);
}
