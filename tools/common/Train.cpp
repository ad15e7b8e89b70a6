//===- Train.cpp - The training passes of of-run --train ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Train.h"

#include "OneFlowDialect/Transforms/Passes.h"

using namespace mlir;

void oftools::buildTrainingPipeline(OpPassManager &pm,
                                    const TrainOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(oneflow::createInferShapesPass());
  oneflow::AutodiffPassOptions autodiff;
  autodiff.loss = options.loss;
  funcPm.addPass(oneflow::createAutodiffPass(autodiff));
  oneflow::OptimizerPassOptions optimizer;
  optimizer.kind = options.optimizer;
  optimizer.lr = options.lr;
  optimizer.momentum = options.momentum;
  optimizer.nesterov = options.nesterov;
  optimizer.weightDecay = options.weightDecay;
  optimizer.beta1 = options.beta1;
  optimizer.beta2 = options.beta2;
  optimizer.epsilon = options.epsilon;
  optimizer.clipNorm = options.clipNorm;
  optimizer.warmupSteps = options.warmupSteps;
  optimizer.totalSteps = options.totalSteps;
  optimizer.minLr = options.minLr;
  funcPm.addPass(oneflow::createOptimizerPass(optimizer));
  std::string strategy = options.strategy;
  if (strategy.empty() && options.devices > 1)
    strategy = "dp";
  if (strategy.empty())
    return;
  oneflow::ApplyStrategyPassOptions apply;
  apply.strategy = strategy;
  apply.devices = options.devices;
  funcPm.addPass(oneflow::createApplyStrategyPass(apply));
}
