//===- Train.h - The training passes of of-run --train ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What `of-run --train` puts before oneflow-default-pipeline: a program
// written for one device with a scalar loss output becomes a training step
// (oneflow-autodiff, oneflow-optimizer) laid out on the devices by a
// strategy (oneflow-apply-strategy).
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_COMMON_TRAIN_H
#define ONEFLOW_TOOLS_COMMON_TRAIN_H

#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <string>

namespace oftools {

/// The options of the training passes; see oneflow-autodiff,
/// oneflow-optimizer and oneflow-apply-strategy for their meaning.
struct TrainOptions {
  std::string loss = "loss";
  /// For an ONNX model with loss "cross_entropy": the labels input that the
  /// importer adds with the loss.
  std::string labels = "labels";
  /// kind (sgd, adam, adamw), lr, momentum, ..., as the pass takes them.
  mlir::oneflow::OptimizerPassOptions optimizer;
  /// dp, tp, hybrid, zero, auto or a strategy file; empty: dp on several
  /// devices, the program's own layouts on one.
  std::string strategy;
  /// With strategy "auto": oneflow-auto-parallel's options (`devices` is
  /// taken from `devices`).
  mlir::oneflow::AutoParallelPassOptions autoParallel;
  int64_t devices = 1;
  /// Micro-batches per step (gradient accumulation); 1: none.
  int64_t microBatches = 1;
  /// Pipeline stages, cut by oneflow-assign-stages; 1: none.
  int64_t stages = 1;
  /// With stages: "1f1b" or "gpipe" regst counts.
  std::string pipelineSchedule = "1f1b";
  /// Recompute activations in the backward pass
  /// (oneflow-activation-checkpointing).
  bool recompute = false;
};

/// Adds func.func(oneflow-infer-shapes, [oneflow-assign-stages,]
/// oneflow-autodiff, [oneflow-activation-checkpointing,] oneflow-optimizer
/// [, oneflow-apply-strategy or oneflow-auto-parallel]) to `pm`.
void buildTrainingPipeline(mlir::OpPassManager &pm,
                           const TrainOptions &options);

} // namespace oftools

#endif // ONEFLOW_TOOLS_COMMON_TRAIN_H
