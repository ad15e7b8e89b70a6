//===- Passes.h - OneFlow passes --------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_PASSES_H
#define ONEFLOWDIALECT_TRANSFORMS_PASSES_H

#include "OneFlowDialect/Actor/ActorOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::oneflow {

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

#define GEN_PASS_DECL
#include "OneFlowDialect/Transforms/Passes.h.inc" // IWYU pragma: keep

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

/// Options of `oneflow-default-pipeline`.
struct OneFlowPipelineOptions
    : public PassPipelineOptions<OneFlowPipelineOptions> {
  Option<int64_t> regstCount{
      *this, "regst-count",
      llvm::cl::desc("Buffers per regst (oneflow-lower-to-actor-graph)"),
      llvm::cl::init(1)};
  Option<std::string> device{
      *this, "device",
      llvm::cl::desc("Device of ranks no placement names: cpu or cuda "
                     "(oneflow-lower-to-actor-graph)"),
      llvm::cl::init("cpu")};
};

/// From a program of `oneflow` ops to planned rank plans:
/// func.func(oneflow-infer-shapes, oneflow-fuse-conv-bn-act,
/// oneflow-conv-blocked-layouts, oneflow-sbp-propagation,
/// oneflow-expand-split-softmax, oneflow-insert-boxing, oneflow-lower-boxing,
/// oneflow-fuse-all-reduce, oneflow-fuse-nonfinite-checks,
/// oneflow-accumulate-micro-batches, oneflow-pack-constant-weights),
/// oneflow-lower-to-actor-graph, oneflow_actor.rank_plan(oneflow-plan-memory).
void buildOneFlowDefaultPipeline(OpPassManager &pm,
                                 const OneFlowPipelineOptions &options);

/// What training-mode batch norm normalizes with: the statistics of the
/// whole batch on every layout, or local ones (oneflow-local-batch-statistics
/// with one group per data-parallel part: devices / stages * micro-batches).
enum class BatchNormStatistics { global, local };

/// What turns a program written for one device, with a scalar loss output,
/// into a training step laid out on the devices; see oneflow-autodiff,
/// oneflow-optimizer, oneflow-apply-strategy and oneflow-auto-parallel for
/// the meaning of each field.
struct TrainingConfig {
  std::string loss = "loss";
  /// kind (sgd, adam, adamw), lr, momentum, ..., as the pass takes them.
  OptimizerPassOptions optimizer;
  /// dp, tp, hybrid, zero, auto or a strategy file; empty: dp on several
  /// devices (or with micro-batches or stages), the program's own layouts
  /// on one.
  std::string strategy;
  /// With strategy "auto": oneflow-auto-parallel's options (`devices` is
  /// taken from `devices`).
  AutoParallelPassOptions autoParallel;
  int64_t devices = 1;
  /// The devices' kind: "cpu" or "cuda" (the placements the strategy
  /// writes).
  std::string device = "cpu";
  /// Micro-batches per step (gradient accumulation); 1: none.
  int64_t microBatches = 1;
  /// Pipeline stages, cut by oneflow-assign-stages; 1: none.
  int64_t stages = 1;
  /// With stages: "1f1b" or "gpipe" regst counts.
  std::string pipelineSchedule = "1f1b";
  /// Recompute activations in the backward pass
  /// (oneflow-activation-checkpointing).
  bool recompute = false;
  /// "f32", or "bf16"/"f16": oneflow-mixed-precision with that dtype.
  std::string precision = "f32";
  /// Training batch norm statistics.
  BatchNormStatistics batchNormStatistics = BatchNormStatistics::global;
  /// With local statistics: the groups per batch; 0: one per data-parallel
  /// part (devices / stages * microBatches).
  int64_t batchNormGroups = 0;
};

/// Adds func.func(oneflow-infer-shapes, [oneflow-mixed-precision,]
/// [oneflow-assign-stages,]
/// [oneflow-local-batch-statistics,] oneflow-autodiff,
/// [oneflow-activation-checkpointing,] oneflow-optimizer,
/// oneflow-update-moving-statistics [, oneflow-apply-strategy or
/// oneflow-auto-parallel]) to `pm`: what of-run --train puts before
/// oneflow-default-pipeline.
void buildOneFlowTrainingPasses(OpPassManager &pm,
                                const TrainingConfig &config);

/// Options of `oneflow-training-pipeline`: a TrainingConfig in text (the
/// flags of of-run --train, dashed) and the default pipeline's regst count.
struct OneFlowTrainingPipelineOptions
    : public PassPipelineOptions<OneFlowTrainingPipelineOptions> {
  Option<std::string> loss{*this, "loss",
                           llvm::cl::desc("The scalar output to minimize"),
                           llvm::cl::init("loss")};
  Option<std::string> optimizer{*this, "optimizer",
                                llvm::cl::desc("sgd, adam or adamw"),
                                llvm::cl::init(OptimizerPassOptions().kind)};
  Option<double> lr{*this, "lr", llvm::cl::desc("Peak learning rate"),
                    llvm::cl::init(OptimizerPassOptions().lr)};
  Option<double> momentum{*this, "momentum", llvm::cl::desc("SGD momentum"),
                          llvm::cl::init(OptimizerPassOptions().momentum)};
  Option<bool> nesterov{*this, "nesterov",
                        llvm::cl::desc("SGD with Nesterov momentum"),
                        llvm::cl::init(false)};
  Option<double> weightDecay{
      *this, "weight-decay", llvm::cl::desc("Weight decay"),
      llvm::cl::init(OptimizerPassOptions().weightDecay)};
  Option<double> beta1{*this, "beta1", llvm::cl::desc("Adam beta1"),
                       llvm::cl::init(OptimizerPassOptions().beta1)};
  Option<double> beta2{*this, "beta2", llvm::cl::desc("Adam beta2"),
                       llvm::cl::init(OptimizerPassOptions().beta2)};
  Option<double> epsilon{*this, "epsilon", llvm::cl::desc("Adam epsilon"),
                         llvm::cl::init(OptimizerPassOptions().epsilon)};
  Option<double> clipNorm{*this, "clip-norm",
                          llvm::cl::desc("Global gradient-norm clipping"),
                          llvm::cl::init(OptimizerPassOptions().clipNorm)};
  Option<int64_t> warmupSteps{
      *this, "warmup-steps", llvm::cl::desc("Linear warm-up steps"),
      llvm::cl::init(OptimizerPassOptions().warmupSteps)};
  Option<int64_t> totalSteps{*this, "total-steps",
                             llvm::cl::desc("Cosine decay ends here"),
                             llvm::cl::init(OptimizerPassOptions().totalSteps)};
  Option<double> minLr{*this, "min-lr",
                       llvm::cl::desc("Learning rate at total-steps"),
                       llvm::cl::init(OptimizerPassOptions().minLr)};
  Option<std::string> nonfinite{
      *this, "nonfinite",
      llvm::cl::desc("Check the gradients for NaN and infinity: off, report "
                     "or skip (such a step updates nothing)"),
      llvm::cl::init("skip")};
  Option<std::string> strategy{
      *this, "strategy",
      llvm::cl::desc("dp, tp, hybrid, zero, auto or a strategy file")};
  Option<int64_t> devices{*this, "devices", llvm::cl::desc("Devices"),
                          llvm::cl::init(1)};
  Option<std::string> device{*this, "device",
                             llvm::cl::desc("Device kind: cpu or cuda"),
                             llvm::cl::init("cpu")};
  Option<int64_t> microBatches{*this, "micro-batches",
                               llvm::cl::desc("Micro-batches per step"),
                               llvm::cl::init(1)};
  Option<int64_t> stages{*this, "stages", llvm::cl::desc("Pipeline stages"),
                         llvm::cl::init(1)};
  Option<std::string> pipelineSchedule{*this, "pipeline-schedule",
                                       llvm::cl::desc("1f1b or gpipe"),
                                       llvm::cl::init("1f1b")};
  Option<bool> recompute{*this, "recompute",
                         llvm::cl::desc("Recompute activations"),
                         llvm::cl::init(false)};
  Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("f32, or bf16 (f16): mixed precision with f32 master "
                     "weights"),
      llvm::cl::init("f32")};
  Option<BatchNormStatistics> batchNormStatistics{
      *this, "batch-norm-statistics",
      llvm::cl::desc("Training batch norm statistics"),
      llvm::cl::init(BatchNormStatistics::global),
      llvm::cl::values(clEnumValN(BatchNormStatistics::global, "global",
                                  "over the whole batch, on every layout"),
                       clEnumValN(BatchNormStatistics::local, "local",
                                  "per data-parallel part of the batch"))};
  Option<int64_t> batchNormGroups{
      *this, "batch-norm-groups",
      llvm::cl::desc("With local statistics: groups per batch (0: one per "
                     "data-parallel part)"),
      llvm::cl::init(0)};
  Option<std::string> search{*this, "search",
                             llvm::cl::desc("With strategy=auto: cd or exact"),
                             llvm::cl::init(AutoParallelPassOptions().search)};
  ListOption<int64_t> mesh{*this, "mesh",
                           llvm::cl::desc("With strategy=auto: the mesh")};
  Option<int64_t> memoryLimit{
      *this, "memory-limit",
      llvm::cl::desc("With strategy=auto: bytes per device (0: none)"),
      llvm::cl::init(0)};
  Option<std::string> cluster{
      *this, "cluster",
      llvm::cl::desc("With strategy=auto: the cluster description file")};
  Option<bool> explain{*this, "explain",
                       llvm::cl::desc("With strategy=auto: explain the choice"),
                       llvm::cl::init(false)};
  Option<int64_t> regstCount{
      *this, "regst-count",
      llvm::cl::desc("Buffers per regst (oneflow-lower-to-actor-graph)"),
      llvm::cl::init(1)};

  /// The options as the C++ builder takes them.
  TrainingConfig config() const;
};

/// oneflow-training-pipeline: the training passes, then
/// oneflow-default-pipeline.
void buildOneFlowTrainingPipeline(
    OpPassManager &pm, const OneFlowTrainingPipelineOptions &options);

/// The axis a softmax, log_softmax or sparse_softmax_cross_entropy
/// normalizes over when its layout splits it (what
/// oneflow-expand-split-softmax expands), else nullopt.
std::optional<int64_t> getSplitSoftmaxAxis(Operation *op);

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GEN_PASS_REGISTRATION
#include "OneFlowDialect/Transforms/Passes.h.inc" // IWYU pragma: keep

/// Registers `oneflow-default-pipeline` and `oneflow-training-pipeline`.
void registerOneFlowPipelines();

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_TRANSFORMS_PASSES_H
