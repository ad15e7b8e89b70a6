//===- of-run.cpp - Compile and run OneFlow programs ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   of-run model.plan [--steps N] [--input NAME=SOURCE]... [--trace out.json]
//   of-run model.mlir ...   (compiled through oneflow-default-pipeline)
//   of-run model.onnx ...   (imported, data parallel over the ranks)
//   of-run model.mlir --train --devices cpu:4 --strategy dp|tp|hybrid|zero|FILE
//   of-run model.plan --devices cpu:4          (4 ranks in this process)
//   of-run model.plan --nproc-per-node 4       (4 processes of of-run)
//   torchrun/mpirun/srun ... of-run model.plan --store-dir DIR | --redis H:P
//
// Compiles a model (or loads a plan) and runs it on CPU ranks through the
// actor runtime; everything after the plan exists is the runner library's
// (tools/runner, shared with of-run-plan, which links no compiler): rank 0
// prints the outputs at the last step (assembled from every rank's piece), a
// timing summary and optionally a Chrome trace of every actor firing. With
// several processes, rank 0 prints; the others stay quiet unless they fail.
//
//===----------------------------------------------------------------------===//

#include "ModelLoader.h"
#include "ofdriver/OnnxExport.h"
#include "Runner.h"
#include "TrainFlags.h"

#include "ofdriver/Checkpointing.h"

#include "absl/flags/flag.h"

#include <cstdio>

ABSL_FLAG(std::string, emit_plan, "",
          "Also write the compiled plan (binary) to this file");
ABSL_FLAG(std::string, export_onnx, "",
          "With an .onnx model: write it to this file with its initializers "
          "set to the variables' values after the run; "
          "with --steps 0 --resume CKPT, to the checkpoint's");

using ofrun::fail;

int main(int argc, char **argv) {
  std::vector<std::string> normalized;
  std::vector<oftools::FlagGroup> groups = ofrun::runFlagGroups();
  groups.insert(groups.begin() + 2, ofrun::trainingFlagGroup());
  std::vector<std::string> args = ofrun::parseFlags(
      argc, argv,
      {"of-run",
       "compile (.mlir, .onnx) or load (.plan, .plantxt) a OneFlow program "
       "and run or train it",
       "of-run MODEL.{mlir,onnx,plan,plantxt} [flags]", groups},
      normalized);
  if (args.size() != 2)
    return fail("expected exactly one model file (.mlir, .onnx, .plan or "
                ".plantxt); see --help");
  std::string model = args[1];
  absl::StatusOr<ofrun::Job> job = ofrun::jobFromFlags();
  if (!job.ok())
    return fail(std::string(job.status().message()));
  std::string exportPath = absl::GetFlag(FLAGS_export_onnx);
  bool exportOnly = absl::GetFlag(FLAGS_steps) == 0 && !exportPath.empty() &&
                    !absl::GetFlag(FLAGS_resume).empty();
  if (absl::GetFlag(FLAGS_steps) < 1 && !exportOnly)
    return fail("--steps must be at least 1 (0 only with --resume CKPT and "
                "--export-onnx OUT, to export a checkpoint's weights)");
  if (!exportPath.empty())
    if (absl::Status status = ofdriver::checkOnnxExport(model, exportPath);
        !status.ok())
      return fail(std::string(status.message()));
  auto exportTo = [&](const std::map<std::string, ofrt::TensorData> &values) {
    if (absl::Status status = ofdriver::exportOnnx(model, exportPath, values);
        !status.ok())
      return fail(std::string(status.message()));
    std::printf("exported %s\n", exportPath.c_str());
    return 0;
  };

  int wanted = job->ranks();
  absl::StatusOr<std::optional<ofdriver::TrainOptions>> train =
      ofrun::trainOptionsFromFlags(wanted);
  if (!train.ok())
    return fail(std::string(train.status().message()));
  // Whether this machine computes in --precision is a question of running:
  // with --emit-plan the plan is still written (a bf16 plan compiled on a
  // machine without bf16 runs on one with it), then the run is refused.
  absl::Status precision = absl::OkStatus();
  std::string emitPlan = absl::GetFlag(FLAGS_emit_plan);
  if (*train) {
    (*train)->device = job->device;
    ofdriver::findClusterFigures(**train, *job,
                                 absl::GetFlag(FLAGS_collectives),
                                 absl::GetFlag(FLAGS_threads),
                                 absl::GetFlag(FLAGS_recalibrate));
    precision = ofdriver::checkPrecision(**train);
    if (!precision.ok() && emitPlan.empty())
      return fail(std::string(precision.message()));
  }
  double predicted = 0;
  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofrun::loadModel(model, emitPlan, wanted, job->device,
                       *train ? &**train : nullptr, &predicted);
  if (!plan.ok())
    return fail(std::string(plan.status().message()));
  if (!precision.ok())
    return fail(std::string(precision.message()) + " (the plan is in '" +
                emitPlan + "'; it runs where the device has it)");
  if (absl::Status status = ofrun::checkPlanRanks(*plan, *job, model);
      !status.ok())
    return fail(std::string(status.message()));
  if (exportOnly) {
    // Nothing runs: the checkpoint, checked against the plan's variables,
    // goes straight into the model.
    if (job->launched && job->launched->rank != 0)
      return 0;
    absl::StatusOr<ofdriver::RunOptions> options =
        ofrun::runOptionsFromFlags();
    if (!options.ok())
      return fail(std::string(options.status().message()));
    absl::StatusOr<std::unique_ptr<ofdriver::Checkpointing>> checkpointing =
        ofdriver::Checkpointing::create(*plan, options->checkpoint,
                                        options->onNonfinite, true, true);
    if (!checkpointing.ok())
      return fail(std::string(checkpointing.status().message()));
    absl::StatusOr<std::map<std::string, ofrt::TensorData>> values =
        (*checkpointing)->resumedVariables();
    if (!values.ok())
      return fail(std::string(values.status().message()));
    return exportTo(*values);
  }
  // Launched ranks compile the model again but leave --emit_plan (written
  // above) alone, so that no two processes write one file, and measure
  // nothing again (--recalibrate).
  // They price the layout search with the figures found here, so that
  // every process compiles the same plan.
  std::vector<std::string> rest;
  if (*train && (*train)->strategy == "auto" &&
      !(*train)->autoParallel.cluster.empty())
    rest.push_back("--cluster=" + (*train)->autoParallel.cluster);
  for (size_t i = 1; i < normalized.size(); ++i) {
    if (normalized[i] == "--emit_plan") {
      ++i;
      continue;
    }
    if (normalized[i].rfind("--emit_plan=", 0) != 0 &&
        normalized[i].rfind("--recalibrate", 0) != 0)
      rest.push_back(normalized[i]);
  }
  int code = ofrun::runPlan(*job, *plan, rest,
                           exportPath.empty() ? ofrun::VariablesHook()
                                              : exportTo);
  // Next to the measured step the run printed (this process's ranks).
  if (code == 0 && predicted > 0 && !job->launches() && !job->launched)
    std::printf("layout search: predicted %.3f ms/step (the steady state "
                "above is the measured one)\n",
                predicted * 1e3);
  return code;
}
