//===- ModelLoader.cpp - Plans from .plan files or compiled .mlir ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The one place of-run touches the compiler: a .mlir program (or an ONNX
// model, imported first) goes through oneflow-default-pipeline and plan
// export in memory, then is loaded like any plan file. The runtime itself
// stays MLIR-free.
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"

#include <fstream>

ABSL_DECLARE_FLAG(std::vector<std::string>, plugin);

ABSL_FLAG(std::vector<std::string>, onnx_dim, {},
          "With an .onnx model: the size of a symbolic dimension of its "
          "inputs and outputs, NAME=SIZE (a batch exported as 'N': "
          "--onnx-dim N=64); repeat or separate with commas");

absl::StatusOr<ofrt::LoadedPlan>
ofrun::loadModel(const std::string &path, const std::string &emitPlan,
                 int ranks, const std::string &device,
                 const ofdriver::TrainOptions *train,
                 double *predictedStepSeconds) {
  if (!absl::GetFlag(FLAGS_onnx_dim).empty() && !absl::EndsWith(path, ".onnx"))
    return absl::InvalidArgumentError(
        "--onnx-dim sizes a dimension of an ONNX model; '" + path +
        "' is not one");
  if (!absl::EndsWith(path, ".mlir") && !absl::EndsWith(path, ".onnx")) {
    if (train)
      return absl::InvalidArgumentError(
          "--train needs a .mlir or .onnx model written for one device, not "
          "the plan '" +
          path + "'");
    if (!emitPlan.empty())
      return absl::InvalidArgumentError(
          "--emit-plan needs a .mlir or .onnx model to compile");
    return ofrt::loadPlanFile(path);
  }
  ofdriver::CompileOptions options;
  options.ranks = ranks;
  options.device = device;
  if (train)
    options.train = *train;
  options.onnxDims = absl::GetFlag(FLAGS_onnx_dim);
  options.plugins = absl::GetFlag(FLAGS_plugin);
  absl::StatusOr<ofdriver::Compiled> compiled =
      ofdriver::compileFile(path, options);
  if (!compiled.ok())
    return compiled.status();
  if (predictedStepSeconds && compiled->predictedStepSeconds > 0)
    *predictedStepSeconds = compiled->predictedStepSeconds;
  const std::string *plan = &compiled->plan;
  if (!emitPlan.empty()) {
    std::ofstream out(emitPlan, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(plan->data(), plan->size()))
      return absl::NotFoundError("cannot write plan file '" + emitPlan + "'");
  }
  return ofrt::parsePlan(*plan, /*text=*/false, path);
}
