//===- Train.h - The training options of of-run --train ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What `of-run --train` compiles before oneflow-default-pipeline is
// oneflow-training-pipeline's first half (buildOneFlowTrainingPasses); the
// tools add what only ONNX import needs.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_COMMON_TRAIN_H
#define ONEFLOW_TOOLS_COMMON_TRAIN_H

#include "OneFlowDialect/Transforms/Passes.h"

#include <string>

namespace oftools {

/// The training passes' configuration and, for an ONNX model with loss
/// "cross_entropy", the labels input that the importer adds with the loss.
struct TrainOptions : mlir::oneflow::TrainingConfig {
  std::string labels = "labels";
};

} // namespace oftools

#endif // ONEFLOW_TOOLS_COMMON_TRAIN_H
