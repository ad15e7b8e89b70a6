//===- Compile.cpp - Models to plans: the driver's compile half -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Compile.h"

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/Analysis/AutoParallel.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Target/OnnxImport.h"
#include "OneFlowDialect/Target/PlanExport.h"
#include "ofrt/KernelPlugin.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fstream>
#include <map>
#include <mutex>

using namespace mlir;

void ofdriver::registerDialects(DialectRegistry &registry) {
  registry.insert<oneflow::OneFlowDialect, oneflow::actor::OneFlowActorDialect,
                  func::FuncDialect>();
  oneflow::registerOneFlowExternalModels(registry);
}

absl::StatusOr<std::string>
ofdriver::compileModule(ModuleOp module, const std::string &what,
                        const TrainOptions *train, const std::string &device,
                        double *predictedStepSeconds) {
  auto failedWith = [&](const std::string &stage) {
    return absl::InvalidArgumentError("cannot " + stage + " '" + what +
                                      "' (the errors above say why)");
  };
  if (train) {
    PassManager training(module.getContext());
    oneflow::buildOneFlowTrainingPasses(training, *train);
    if (failed(training.run(module)))
      return failedWith("compile");
    module.walk([&](func::FuncOp func) {
      if (auto predicted =
              func->getAttrOfType<FloatAttr>(oneflow::kPredictedStepAttrName);
          predicted && predictedStepSeconds)
        *predictedStepSeconds = predicted.getValueAsDouble();
    });
  }
  PassManager pm(module.getContext());
  oneflow::OneFlowPipelineOptions options;
  options.device = device;
  oneflow::buildOneFlowDefaultPipeline(pm, options);
  if (failed(pm.run(module)))
    return failedWith("compile");
  std::string plan;
  llvm::raw_string_ostream os(plan);
  if (failed(oneflow::writePlan(module, os, oneflow::PlanFormat::Binary)))
    return failedWith("export a plan for");
  os.flush();
  return plan;
}

absl::StatusOr<ofdriver::TrainOptions>
ofdriver::parseTrainOptions(const std::string &text) {
  oneflow::OneFlowTrainingPipelineOptions options;
  std::string error;
  llvm::raw_string_ostream errors(error);
  if (failed(options.parseFromString(text, errors)))
    return absl::InvalidArgumentError(
        "training options '" + text + "': " +
        (errors.str().empty() ? "a value does not parse as its option's type "
                                "(LLVM's message is on stderr)"
                              : errors.str()));
  TrainOptions train;
  static_cast<mlir::oneflow::TrainingConfig &>(train) = options.config();
  return train;
}

namespace {

/// The dialect plugins among `paths`, each loaded once per process (a
/// library stays loaded); kernel plugins are the runtime's.
absl::StatusOr<std::vector<DialectPlugin>>
dialectPlugins(const std::vector<std::string> &paths) {
  static std::mutex mutex;
  static std::map<std::string, std::optional<DialectPlugin>> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  std::vector<DialectPlugin> plugins;
  for (const std::string &path : paths) {
    auto it = loaded.find(path);
    if (it == loaded.end()) {
      llvm::Expected<DialectPlugin> plugin = DialectPlugin::load(path);
      if (plugin) {
        it = loaded.emplace(path, *plugin).first;
      } else {
        std::string why = llvm::toString(plugin.takeError());
        absl::StatusOr<bool> kernels = ofrt::isKernelPlugin(path);
        if (!kernels.ok())
          return absl::InvalidArgumentError(
              "--plugin: " + std::string(kernels.status().message()));
        if (!*kernels)
          return absl::InvalidArgumentError(
              "--plugin '" + path +
              "' is neither a dialect plugin nor a kernel plugin (exports no "
              "ofrtRegisterKernels): " +
              why);
        it = loaded.emplace(path, std::nullopt).first;
      }
    }
    if (it->second)
      plugins.push_back(*it->second);
  }
  return plugins;
}

/// An error that carries the diagnostics collected, or says they were
/// printed.
absl::Status withDiagnostics(const absl::Status &status,
                             const std::string &collected) {
  if (collected.empty() || status.ok())
    return status;
  std::string message(status.message());
  std::string printed = " (the errors above say why)";
  if (message.size() >= printed.size() &&
      message.compare(message.size() - printed.size(), printed.size(),
                      printed) == 0)
    message.resize(message.size() - printed.size());
  std::string text = collected;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return absl::Status(status.code(), message + ":\n" + text);
}

} // namespace

absl::StatusOr<ofdriver::Compiled>
ofdriver::compile(const std::string &source, SourceKind kind,
                  const std::string &name, const CompileOptions &options) {
  if (options.train)
    if (absl::Status checked = checkTrainOptions(*options.train); !checked.ok())
      return checked;
  DialectRegistry registry;
  registerDialects(registry);
  absl::StatusOr<std::vector<DialectPlugin>> plugins =
      dialectPlugins(options.plugins);
  if (!plugins.ok())
    return plugins.status();
  for (DialectPlugin &plugin : *plugins)
    plugin.registerDialectRegistryCallbacks(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  std::string collected;
  llvm::raw_string_ostream collect(collected);
  SourceMgrDiagnosticHandler handler(
      sourceMgr, &context,
      options.diagnostics == Diagnostics::InStatus
          ? static_cast<llvm::raw_ostream &>(collect)
          : llvm::errs());
  OwningOpRef<ModuleOp> module;
  TrainOptions attached;
  const TrainOptions *train = options.train ? &*options.train : nullptr;
  if (kind == SourceKind::Onnx) {
    oneflow::OnnxImportOptions onnx;
    for (const std::string &spec : options.onnxDims)
      if (std::optional<std::string> error =
              oneflow::parseOnnxDim(spec, onnx.dims))
        return absl::InvalidArgumentError(*error);
    // Training lays the program out by its strategy instead.
    onnx.dataParallelRanks = train ? 1 : options.ranks;
    if (train && train->loss == "cross_entropy") {
      onnx.loss = train->loss;
      onnx.labels = train->labels;
      attached = *train;
      attached.loss = "loss"; // The output the importer adds.
      train = &attached;
    }
    module = oneflow::importOnnxModel(source, name, &context, onnx);
  } else {
    if (!options.onnxDims.empty())
      return absl::InvalidArgumentError(
          "--onnx-dim sizes a dimension of an ONNX model; '" + name +
          "' is not one");
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(source, name), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return withDiagnostics(
        absl::InvalidArgumentError(
            (kind == SourceKind::Onnx ? "cannot import '" : "cannot parse '") +
            name + "' (the errors above say why)"),
        collect.str());
  Compiled compiled;
  absl::StatusOr<std::string> plan =
      compileModule(*module, name, train, options.device,
                    &compiled.predictedStepSeconds);
  if (!plan.ok())
    return withDiagnostics(plan.status(), collect.str());
  compiled.plan = std::move(*plan);
  return compiled;
}

absl::StatusOr<ofdriver::Compiled>
ofdriver::compileFile(const std::string &path, const CompileOptions &options) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> file = openInputFile(path, &error);
  if (!file)
    return absl::NotFoundError("cannot open model file '" + path +
                               "': " + error);
  llvm::StringRef name(path);
  return compile(file->getBuffer().str(),
                 name.ends_with(".onnx") ? SourceKind::Onnx : SourceKind::Mlir,
                 path, options);
}

absl::StatusOr<ofrt::LoadedPlan>
ofdriver::loadModel(const std::string &path, const CompileOptions &options,
                    const std::string &emitPlan,
                    double *predictedStepSeconds) {
  llvm::StringRef name(path);
  if (!options.onnxDims.empty() && !name.ends_with(".onnx"))
    return absl::InvalidArgumentError(
        "--onnx-dim sizes a dimension of an ONNX model; '" + path +
        "' is not one");
  if (!name.ends_with(".mlir") && !name.ends_with(".onnx")) {
    if (options.train)
      return absl::InvalidArgumentError(
          "--train needs a .mlir or .onnx model written for one device, not "
          "the plan '" +
          path + "'");
    if (!emitPlan.empty())
      return absl::InvalidArgumentError(
          "--emit-plan needs a .mlir or .onnx model to compile");
    return ofrt::loadPlanFile(path);
  }
  absl::StatusOr<Compiled> compiled = compileFile(path, options);
  if (!compiled.ok())
    return compiled.status();
  if (predictedStepSeconds && compiled->predictedStepSeconds > 0)
    *predictedStepSeconds = compiled->predictedStepSeconds;
  if (!emitPlan.empty()) {
    std::ofstream out(emitPlan, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(compiled->plan.data(), compiled->plan.size()))
      return absl::NotFoundError("cannot write plan file '" + emitPlan + "'");
  }
  return ofrt::parsePlan(compiled->plan, /*text=*/false, path);
}

absl::StatusOr<std::string> ofdriver::runPasses(const std::string &text,
                                                const std::string &pipeline) {
  DialectRegistry registry;
  registerDialects(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  std::string collected;
  llvm::raw_string_ostream collect(collected);
  SourceMgrDiagnosticHandler handler(sourceMgr, &context, collect);
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(text, "<module>"), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return withDiagnostics(
        absl::InvalidArgumentError("cannot parse the module (the errors above "
                                   "say why)"),
        collect.str());
  static std::once_flag registered;
  std::call_once(registered, [] { oneflow::registerOneFlowPasses(); });
  std::string parseError;
  llvm::raw_string_ostream parseErrors(parseError);
  FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline, parseErrors);
  if (failed(parsed))
    return absl::InvalidArgumentError("pass pipeline '" + pipeline +
                                      "': " + parseErrors.str());
  // The pipeline names its root ("builtin.module(...)"), as of-opt's
  // --pass-pipeline does.
  if (parsed->getOpAnchorName() != ModuleOp::getOperationName())
    return absl::InvalidArgumentError(
        "pass pipeline '" + pipeline +
        "' must be anchored on builtin.module: builtin.module(...)");
  PassManager pm(&context);
  static_cast<OpPassManager &>(pm) = *parsed;
  if (failed(pm.run(*module)))
    return withDiagnostics(
        absl::InvalidArgumentError("the pipeline '" + pipeline +
                                   "' failed (the errors above say why)"),
        collect.str());
  std::string out;
  llvm::raw_string_ostream os(out);
  module->print(os);
  return os.str();
}
