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
// actor runtime (the driver library's compile half, ofdriver/Compile.h, then
// the runner shared with of-run-plan, which links no compiler): rank 0
// prints the outputs at the last step (assembled from every rank's piece), a
// timing summary and optionally a Chrome trace of every actor firing. With
// several processes, rank 0 prints; the others stay quiet unless they fail.
//
//===----------------------------------------------------------------------===//

#include "RunFlags.h"

#include "ofdriver/Checkpointing.h"
#include "ofdriver/Compile.h"
#include "ofdriver/Nonfinite.h"
#include "ofdriver/OnnxExport.h"

#include "absl/flags/commandlineflag.h"
#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"

#include <cstdio>

ABSL_FLAG(std::string, emit_plan, "",
          "Also write the compiled plan (binary) to this file");
ABSL_DECLARE_FLAG(std::vector<std::string>, plugin);

ABSL_FLAG(std::vector<std::string>, onnx_dim, {},
          "With an .onnx model: the size of a symbolic dimension of its "
          "inputs and outputs, NAME=SIZE (a batch exported as 'N': "
          "--onnx-dim N=64); repeat or separate with commas");
ABSL_FLAG(std::string, export_onnx, "",
          "With an .onnx model: write it to this file with its initializers "
          "set to the variables' values after the run; "
          "with --steps 0 --resume CKPT, to the checkpoint's");

//===----------------------------------------------------------------------===//
// Training flags: they map one to one to the options of oneflow-autodiff,
// oneflow-optimizer and oneflow-apply-strategy (TrainingOptions.def).
//===----------------------------------------------------------------------===//

namespace {

using mlir::oneflow::BatchNormStatistics;

/// The flag type of a training option of type T: T itself, or text for an
/// enum.
template <typename T> struct FlagOf {
  using type = T;
  static T text(T value) { return value; }
  static absl::Status read(const char *, const T &flag, T &out) {
    out = flag;
    return absl::OkStatus();
  }
};
template <> struct FlagOf<BatchNormStatistics> {
  using type = std::string;
  static std::string text(BatchNormStatistics value) {
    return value == BatchNormStatistics::local ? "local" : "global";
  }
  static absl::Status read(const char *name, const std::string &flag,
                           BatchNormStatistics &out) {
    if (flag != "global" && flag != "local")
      return absl::InvalidArgumentError(std::string("--") + name + " '" +
                                        flag + "' is not global or local");
    out = flag == "local" ? BatchNormStatistics::local
                          : BatchNormStatistics::global;
    return absl::OkStatus();
  }
};
template <typename T> using FlagType = typename FlagOf<T>::type;

} // namespace

// The training options' flags, from their one declaration; the defaults are
// TrainingConfig's (and, for the optimizer and the search, their passes').
#define OF_TRAINING_PIPELINE_OPTION(IDENT, NAME, TYPE, FIELD, HELP)
#define OF_TRAINING_OPTION(IDENT, NAME, TYPE, FIELD, HELP)                     \
  ABSL_FLAG(FlagType<TYPE>, IDENT,                                             \
            FlagOf<TYPE>::text(mlir::oneflow::TrainingConfig().FIELD), HELP);
#include "OneFlowDialect/Transforms/TrainingOptions.def"

ABSL_FLAG(bool, train, false,
          "Compile the .mlir model (written for one device, with a scalar "
          "loss output) into a training step: autodiff, optimizer, strategy; "
          "the flags of this group need it");
ABSL_FLAG(std::string, labels, ofdriver::TrainOptions().labels,
          "With --loss cross_entropy on an .onnx model: the name of the int64 "
          "labels input it adds (feed it with --input)");
// A list, as oneflow-training-pipeline's `mesh` (TrainingOptions.def).
ABSL_FLAG(std::string, mesh, "",
          "With --strategy auto: the mesh to search, as 2x2 (default: every "
          "mesh of one or two axes)");
ABSL_FLAG(bool, recalibrate, false,
          "With --strategy auto and no --cluster: measure this machine's "
          "figures again instead of reading them from the cache");

/// The --help group of the training flags (TrainingOptions.def's, with
/// --train, --labels, --mesh and --recalibrate).
static oftools::FlagGroup trainingFlagGroup() {
  oftools::FlagGroup group{"Training", {"train", "labels"}};
#define OF_TRAINING_PIPELINE_OPTION(IDENT, NAME, TYPE, FIELD, HELP)
#define OF_TRAINING_OPTION(IDENT, NAME, TYPE, FIELD, HELP)                     \
  group.flags.push_back(#IDENT);
#include "OneFlowDialect/Transforms/TrainingOptions.def"
  group.flags.push_back("mesh");
  group.flags.push_back("recalibrate");
  return group;
}

/// The training passes' options from --train, --loss, --optimizer, --lr,
/// ..., --strategy for `devices` ranks; nullopt without --train.
static absl::StatusOr<std::optional<ofdriver::TrainOptions>>
trainOptionsFromFlags(int64_t devices) {
  // The training options the command line gave (not left at defaults).
  std::vector<std::string> given;
  for (const std::string &name : trainingFlagGroup().flags) {
    const absl::CommandLineFlag *flag = absl::FindCommandLineFlag(name);
    if (name != "train" && flag && flag->CurrentValue() != flag->DefaultValue())
      given.push_back(name);
  }
  bool train = absl::GetFlag(FLAGS_train);
  if (absl::Status status = ofdriver::checkGivenTrainOptions(
          given, train, absl::GetFlag(FLAGS_strategy));
      !status.ok())
    return status;
  if (!train)
    return std::nullopt;
  ofdriver::TrainOptions options;
#define OF_TRAINING_PIPELINE_OPTION(IDENT, NAME, TYPE, FIELD, HELP)
#define OF_TRAINING_OPTION(IDENT, NAME, TYPE, FIELD, HELP)                     \
  if (absl::Status read =                                                      \
          FlagOf<TYPE>::read(NAME, absl::GetFlag(FLAGS_##IDENT),               \
                             options.FIELD);                                   \
      !read.ok())                                                              \
    return read;
#include "OneFlowDialect/Transforms/TrainingOptions.def"
  options.labels = absl::GetFlag(FLAGS_labels);
  options.devices = devices;
  absl::StatusOr<ofdriver::NonfiniteAction> onNonfinite =
      ofdriver::parseNonfiniteAction(absl::GetFlag(FLAGS_on_nonfinite));
  if (!onNonfinite.ok())
    return onNonfinite.status();
  options.optimizer.nonfinite = ofdriver::optimizerNonfiniteMode(*onNonfinite);
  if (std::string mesh = absl::GetFlag(FLAGS_mesh); !mesh.empty())
    if (absl::Status status = ofdriver::setSearchMesh(options, mesh);
        !status.ok())
      return status;
  if (absl::Status checked = ofdriver::checkTrainOptions(options);
      !checked.ok())
    return checked;
  return options;
}

using ofrun::fail;

int main(int argc, char **argv) {
  std::vector<std::string> normalized;
  std::vector<oftools::FlagGroup> groups = ofrun::runFlagGroups();
  groups.insert(groups.begin() + 2, trainingFlagGroup());
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
      trainOptionsFromFlags(wanted);
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
  ofdriver::CompileOptions compile;
  compile.ranks = wanted;
  compile.device = job->device;
  compile.train = *train;
  compile.onnxDims = absl::GetFlag(FLAGS_onnx_dim);
  compile.plugins = absl::GetFlag(FLAGS_plugin);
  double predicted = 0;
  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofdriver::loadModel(model, compile, emitPlan, &predicted);
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
    absl::StatusOr<std::map<std::string, ofrt::TensorData>> values =
        ofdriver::checkpointVariables(*plan, options->checkpoint,
                                      options->onNonfinite);
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
