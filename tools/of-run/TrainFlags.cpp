//===- TrainFlags.cpp - of-run's training flags ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// `of-run model.mlir --train [--loss NAME] [--optimizer sgd|adam|adamw]
// (or model.onnx --train --loss cross_entropy [--labels NAME])
// [--lr ...] [--strategy dp|tp|hybrid|zero|FILE]`: the flags map one to one
// to the options of oneflow-autodiff, oneflow-optimizer and
// oneflow-apply-strategy.
//
//===----------------------------------------------------------------------===//

#include "TrainFlags.h"
#include "RunFlags.h"

#include "ofdriver/Nonfinite.h"

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"

#include <algorithm>
#include <map>
#include <cstdio>

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

oftools::FlagGroup ofrun::trainingFlagGroup() {
  oftools::FlagGroup group{"Training", {"train", "labels"}};
#define OF_TRAINING_PIPELINE_OPTION(IDENT, NAME, TYPE, FIELD, HELP)
#define OF_TRAINING_OPTION(IDENT, NAME, TYPE, FIELD, HELP)                     \
  group.flags.push_back(#IDENT);
#include "OneFlowDialect/Transforms/TrainingOptions.def"
  group.flags.push_back("mesh");
  group.flags.push_back("recalibrate");
  return group;
}

/// The dashed name of flag `name` (declared with underscores) when the
/// command line gave it a value other than its default.
static std::optional<std::string> givenFlag(const char *name) {
  const absl::CommandLineFlag *flag = absl::FindCommandLineFlag(name);
  if (!flag || flag->CurrentValue() == flag->DefaultValue())
    return std::nullopt;
  std::string dashed = name;
  std::replace(dashed.begin(), dashed.end(), '_', '-');
  return dashed;
}

absl::StatusOr<std::optional<ofdriver::TrainOptions>>
ofrun::trainOptionsFromFlags(int64_t devices) {
  if (!absl::GetFlag(FLAGS_train)) {
    // Flags that only shape a training step do nothing without --train.
    static const std::map<std::string, std::string> kWhat = {
        {"strategy", "lays out a training step"},
        {"micro_batches", "splits a training step"},
        {"stages", "pipelines a training step"},
        {"recompute", "recomputes a training step's activations"}};
    for (const std::string &name : trainingFlagGroup().flags) {
      std::optional<std::string> dashed = givenFlag(name.c_str());
      if (!dashed)
        continue;
      auto what = kWhat.find(name);
      return absl::InvalidArgumentError(
          "--" + *dashed + " " +
          (what == kWhat.end() ? "sets up training" : what->second) +
          "; it needs --train");
    }
    return std::nullopt;
  }
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
  if (options.strategy != "auto") {
    for (const char *name : {"search", "mesh", "memory_limit", "cluster",
                             "recalibrate", "explain"}) {
      if (std::optional<std::string> dashed = givenFlag(name))
        return absl::InvalidArgumentError(
            "--" + *dashed +
            " sets up the layout search; it needs --strategy "
            "auto");
    }
  }
  if (std::string mesh = absl::GetFlag(FLAGS_mesh); !mesh.empty()) {
    absl::StatusOr<ofdriver::Mesh> parsed = ofdriver::parseMesh(mesh, devices);
    if (!parsed.ok())
      return parsed.status();
    std::fputs(ofdriver::meshNote(mesh, *parsed).c_str(), stderr);
    options.autoParallel.mesh.assign(parsed->sizes.begin(), parsed->sizes.end());
  }
  if (!options.autoParallel.cluster.empty() && absl::GetFlag(FLAGS_recalibrate))
    return absl::InvalidArgumentError(
        "--recalibrate measures this machine instead of reading --cluster; "
        "give one of them");
  if (absl::Status checked = ofdriver::checkTrainOptions(options);
      !checked.ok())
    return checked;
  return options;
}
