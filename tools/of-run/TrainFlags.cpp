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
#include "ofrt/Backend.h"
#include "ofrt/Calibration.h"

#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

// The defaults are the training passes' own (one place: the ODS pass
// options and TrainingConfig, which Python's oneflow_mlir.Train uses too).
static const mlir::oneflow::TrainingConfig kConfig;
static const mlir::oneflow::OptimizerPassOptions &kOptimizer = kConfig.optimizer;

ABSL_FLAG(bool, train, false,
          "Compile the .mlir model (written for one device, with a scalar "
          "loss output) into a training step: autodiff, optimizer, strategy");
ABSL_FLAG(std::string, loss, kConfig.loss,
          "With --train: the scalar loss output; for an .onnx model, "
          "cross_entropy attaches that loss to the model's output");
ABSL_FLAG(std::string, labels, ofdriver::TrainOptions().labels,
          "With --train --loss cross_entropy on an .onnx model: the name of "
          "the int64 labels input it adds (feed it with --input)");
ABSL_FLAG(std::string, optimizer, kOptimizer.kind, "With --train: sgd, adam or adamw");
ABSL_FLAG(double, lr, kOptimizer.lr, "With --train: peak learning rate");
ABSL_FLAG(double, momentum, kOptimizer.momentum, "With --train: SGD momentum");
ABSL_FLAG(bool, nesterov, kOptimizer.nesterov, "With --train: SGD with Nesterov momentum");
ABSL_FLAG(double, weight_decay, kOptimizer.weightDecay,
          "With --train: L2 penalty (sgd, adam) or decoupled decay (adamw)");
ABSL_FLAG(double, beta1, kOptimizer.beta1, "With --train: Adam beta1");
ABSL_FLAG(double, beta2, kOptimizer.beta2, "With --train: Adam beta2");
ABSL_FLAG(double, epsilon, kOptimizer.epsilon, "With --train: Adam epsilon");
ABSL_FLAG(double, clip_norm, kOptimizer.clipNorm,
          "With --train: clip the global gradient norm to this (0: off)");
ABSL_FLAG(int64_t, warmup_steps, kOptimizer.warmupSteps,
          "With --train: steps of linear learning-rate warm-up");
ABSL_FLAG(int64_t, total_steps, kOptimizer.totalSteps,
          "With --train: step at which the cosine decay reaches --min-lr "
          "(0: no decay)");
ABSL_FLAG(double, min_lr, kOptimizer.minLr,
          "With --train: learning rate at the end of the cosine decay");
ABSL_FLAG(std::string, strategy, kConfig.strategy,
          "With --train: dp, tp, hybrid, zero, auto (search the layouts, "
          "oneflow-auto-parallel) or a JSON strategy file (default: dp on "
          "several devices)");
ABSL_FLAG(std::string, search, kConfig.autoParallel.search,
          "With --strategy auto: cd (coordinate descent) or exact (an "
          "integer program; small graphs)");
ABSL_FLAG(std::string, mesh, "",
          "With --strategy auto: the mesh to search, as 2x2 (default: every "
          "mesh of one or two axes)");
ABSL_FLAG(int64_t, memory_limit, kConfig.autoParallel.memoryLimitBytes,
          "With --strategy auto: bytes per device a strategy may use (0: no "
          "limit)");
ABSL_FLAG(std::string, cluster, kConfig.autoParallel.cluster,
          "With --strategy auto: the cluster file of the cost model (JSON; "
          "default: this machine's measured figures)");
ABSL_FLAG(bool, recalibrate, false,
          "With --strategy auto and no --cluster: measure this machine's "
          "figures again instead of reading them from the cache");
ABSL_FLAG(bool, explain, kConfig.autoParallel.explain,
          "With --strategy auto: print the chosen layouts, their predicted "
          "cost and the alternatives before running");

ABSL_FLAG(int64_t, micro_batches, kConfig.microBatches,
          "With --train: run each step's batch as this many micro-batches "
          "and accumulate their gradients (the batch must divide by it)");
ABSL_FLAG(std::string, batch_norm_statistics, "global",
          "With --train: what training batch norm normalizes with: global "
          "(the whole batch's statistics, on every layout) or local (each "
          "data-parallel part of the batch its own, as PyTorch DDP; no "
          "all-to-alls)");
ABSL_FLAG(int64_t, batch_norm_groups, kConfig.batchNormGroups,
          "With --batch-norm-statistics local: the groups each batch is "
          "normalized in (0: one per data-parallel part, devices / stages * "
          "micro-batches)");
ABSL_FLAG(bool, recompute, kConfig.recompute,
          "With --train: keep only each forward segment's outputs and "
          "recompute the rest in the backward pass (activation "
          "checkpointing: less memory, more compute)");
ABSL_FLAG(std::string, precision, kConfig.precision,
          "With --train: f32, or bf16: mixed precision, matmuls, "
          "convolutions and the activations between them in bf16 with f32 "
          "accumulation; f32 master weights, optimizer states, softmax, "
          "normalization and loss (oneflow-mixed-precision)");
ABSL_FLAG(std::string, pipeline_schedule, kConfig.pipelineSchedule,
          "With --stages: 1f1b (each stage keeps about as many micro-batches "
          "alive as stages follow it) or gpipe (every micro-batch)");
ABSL_FLAG(int64_t, stages, kConfig.stages,
          "With --train: cut the model into this many pipeline stages of "
          "about equal predicted cost, each on --devices / --stages ranks "
          "(use with --micro-batches)");

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
  int64_t micro = absl::GetFlag(FLAGS_micro_batches);
  if (micro < 1)
    return absl::InvalidArgumentError(
        "--micro-batches " + std::to_string(micro) + " is not at least 1");
  int64_t stages = absl::GetFlag(FLAGS_stages);
  if (stages < 1)
    return absl::InvalidArgumentError("--stages " + std::to_string(stages) +
                                      " is not at least 1");
  if (!absl::GetFlag(FLAGS_train)) {
    // Flags that only shape a training step do nothing without --train:
    // those of the help's Training group; the ones below say more.
    static const char *const kOwnMessage[] = {
        "train", "strategy", "micro_batches", "stages", "recompute"};
    for (const oftools::FlagGroup &group : ofrun::runFlagGroups()) {
      if (group.title != "Training")
        continue;
      for (const std::string &name : group.flags) {
        if (std::find(std::begin(kOwnMessage), std::end(kOwnMessage), name) !=
            std::end(kOwnMessage))
          continue;
        if (std::optional<std::string> dashed = givenFlag(name.c_str()))
          return absl::InvalidArgumentError("--" + *dashed +
                                            " sets up training; it needs "
                                            "--train");
      }
    }
    if (!absl::GetFlag(FLAGS_strategy).empty())
      return absl::InvalidArgumentError(
          "--strategy lays out a training step; it needs --train");
    if (micro != 1)
      return absl::InvalidArgumentError(
          "--micro-batches splits a training step; it needs --train");
    if (stages != 1)
      return absl::InvalidArgumentError(
          "--stages pipelines a training step; it needs --train");
    if (absl::GetFlag(FLAGS_recompute))
      return absl::InvalidArgumentError(
          "--recompute recomputes a training step's activations; it needs "
          "--train");
    return std::nullopt;
  }
  if (devices % stages != 0)
    return absl::InvalidArgumentError(
        "--stages " + std::to_string(stages) + " does not divide the " +
        std::to_string(devices) +
        " devices into stages of equal size (each stage needs its own "
        "devices)");
  std::string schedule = absl::GetFlag(FLAGS_pipeline_schedule);
  if (schedule != "1f1b" && schedule != "gpipe")
    return absl::InvalidArgumentError("--pipeline-schedule '" + schedule +
                                      "' is not 1f1b or gpipe");
  if (schedule != "1f1b" && stages == 1)
    return absl::InvalidArgumentError(
        "--pipeline-schedule orders the micro-batches of pipeline stages; it "
        "needs --stages 2 or more");
  if (absl::GetFlag(FLAGS_labels) != "labels" &&
      absl::GetFlag(FLAGS_loss) != "cross_entropy")
    return absl::InvalidArgumentError(
        "--labels names the input that --loss cross_entropy adds to an ONNX "
        "model; it needs --loss cross_entropy");
  for (auto [name, value] :
       {std::pair<const char *, double>{"--lr", absl::GetFlag(FLAGS_lr)},
        {"--momentum", absl::GetFlag(FLAGS_momentum)},
        {"--weight-decay", absl::GetFlag(FLAGS_weight_decay)},
        {"--beta1", absl::GetFlag(FLAGS_beta1)},
        {"--beta2", absl::GetFlag(FLAGS_beta2)},
        {"--epsilon", absl::GetFlag(FLAGS_epsilon)},
        {"--clip-norm", absl::GetFlag(FLAGS_clip_norm)},
        {"--min-lr", absl::GetFlag(FLAGS_min_lr)}})
    if (!std::isfinite(value))
      return absl::InvalidArgumentError(std::string(name) + " " +
                                        std::to_string(value) +
                                        " is not a finite number");
  ofdriver::TrainOptions options;
  options.loss = absl::GetFlag(FLAGS_loss);
  options.labels = absl::GetFlag(FLAGS_labels);
  std::string kind = absl::GetFlag(FLAGS_optimizer);
  if (kind != "sgd" && kind != "adam" && kind != "adamw")
    return absl::InvalidArgumentError("--optimizer '" + kind +
                                      "' is not sgd, adam or adamw");
  mlir::oneflow::OptimizerPassOptions &optimizer = options.optimizer;
  optimizer.kind = kind;
  optimizer.lr = absl::GetFlag(FLAGS_lr);
  optimizer.momentum = absl::GetFlag(FLAGS_momentum);
  optimizer.nesterov = absl::GetFlag(FLAGS_nesterov);
  optimizer.weightDecay = absl::GetFlag(FLAGS_weight_decay);
  optimizer.beta1 = absl::GetFlag(FLAGS_beta1);
  optimizer.beta2 = absl::GetFlag(FLAGS_beta2);
  optimizer.epsilon = absl::GetFlag(FLAGS_epsilon);
  optimizer.clipNorm = absl::GetFlag(FLAGS_clip_norm);
  optimizer.warmupSteps = absl::GetFlag(FLAGS_warmup_steps);
  optimizer.totalSteps = absl::GetFlag(FLAGS_total_steps);
  optimizer.minLr = absl::GetFlag(FLAGS_min_lr);
  absl::StatusOr<ofdriver::NonfiniteAction> onNonfinite =
      ofdriver::parseNonfiniteAction(absl::GetFlag(FLAGS_on_nonfinite));
  if (!onNonfinite.ok())
    return onNonfinite.status();
  optimizer.nonfinite = ofdriver::optimizerNonfiniteMode(*onNonfinite);
  options.strategy = absl::GetFlag(FLAGS_strategy);
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
  if (options.strategy == "auto" && (micro != 1 || stages != 1))
    return absl::InvalidArgumentError(
        "--strategy auto searches the layouts of a step without "
        "--micro-batches or --stages; give a hand strategy for those");
  mlir::oneflow::AutoParallelPassOptions &search = options.autoParallel;
  search.search = absl::GetFlag(FLAGS_search);
  if (search.search != "cd" && search.search != "exact")
    return absl::InvalidArgumentError("--search '" + search.search +
                                      "' is not cd or exact");
  std::string mesh = absl::GetFlag(FLAGS_mesh);
  if (!mesh.empty()) {
    int64_t product = 1;
    for (absl::string_view part : absl::StrSplit(mesh, 'x')) {
      int64_t size = 0;
      if (!absl::SimpleAtoi(part, &size) || size < 1 || size > 4096)
        return absl::InvalidArgumentError("--mesh '" + mesh +
                                          "' is not sizes joined by x, as 2x2");
      search.mesh.push_back(size);
      product *= size;
    }
    if (product != devices)
      return absl::InvalidArgumentError(
          "--mesh " + mesh + " has " + std::to_string(product) +
          " devices but --devices gives " + std::to_string(devices));
  }
  search.memoryLimitBytes = absl::GetFlag(FLAGS_memory_limit);
  if (search.memoryLimitBytes < 0)
    return absl::InvalidArgumentError("--memory-limit " +
                                      std::to_string(search.memoryLimitBytes) +
                                      " is not at least 0");
  search.cluster = absl::GetFlag(FLAGS_cluster);
  if (!search.cluster.empty() && absl::GetFlag(FLAGS_recalibrate))
    return absl::InvalidArgumentError(
        "--recalibrate measures this machine instead of reading --cluster; "
        "give one of them");
  search.explain = absl::GetFlag(FLAGS_explain);
  options.devices = devices;
  options.microBatches = micro;
  options.stages = stages;
  options.pipelineSchedule = schedule;
  options.recompute = absl::GetFlag(FLAGS_recompute);
  options.precision = absl::GetFlag(FLAGS_precision);
  if (options.precision == "f16")
    return absl::InvalidArgumentError(
        "--precision f16 trains without loss scaling, which this build does "
        "not have (small f16 gradients flush to zero); use bf16");
  if (options.precision != "f32" && options.precision != "bf16")
    return absl::InvalidArgumentError("--precision '" + options.precision +
                                      "' is not f32 or bf16");
  std::string statistics = absl::GetFlag(FLAGS_batch_norm_statistics);
  if (statistics != "global" && statistics != "local")
    return absl::InvalidArgumentError("--batch-norm-statistics '" + statistics +
                                      "' is not global or local");
  options.batchNormStatistics =
      statistics == "local" ? mlir::oneflow::BatchNormStatistics::local
                            : mlir::oneflow::BatchNormStatistics::global;
  options.batchNormGroups = absl::GetFlag(FLAGS_batch_norm_groups);
  if (options.batchNormGroups < 0)
    return absl::InvalidArgumentError("--batch-norm-groups " +
                                      std::to_string(options.batchNormGroups) +
                                      " is negative");
  if (givenFlag("batch_norm_groups") && statistics != "local")
    return absl::InvalidArgumentError(
        "--batch-norm-groups groups local statistics; it needs "
        "--batch-norm-statistics local");
  return options;
}

absl::Status ofrun::checkPrecision(const ofdriver::TrainOptions &options) {
  if (options.precision == "f32")
    return absl::OkStatus();
  ofrt::DeviceKind kind =
      options.device == "cuda" ? ofrt::DeviceKind::Cuda : ofrt::DeviceKind::Cpu;
  absl::StatusOr<const ofrt::Backend *> backend = ofrt::findBackend(kind);
  if (!backend.ok())
    return backend.status();
  ofrt::DType dtype =
      options.precision == "bf16" ? ofrt::DType::BF16 : ofrt::DType::F16;
  if (absl::Status status = (*backend)->checkPrecision(dtype); !status.ok())
    return absl::InvalidArgumentError("--precision " + options.precision +
                                      " on " + options.device + ": " +
                                      std::string(status.message()));
  return absl::OkStatus();
}

void ofrun::findClusterFigures(ofdriver::TrainOptions &options, const Job &job) {
  std::string &cluster = options.autoParallel.cluster;
  if (options.strategy != "auto" || !cluster.empty() || job.ranks() < 2)
    return;
  // Built-in figures for `library`, when this run cannot measure its own.
  auto builtin = [&](const std::string &library, const std::string &why) {
    bool known = library == "inproc" || library == "gloo" || library == "nccl";
    std::string figures = known ? library : "gloo";
    cluster = "builtin:" + figures;
    std::fprintf(stderr,
                 "of-run: note: --strategy auto prices with built-in figures "
                 "for %s%s: %s; `of-calibrate --ranks N --library L --out "
                 "FILE` and --cluster FILE price with this machine's\n",
                 figures.c_str(),
                 known ? "" : (" (none for " + library + ")").c_str(),
                 why.c_str());
  };
  std::string library = absl::GetFlag(FLAGS_collectives);
  if (job.device != "cpu")
    return builtin(library.empty() ? "nccl" : library,
                   "measuring " + job.device + " devices is not built");
  if (library.empty()) {
    absl::StatusOr<const ofrt::Backend *> cpu =
        ofrt::findBackend(ofrt::DeviceKind::Cpu);
    bool inOneProcess = !job.launched && !job.launches();
    library =
        cpu.ok() ? (*cpu)->defaultCollectives(inOneProcess, false) : "gloo";
  }
  if (job.launched)
    return builtin(library,
                   "under a launcher every rank must price alike, and the "
                   "ranks cannot measure together before they compile");
  ofrt::CalibrationOptions calibration;
  calibration.ranks = job.ranks();
  calibration.library = library;
  calibration.threads = absl::GetFlag(FLAGS_threads);
  // A few seconds at most: three runs of each figure, 4 MiB collectives.
  calibration.repeats = 3;
  calibration.largeBytes =
      std::max<int64_t>(4 << 20, int64_t(4096) * calibration.ranks);
  absl::StatusOr<ofrt::CachedCluster> found =
      ofrt::cachedCluster(calibration, ofrt::clusterCacheDirectory(),
                          absl::GetFlag(FLAGS_recalibrate), stderr);
  if (!found.ok())
    return builtin(library, std::string(found.status().message()));
  cluster = found->path;
}
