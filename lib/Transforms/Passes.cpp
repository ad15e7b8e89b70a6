//===- Passes.cpp - OneFlow pipelines -------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Pipeline registration only; each pass lives in a file of its own.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace mlir::oneflow;

void mlir::oneflow::buildOneFlowDefaultPipeline(
    OpPassManager &pm, const OneFlowPipelineOptions &options) {
  OpPassManager &funcPm = pm.nest<func::FuncOp>();
  funcPm.addPass(createInferShapesPass());
  funcPm.addPass(createFuseConvBnActPass());
  funcPm.addPass(createConvBlockedLayoutsPass());
  funcPm.addPass(createSbpPropagationPass());
  funcPm.addPass(createExpandSplitSoftmaxPass());
  funcPm.addPass(createInsertBoxingPass());
  funcPm.addPass(createLowerBoxingPass());
  funcPm.addPass(createFuseMatmulBiasPass());
  funcPm.addPass(createFoldMatmulScalePass());
  funcPm.addPass(createFuseAllReducePass());
  funcPm.addPass(createFuseNonfiniteChecksPass());
  funcPm.addPass(createAccumulateMicroBatchesPass());
  funcPm.addPass(createPackConstantWeightsPass());
  pm.addPass(createLowerToActorGraphPass(
      LowerToActorGraphPassOptions{options.regstCount, options.device}));
  pm.addNestedPass<actor::RankPlanOp>(createPlanMemoryPass());
}

void mlir::oneflow::registerOneFlowPipelines() {
  PassPipelineRegistration<OneFlowPipelineOptions>(
      "oneflow-default-pipeline",
      "From a program of oneflow ops to rank plans with planned memory: "
      "infer shapes, fuse conv2d with inference batch_norm, add and relu "
      "(blocked layouts between fused convolutions), propagate SBP, expand "
      "softmax over split classes, insert and lower boxing, fuse matmuls "
      "with their bias, fold scalars into batch_matmul, bucket small "
      "all-reduces, make the NaN checks of one layout one op, sum over "
      "micro-batches, "
      "mark constant matmul weights, lower to actors, plan memory",
      buildOneFlowDefaultPipeline);
  PassPipelineRegistration<OneFlowTrainingPipelineOptions>(
      "oneflow-training-pipeline",
      "What of-run --train compiles: infer shapes, [compute in bf16 or f16 "
      "(mixed precision),] [cut pipeline stages,] "
      "[group batch-norm statistics,] differentiate the loss, [recompute "
      "activations,] add optimizer "
      "updates and batch norm's running-statistic updates, lay the step out "
      "by a strategy or the layout search, then oneflow-default-pipeline. "
      "Options: of-run's training flags, dashed",
      buildOneFlowTrainingPipeline);
}
