//===- Compile.h - Models to plans: the driver's compile half -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A `oneflow` program (.mlir text) or an ONNX model (bytes) through the
// training passes (with `train`), oneflow-default-pipeline and plan export,
// in memory. of-run, of-check and the Python package are thin over it. The
// run half (Run.h) never includes this header: it links MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_COMPILE_H
#define OFDRIVER_COMPILE_H

#include "OneFlowDialect/Transforms/Passes.h"
#include "ofrt/Plan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include "absl/status/statusor.h"

#include <optional>
#include <string>
#include <vector>

namespace ofdriver {

struct Job;

/// The training passes' configuration and, for an ONNX model with loss
/// "cross_entropy", the labels input that the importer adds with the loss.
struct TrainOptions : mlir::oneflow::TrainingConfig {
  std::string labels = "labels";
};

/// The training options from oneflow-training-pipeline's textual options
/// ("optimizer=adamw lr=0.003 strategy=auto devices=4"): one spelling and
/// one set of defaults for the pass pipeline, of-run and Python.
absl::StatusOr<TrainOptions> parseTrainOptions(const std::string &text);

/// Checks the values of `options` (counts, names, finite numbers, and
/// options that need others); the messages name them as of-run's flags.
/// compile() checks its training options so.
absl::Status checkTrainOptions(const TrainOptions &options);

/// Checks which training options a caller set (`given`, by the names of
/// oneflow-training-pipeline's options, underscored as of-run's flags):
/// without `train`, any of them is an error, since they shape a training
/// step; with a strategy other than auto, so are the layout search's
/// ("search", "mesh", "memory_limit", "cluster", "recalibrate", "explain");
/// and "cluster" with "recalibrate".
absl::Status checkGivenTrainOptions(const std::vector<std::string> &given,
                                    bool train, const std::string &strategy);

/// Sets the mesh the layout search tries from `text` ("2x2"; the old
/// "2,2" with a note on stderr) for `options.devices` ranks.
absl::Status setSearchMesh(TrainOptions &options, const std::string &text);

/// OK unless `options` ask for a mixed precision (precision bf16) that the
/// backend of `options.device` cannot compute in on this machine.
absl::Status checkPrecision(const TrainOptions &options);

/// With strategy auto and no cluster file, sets the cluster file the
/// search prices with: this machine's figures for the job's ranks, the
/// collective `library` (empty: the backend's default) and `threads` per
/// rank, from the cache (ofrt/Calibration.h) or measured now (always with
/// `recalibrate`). Under an outside launcher (the ranks would each measure
/// alone), on a device other than the CPU, or when measuring fails, the
/// built-in figures, with a note on stderr that says why.
void findClusterFigures(TrainOptions &options, const Job &job,
                        std::string library, int threads, bool recalibrate);

/// Where diagnostics go: the tools print them on stderr as they come (and
/// the status says "the errors above say why"); a library caller gets
/// them in the status's message.
enum class Diagnostics { Stderr, InStatus };

struct CompileOptions {
  /// Ranks and their device kind ("cpu" or "cuda").
  int ranks = 1;
  std::string device = "cpu";
  /// A training step (the training passes first); else the program as is
  /// (an ONNX model data parallel over the ranks).
  std::optional<TrainOptions> train;
  /// ONNX: sizes of symbolic dimensions, NAME=SIZE.
  std::vector<std::string> onnxDims;
  /// Dialect plugins (as of-opt --load-dialect-plugin takes them); kernel
  /// plugins among them are skipped (the runtime loads those).
  std::vector<std::string> plugins;
  Diagnostics diagnostics = Diagnostics::Stderr;
};

enum class SourceKind { Mlir, Onnx };

struct Compiled {
  /// The binary plan (ofrt::parsePlan reads it).
  std::string plan;
  /// What the layout search predicts a step takes, when it ran (else 0).
  double predictedStepSeconds = 0;
};

/// The dialects a program and its plan use, with the ops' gradient and
/// cost rules (registerOneFlowExternalModels).
void registerDialects(mlir::DialectRegistry &registry);

/// Compiles `source` (named `name` in messages and locations).
absl::StatusOr<Compiled> compile(const std::string &source, SourceKind kind,
                                 const std::string &name,
                                 const CompileOptions &options);

/// Compiles the file at `path` (.mlir or .onnx).
absl::StatusOr<Compiled> compileFile(const std::string &path,
                                     const CompileOptions &options);

/// A plan from `path`: a plan file (.plan binary, .plantxt text) as it is,
/// or a .mlir program or .onnx model compiled with `options`, its plan also
/// written to `emitPlan` unless that is empty. A plan file takes no
/// training or ONNX options and is not emitted again (errors name of-run's
/// flags). `predictedStepSeconds`, if given, gets what the layout search
/// predicts a step takes, when it ran.
absl::StatusOr<ofrt::LoadedPlan>
loadModel(const std::string &path, const CompileOptions &options,
          const std::string &emitPlan = "",
          double *predictedStepSeconds = nullptr);

/// Compiles `module` in place through oneflow-default-pipeline and returns
/// the binary plan; `what` names the program in errors (the diagnostics
/// themselves go to the context's handler). With `train`, the training
/// passes (oneflow::buildOneFlowTrainingPasses) come first; when the layout
/// search ran among them, `predictedStepSeconds` (if given) gets the step
/// time it predicts (else it is left alone).
absl::StatusOr<std::string>
compileModule(mlir::ModuleOp module, const std::string &what,
              const TrainOptions *train = nullptr,
              const std::string &device = "cpu",
              double *predictedStepSeconds = nullptr);

/// Parses `text` as a module, runs the textual pass `pipeline` on it
/// ("builtin.module(oneflow-sbp-propagation)") and prints the result;
/// diagnostics are in the error's message.
absl::StatusOr<std::string> runPasses(const std::string &text,
                                      const std::string &pipeline);

} // namespace ofdriver

#endif // OFDRIVER_COMPILE_H
