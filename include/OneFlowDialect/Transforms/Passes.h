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
  /// A training step skips the update of a step whose gradients are not
  /// finite (oneflow-optimizer alone checks nothing).
  TrainingConfig() { optimizer.nonfinite = "skip"; }

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

/// The llvm::cl modifier a training option of type T needs: the spellings
/// of an enum's values; none for the others.
struct NoOptionValues {
  template <typename Opt> void apply(Opt &) const {}
};
template <typename T> NoOptionValues trainingOptionValues(T *) { return {}; }
inline auto trainingOptionValues(BatchNormStatistics *) {
  return llvm::cl::values(
      clEnumValN(BatchNormStatistics::global, "global",
                 "over the whole batch, on every layout"),
      clEnumValN(BatchNormStatistics::local, "local",
                 "per data-parallel part of the batch"));
}

/// Options of `oneflow-training-pipeline`: a TrainingConfig in text (the
/// flags of of-run --train, dashed) and the default pipeline's regst count.
/// Generated from TrainingOptions.def, with TrainingConfig's defaults.
struct OneFlowTrainingPipelineOptions
    : public PassPipelineOptions<OneFlowTrainingPipelineOptions> {
#define OF_TRAINING_OPTION(IDENT, NAME, TYPE, FIELD, HELP)                     \
  Option<TYPE> IDENT{*this, NAME, llvm::cl::desc(HELP),                        \
                     llvm::cl::init(TrainingConfig().FIELD),                   \
                     trainingOptionValues(static_cast<TYPE *>(nullptr))};
#include "OneFlowDialect/Transforms/TrainingOptions.def"
  /// A list: declared here and in of-run's --mesh (TrainingOptions.def).
  ListOption<int64_t> mesh{
      *this, "mesh",
      llvm::cl::desc("With strategy auto: the mesh to search (default: every "
                     "mesh of one or two axes)")};
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
