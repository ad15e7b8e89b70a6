//===- TrainOptions.cpp - Checking a training step's options --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The values of the training options, checked alike for of-run's flags,
// oneflow-training-pipeline's text and Python's oneflow_mlir.Train. The
// messages name the options as of-run's flags, which is what the tools
// print and what the Python exceptions carry.
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Compile.h"
#include "ofdriver/Options.h"
#include "ofdriver/Run.h"

#include "ofrt/Backend.h"
#include "ofrt/Calibration.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

using namespace ofdriver;

static absl::Status invalid(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

/// The value checks that do not depend on the optimizer, the search or
/// the precision: counts and the pipeline's schedule.
static absl::Status checkCounts(const TrainOptions &options) {
  if (options.microBatches < 1)
    return invalid("--micro-batches " + std::to_string(options.microBatches) +
                   " is not at least 1");
  if (options.stages < 1)
    return invalid("--stages " + std::to_string(options.stages) +
                   " is not at least 1");
  if (options.devices % options.stages != 0)
    return invalid("--stages " + std::to_string(options.stages) +
                   " does not divide the " + std::to_string(options.devices) +
                   " devices into stages of equal size (each stage needs its "
                   "own devices)");
  const std::string &schedule = options.pipelineSchedule;
  if (schedule != "1f1b" && schedule != "gpipe")
    return invalid("--pipeline-schedule '" + schedule +
                   "' is not 1f1b or gpipe");
  if (schedule != "1f1b" && options.stages == 1)
    return invalid("--pipeline-schedule orders the micro-batches of pipeline "
                   "stages; it needs --stages 2 or more");
  if (options.labels != TrainOptions().labels && options.loss != "cross_entropy")
    return invalid("--labels names the input that --loss cross_entropy adds "
                   "to an ONNX model; it needs --loss cross_entropy");
  return absl::OkStatus();
}

static absl::Status checkOptimizer(const TrainOptions &options) {
  const mlir::oneflow::OptimizerPassOptions &o = options.optimizer;
  for (auto [name, value] : {std::pair<const char *, double>{"--lr", o.lr},
                             {"--momentum", o.momentum},
                             {"--weight-decay", o.weightDecay},
                             {"--beta1", o.beta1},
                             {"--beta2", o.beta2},
                             {"--epsilon", o.epsilon},
                             {"--clip-norm", o.clipNorm},
                             {"--min-lr", o.minLr}})
    if (!std::isfinite(value))
      return invalid(std::string(name) + " " + std::to_string(value) +
                     " is not a finite number");
  if (o.kind != "sgd" && o.kind != "adam" && o.kind != "adamw")
    return invalid("--optimizer '" + o.kind + "' is not sgd, adam or adamw");
  if (o.nonfinite != "off" && o.nonfinite != "report" && o.nonfinite != "skip")
    return invalid("nonfinite '" + o.nonfinite +
                   "' is not off, report or skip");
  return absl::OkStatus();
}

static absl::Status checkSearch(const TrainOptions &options) {
  const mlir::oneflow::AutoParallelPassOptions &search = options.autoParallel;
  if (options.strategy == "auto" &&
      (options.microBatches != 1 || options.stages != 1))
    return invalid("--strategy auto searches the layouts of a step without "
                   "--micro-batches or --stages; give a hand strategy for "
                   "those");
  if (search.search != "cd" && search.search != "exact")
    return invalid("--search '" + search.search + "' is not cd or exact");
  if (!search.mesh.empty()) {
    int64_t product = 1;
    std::string spelled;
    for (int64_t size : search.mesh) {
      if (size < 1 || size > 4096)
        return invalid("--mesh size " + std::to_string(size) +
                       " is not between 1 and 4096");
      product *= size;
      spelled += (spelled.empty() ? "" : "x") + std::to_string(size);
    }
    if (product != options.devices)
      return invalid("--mesh " + spelled + " has " + std::to_string(product) +
                     " devices but --devices gives " +
                     std::to_string(options.devices));
  }
  if (search.memoryLimitBytes < 0)
    return invalid("--memory-limit " + std::to_string(search.memoryLimitBytes) +
                   " is not at least 0");
  return absl::OkStatus();
}

static absl::Status checkNumerics(const TrainOptions &options) {
  if (options.precision == "f16")
    return invalid("--precision f16 trains without loss scaling, which this "
                   "build does not have (small f16 gradients flush to zero); "
                   "use bf16");
  if (options.precision != "f32" && options.precision != "bf16")
    return invalid("--precision '" + options.precision +
                   "' is not f32 or bf16");
  if (options.batchNormGroups < 0)
    return invalid("--batch-norm-groups " +
                   std::to_string(options.batchNormGroups) + " is negative");
  if (options.batchNormGroups != 0 &&
      options.batchNormStatistics != mlir::oneflow::BatchNormStatistics::local)
    return invalid("--batch-norm-groups groups local statistics; it needs "
                   "--batch-norm-statistics local");
  return absl::OkStatus();
}

absl::Status ofdriver::checkTrainOptions(const TrainOptions &options) {
  for (auto check : {checkCounts, checkOptimizer, checkSearch, checkNumerics})
    if (absl::Status status = check(options); !status.ok())
      return status;
  return absl::OkStatus();
}

absl::Status ofdriver::checkGivenTrainOptions(
    const std::vector<std::string> &given, bool train,
    const std::string &strategy) {
  auto dashed = [](std::string name) {
    std::replace(name.begin(), name.end(), '_', '-');
    return "--" + name;
  };
  if (!train && !given.empty()) {
    // Flags that only shape a training step do nothing without --train.
    static const std::map<std::string, std::string> kWhat = {
        {"strategy", "lays out a training step"},
        {"micro_batches", "splits a training step"},
        {"stages", "pipelines a training step"},
        {"recompute", "recomputes a training step's activations"}};
    auto what = kWhat.find(given.front());
    return invalid(dashed(given.front()) + " " +
                   (what == kWhat.end() ? "sets up training" : what->second) +
                   "; it needs --train");
  }
  auto has = [&](const char *name) {
    return std::find(given.begin(), given.end(), name) != given.end();
  };
  if (strategy != "auto")
    for (const char *name : {"search", "mesh", "memory_limit", "cluster",
                             "recalibrate", "explain"})
      if (has(name))
        return invalid(dashed(name) + " sets up the layout search; it needs "
                                      "--strategy auto");
  if (has("cluster") && has("recalibrate"))
    return invalid("--recalibrate measures this machine instead of reading "
                   "--cluster; give one of them");
  return absl::OkStatus();
}

absl::Status ofdriver::setSearchMesh(TrainOptions &options,
                                     const std::string &text) {
  absl::StatusOr<Mesh> parsed = parseMesh(text, options.devices);
  if (!parsed.ok())
    return parsed.status();
  std::fputs(meshNote(text, *parsed).c_str(), stderr);
  options.autoParallel.mesh.assign(parsed->sizes.begin(), parsed->sizes.end());
  return absl::OkStatus();
}

absl::Status ofdriver::checkPrecision(const TrainOptions &options) {
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

void ofdriver::findClusterFigures(TrainOptions &options, const Job &job,
                                  std::string library, int threads,
                                  bool recalibrate) {
  std::string &cluster = options.autoParallel.cluster;
  if (options.strategy != "auto" || !cluster.empty() || job.ranks() < 2)
    return;
  // Built-in figures for `library`, when this run cannot measure its own.
  auto builtin = [&](const std::string &library, const std::string &why) {
    bool known = library == "inproc" || library == "gloo" || library == "nccl";
    std::string figures = known ? library : "gloo";
    cluster = "builtin:" + figures;
    std::fprintf(stderr,
                 "%s: note: --strategy auto prices with built-in figures "
                 "for %s%s: %s; `of-calibrate --ranks N --library L --out "
                 "FILE` and --cluster FILE price with this machine's\n",
                 programName(), figures.c_str(),
                 known ? "" : (" (none for " + library + ")").c_str(),
                 why.c_str());
  };
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
  calibration.threads = threads;
  // A few seconds at most: three runs of each figure, 4 MiB collectives.
  calibration.repeats = 3;
  calibration.largeBytes =
      std::max<int64_t>(4 << 20, int64_t(4096) * calibration.ranks);
  absl::StatusOr<ofrt::CachedCluster> found =
      ofrt::cachedCluster(calibration, ofrt::clusterCacheDirectory(),
                          recalibrate, stderr, programName());
  if (!found.ok())
    return builtin(library, std::string(found.status().message()));
  cluster = found->path;
}
