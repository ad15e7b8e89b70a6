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

#include "Compile.h"

#include "OneFlowDialect/Target/OnnxImport.h"
#include "ofrt/KernelPlugin.h"

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "llvm/Support/SourceMgr.h"

#include <fstream>

using namespace mlir;

ABSL_DECLARE_FLAG(std::vector<std::string>, plugin);

ABSL_FLAG(std::vector<std::string>, onnx_dim, {},
          "With an .onnx model: the size of a symbolic dimension of its "
          "inputs and outputs, NAME=SIZE (a batch exported as 'N': "
          "--onnx-dim N=64); repeat or separate with commas");

/// The dialect plugins among --plugin, loaded once; each compile registers
/// their dialects and extensions (a custom op and its rules).
static absl::StatusOr<std::vector<DialectPlugin> *> dialectPlugins() {
  static std::vector<DialectPlugin> plugins;
  static bool loaded = false;
  if (loaded)
    return &plugins;
  loaded = true;
  for (const std::string &path : absl::GetFlag(FLAGS_plugin)) {
    llvm::Expected<DialectPlugin> plugin = DialectPlugin::load(path);
    if (plugin) {
      plugins.push_back(*plugin);
      continue;
    }
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
  }
  return &plugins;
}

/// Compiles `path` to a binary plan, reporting diagnostics on stderr.
static absl::StatusOr<std::string>
compile(const std::string &path, int ranks, const std::string &device,
        const oftools::TrainOptions *train, double *predictedStepSeconds) {
  DialectRegistry registry;
  oftools::registerToolDialects(registry);
  absl::StatusOr<std::vector<DialectPlugin> *> plugins = dialectPlugins();
  if (!plugins.ok())
    return plugins.status();
  for (DialectPlugin &plugin : **plugins)
    plugin.registerDialectRegistryCallbacks(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  std::string error;
  auto file = openInputFile(path, &error);
  if (!file)
    return absl::NotFoundError("cannot open model file '" + path +
                               "': " + error);
  OwningOpRef<ModuleOp> module;
  oftools::TrainOptions attached;
  if (absl::EndsWith(path, ".onnx")) {
    oneflow::OnnxImportOptions options;
    for (const std::string &spec : absl::GetFlag(FLAGS_onnx_dim))
      if (std::optional<std::string> error =
              oneflow::parseOnnxDim(spec, options.dims))
        return absl::InvalidArgumentError(*error);
    // Training lays the program out by its strategy instead.
    options.dataParallelRanks = train ? 1 : ranks;
    if (train && train->loss == "cross_entropy") {
      options.loss = train->loss;
      options.labels = train->labels;
      attached = *train;
      attached.loss = "loss"; // The output the importer adds.
      train = &attached;
    }
    module =
        oneflow::importOnnxModel(file->getBuffer(), path, &context, options);
  } else {
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  }
  if (!module)
    return absl::InvalidArgumentError(
        (absl::EndsWith(path, ".onnx") ? "cannot import '" : "cannot parse '") +
        path + "' (the errors above say why)");
  return oftools::compileToPlan(*module, path, train, device,
                                predictedStepSeconds);
}

absl::StatusOr<ofrt::LoadedPlan>
ofrun::loadModel(const std::string &path, const std::string &emitPlan,
                 int ranks, const std::string &device,
                 const oftools::TrainOptions *train,
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
  absl::StatusOr<std::string> plan =
      compile(path, ranks, device, train, predictedStepSeconds);
  if (!plan.ok())
    return plan.status();
  if (!emitPlan.empty()) {
    std::ofstream out(emitPlan, std::ios::binary | std::ios::trunc);
    if (!out || !out.write(plan->data(), plan->size()))
      return absl::NotFoundError("cannot write plan file '" + emitPlan + "'");
  }
  return ofrt::parsePlan(*plan, /*text=*/false, path);
}
