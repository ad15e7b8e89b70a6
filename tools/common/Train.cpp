//===- Train.cpp - The training passes of of-run --train ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Train.h"

using namespace mlir;

void oftools::buildTrainingPipeline(OpPassManager &pm,
                                    const TrainOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(oneflow::createInferShapesPass());
  if (options.stages > 1) {
    oneflow::AssignStagesPassOptions assign;
    assign.stages = options.stages;
    assign.strategy = options.strategy;
    funcPm.addPass(oneflow::createAssignStagesPass(assign));
  }
  oneflow::AutodiffPassOptions autodiff;
  autodiff.loss = options.loss;
  funcPm.addPass(oneflow::createAutodiffPass(autodiff));
  if (options.recompute) {
    oneflow::ActivationCheckpointingPassOptions checkpointing;
    checkpointing.loss = options.loss;
    funcPm.addPass(oneflow::createActivationCheckpointingPass(checkpointing));
  }
  funcPm.addPass(oneflow::createOptimizerPass(options.optimizer));
  std::string strategy = options.strategy;
  if (strategy.empty() &&
      (options.devices > 1 || options.microBatches > 1 || options.stages > 1))
    strategy = "dp";
  if (strategy.empty())
    return;
  if (strategy == "auto" && options.microBatches == 1 && options.stages == 1) {
    oneflow::AutoParallelPassOptions search = options.autoParallel;
    search.devices = options.devices;
    funcPm.addPass(oneflow::createAutoParallelPass(search));
    return;
  }
  oneflow::ApplyStrategyPassOptions apply;
  apply.strategy = strategy;
  apply.devices = options.devices;
  apply.microBatches = options.microBatches;
  apply.stages = options.stages;
  apply.schedule = options.pipelineSchedule;
  funcPm.addPass(oneflow::createApplyStrategyPass(apply));
}
