//===- ModelLoader.h - Plans from .plan files or compiled .mlir -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_TOOLS_OFRUN_MODELLOADER_H
#define ONEFLOW_TOOLS_OFRUN_MODELLOADER_H

#include "ofrt/Plan.h"
#include "ofdriver/Compile.h"

namespace ofrun {

/// Loads `path`: a plan (.plan binary, .plantxt text) as it is, or a
/// `oneflow` program (.mlir) or ONNX model (.onnx, imported data-parallel
/// over `ranks` ranks) compiled through oneflow-default-pipeline for
/// `device` ("cpu" or "cuda") ranks.
/// When `emitPlan` is not empty, the compiled plan is also written there.
/// With `train`, a .mlir program or .onnx model (imported without layouts)
/// becomes a training step first (oneflow::buildOneFlowTrainingPasses); plans
/// cannot. `predictedStepSeconds` gets what the layout search predicts a
/// step takes, when it ran (compileToPlan).
absl::StatusOr<ofrt::LoadedPlan>
loadModel(const std::string &path, const std::string &emitPlan, int ranks,
          const std::string &device,
          const ofdriver::TrainOptions *train = nullptr,
          double *predictedStepSeconds = nullptr);

} // namespace ofrun

#endif // ONEFLOW_TOOLS_OFRUN_MODELLOADER_H
