//===- Check.cpp - Parallel equals serial ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Runs each multi-rank variant of a program on N ranks in this process and
// the program without layouts on one rank, and compares every output
// (ofcheck/Check.h); of-check is a flag parser over it.
//
//===----------------------------------------------------------------------===//

#include "ofcheck/Check.h"
#include "ofcheck/Gradients.h"
#include "ofcheck/Variants.h"

#include "ofdriver/Compile.h"
#include "ofrt/MultiRank.h"
#include "ofrt/Plan.h"

#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include "absl/strings/str_cat.h"

#include <cmath>
#include <cstdio>
#include <utility>

using namespace mlir;
using namespace mlir::oneflow;
using namespace ofcheck;

namespace {

/// Why `got` differs from `want`, or an empty string if it does not.
std::string compareOutputs(const Outputs &want, const Outputs &got,
                           double rtol, double atol) {
  for (const auto &[name, expected] : want) {
    auto it = got.find(name);
    if (it == got.end())
      return "output '" + name + "' is missing";
    const ofrt::TensorData &actual = it->second;
    if (actual.desc.shape != expected.desc.shape ||
        actual.desc.dtype != expected.desc.dtype)
      return "output '" + name + "' is " + actual.desc.str() + ", not " +
             expected.desc.str();
    for (int64_t i = 0, n = expected.desc.numel(); i < n; ++i) {
      double a = ofrt::loadElement(actual.desc.dtype, actual.bytes.data(), i),
             e = ofrt::loadElement(expected.desc.dtype, expected.bytes.data(),
                                   i);
      if (!(std::fabs(a - e) <= atol + rtol * std::fabs(e)))
        return "output '" + name + "' element " + std::to_string(i) + " is " +
               std::to_string(a) + ", serial gives " + std::to_string(e);
    }
  }
  return "";
}

/// Compiles and runs `module` (consumed) on all of its ranks.
absl::StatusOr<Outputs> run(ModuleOp module, const std::string &what,
                            const CheckOptions &check) {
  absl::StatusOr<std::string> bytes = ofdriver::compileModule(module, what);
  if (!bytes.ok())
    return bytes.status();
  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofrt::parsePlan(*bytes, /*text=*/false, what);
  if (!plan.ok())
    return plan.status();
  ofrt::MultiRankOptions options;
  options.session.seed = check.seed;
  options.run.maxSteps = check.steps;
  options.timeout = std::chrono::milliseconds(20000);
  options.collectives = check.collectives;
  absl::StatusOr<ofrt::MultiRankResult> result =
      ofrt::runAllRanks(*plan, options);
  if (!result.ok())
    return result.status();
  return std::move(result->outputs);
}

/// Counts cases and prints their outcomes.
struct Tally : CheckResult {
  const CheckOptions &options;

  explicit Tally(const CheckOptions &options) : options(options) {}

  /// Runs `variant` and compares it with `serial`; diagnostics of the
  /// compile are captured into the failure message.
  void check(const std::string &name, OwningOpRef<ModuleOp> variant,
             const Outputs &serial) {
    std::string diagnostics;
    ScopedDiagnosticHandler handler(variant->getContext(), [&](Diagnostic &d) {
      diagnostics += (diagnostics.empty() ? "" : "; ") + d.str();
      return success();
    });
    // A group that fails to connect (seen once in ~1,000 cases on a loaded
    // machine: "Connection closed by peer") is retried once, and counted.
    OwningOpRef<ModuleOp> spare = variant->clone();
    absl::StatusOr<Outputs> got = run(*variant, name, options);
    if (!got.ok() && got.status().message().find("joining the group failed") !=
                         std::string::npos) {
      ++retried;
      std::fprintf(options.report, "RETRY %s: %s\n", name.c_str(),
                  std::string(got.status().message()).c_str());
      diagnostics.clear();
      got = run(*spare, name, options);
    }
    std::string why = !got.ok()
                          ? std::string(got.status().message()) +
                                (diagnostics.empty() ? "" : ": ") + diagnostics
                          : compareOutputs(serial, *got, options.rtol, options.atol);
    if (why.empty()) {
      ++passed;
      if (options.verbose)
        std::fprintf(options.report, "PASS %s\n", name.c_str());
    } else {
      ++failed;
      std::fprintf(options.report, "FAIL %s: %s\n", name.c_str(), why.c_str());
    }
    std::fflush(options.report);
  }
};

std::string locationOf(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto file = op->getLoc()->findInstanceOf<FileLineColLoc>())
    os << file.getFilename().getValue() << ":" << file.getLine();
  else
    op->getLoc().print(os);
  return s;
}

std::string meshString(PlacementAttr placement) {
  std::string s;
  for (auto [i, size] : llvm::enumerate(placement.getMesh()))
    s += (i ? "x" : "") + std::to_string(size);
  return s;
}

PlacementAttr makePlacement(MLIRContext *ctx, ArrayRef<int64_t> ranks,
                            ArrayRef<int64_t> mesh) {
  return PlacementAttr::get(ctx, DeviceKind::cpu, ranks, mesh);
}

/// Each op of `module` in each of its signatures.
void checkSignatures(ModuleOp module, PlacementAttr placement,
                     const Outputs &serial, Tally &tally) {
  SmallVector<Operation *> ops = getCheckedOps(module);
  for (auto [index, op] : llvm::enumerate(ops)) {
    for (const NdSignature &signature :
         getNdSignatures(op, placement)) {
      OwningOpRef<ModuleOp> variant = module.clone();
      Operation *target = getCheckedOps(*variant)[index];
      pinSignature(*variant, placement, target, signature);
      std::string name = op->getName().getStringRef().str() + " at " +
                         locationOf(op) + " on " + meshString(placement) +
                         ": " + signature.str();
      tally.check(name, std::move(variant), serial);
    }
  }
}

} // namespace

namespace {

/// Random layouts on the sources, the rest propagated.
void checkRandomLayouts(ModuleOp module, PlacementAttr placement,
                        const Outputs &serial, Tally &tally) {
  for (int trial = 0; trial < tally.options.trials; ++trial) {
    std::mt19937_64 rng(tally.options.seed * 1000003 + trial);
    OwningOpRef<ModuleOp> variant = module.clone();
    std::string layouts =
        randomizeSourceLayouts(*variant, placement, rng);
    tally.check("trial " + std::to_string(trial) + " on " +
                    meshString(placement) + " (" + layouts + ")",
                std::move(variant), serial);
  }
}

std::string layoutString(GlobalAttr global) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "ranks [";
  llvm::interleaveComma(global.getPlacement().getRanks(), os);
  os << "] " << global.getNdSbp();
  return s;
}

/// Placements of up to `n` ranks for transfers: all, the first and the
/// second half (disjoint stages), all but the last.
SmallVector<PlacementAttr> crossPlacements(MLIRContext *ctx, int64_t n) {
  SmallVector<int64_t> all = llvm::to_vector(llvm::seq<int64_t>(0, n));
  SmallVector<SmallVector<int64_t>> sets = {all};
  sets.push_back(SmallVector<int64_t>(all.begin(), all.begin() + n / 2));
  sets.push_back(SmallVector<int64_t>(all.begin() + n / 2, all.end()));
  if (n > 2)
    sets.push_back(SmallVector<int64_t>(all.begin(), all.end() - 1));
  SmallVector<PlacementAttr> placements;
  for (ArrayRef<int64_t> ranks : sets)
    if (!ranks.empty())
      placements.push_back(
          makePlacement(ctx, ranks, {static_cast<int64_t>(ranks.size())}));
  return placements;
}

/// Every pair of layouts on each placement of `same`, and with `cross`
/// every pair between different placements of `cross`.
void checkBoxing(MLIRContext *ctx, ArrayRef<int64_t> shape,
                 ArrayRef<PlacementAttr> same, ArrayRef<PlacementAttr> cross,
                 Tally &tally) {
  auto type = RankedTensorType::get(shape, Float32Type::get(ctx));
  Outputs serial;
  {
    OwningOpRef<ModuleOp> program =
        buildBoxingProgram(ctx, type, GlobalAttr(), GlobalAttr());
    stripLayouts(*program);
    absl::StatusOr<Outputs> outputs = run(*program, "the serial program", tally.options);
    if (!outputs.ok()) {
      ++tally.failed;
      std::fprintf(tally.options.report, "FAIL serial run: %s\n",
                  std::string(outputs.status().message()).c_str());
      return;
    }
    serial = std::move(*outputs);
  }
  bool reductions = tally.options.partialReductions;
  auto checkPair = [&](GlobalAttr from, GlobalAttr to) {
    if (reductions && !hasMaxOrMin(from) && !hasMaxOrMin(to))
      return;
    tally.check(layoutString(from) + " -> " + layoutString(to),
                buildBoxingProgram(ctx, type, from, to), serial);
  };
  auto layouts = [&](PlacementAttr placement) {
    return enumerateLayouts(placement, shape, reductions);
  };
  for (PlacementAttr placement : same)
    for (GlobalAttr from : layouts(placement))
      for (GlobalAttr to : layouts(placement))
        checkPair(from, to);
  for (PlacementAttr src : cross)
    for (PlacementAttr dst : cross)
      if (src != dst)
        for (GlobalAttr from : layouts(src))
          for (GlobalAttr to : layouts(dst))
            checkPair(from, to);
}

} // namespace

absl::Status ofcheck::checkOptions(const CheckOptions &options) {
  auto invalid = [](const std::string &message) {
    return absl::InvalidArgumentError(message);
  };
  const std::string &mode = options.mode;
  if (mode != "given" && mode != "signatures" && mode != "random" &&
      mode != "boxing" && mode != "gradients")
    return invalid("--mode '" + mode +
                   "' is not one of given, signatures, random, boxing, "
                   "gradients");
  if (options.collectives != "inproc" && options.collectives != "gloo")
    return invalid("--collectives '" + options.collectives +
                   "' is not inproc or gloo (of-check runs every rank in "
                   "this process)");
  // Counts and tolerances that would make every case vacuous or NaN.
  if (options.ranks < 1)
    return invalid("--devices asks for " + std::to_string(options.ranks) +
                   " ranks");
  if (options.trials < 1)
    return invalid("--trials " + std::to_string(options.trials) +
                   " is not at least 1");
  if (options.steps < 1)
    return invalid("--steps " + std::to_string(options.steps) +
                   " is not at least 1");
  for (auto [name, value] : {std::pair<const char *, double>{"rtol",
                                                             options.rtol},
                             {"atol", options.atol},
                             {"grad-rtol", options.gradRtol},
                             {"grad-atol", options.gradAtol}})
    if (!(value >= 0) || std::isinf(value))
      return invalid(absl::StrCat("--", name, " ", value,
                                  " is not a finite tolerance of at least 0"));
  if (!(options.eps > 0) || std::isinf(options.eps))
    return invalid(absl::StrCat("--eps ", options.eps,
                                " is not a positive, finite perturbation"));
  int64_t product = 1;
  for (int64_t size : options.mesh)
    product *= size;
  if (!options.mesh.empty() && product != options.ranks)
    return invalid("--mesh has " + std::to_string(product) +
                   " devices but --devices gives " +
                   std::to_string(options.ranks));
  for (int64_t size : options.shape)
    if (size < 1)
      return invalid("--shape size " + std::to_string(size) +
                     " is not at least 1");
  return absl::OkStatus();
}

namespace {

/// Every pair of layouts of a tensor of `options.shape`: on the mesh's
/// placement (and the ranks as one axis), and with `cross` between
/// placements.
void checkBoxingMode(MLIRContext *context, PlacementAttr placement,
                     Tally &tally) {
  const CheckOptions &options = tally.options;
  SmallVector<int64_t> ranks =
      llvm::to_vector(llvm::seq<int64_t>(0, options.ranks));
  SmallVector<PlacementAttr> same = {placement};
  if (placement.getMesh().size() > 1)
    same.push_back(makePlacement(context, ranks, {options.ranks}));
  SmallVector<PlacementAttr> cross;
  if (options.cross)
    cross = crossPlacements(context, options.ranks);
  SmallVector<int64_t> shape(options.shape.begin(), options.shape.end());
  checkBoxing(context, shape, same, cross, tally);
}

/// The program at `path`, without layouts and with inferred shapes (the
/// serial run and the start of every variant), and as written.
absl::StatusOr<std::pair<OwningOpRef<ModuleOp>, OwningOpRef<ModuleOp>>>
loadProgram(MLIRContext *context, llvm::SourceMgr &sourceMgr,
            const std::string &path) {
  std::string error;
  auto file = openInputFile(path, &error);
  if (!file)
    return absl::NotFoundError("cannot open '" + path + "': " + error);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, context);
  if (!module)
    return absl::InvalidArgumentError("cannot parse '" + path +
                                      "' (the errors above say why)");
  OwningOpRef<ModuleOp> base = module->clone();
  stripLayouts(*base);
  PassManager pm(context);
  pm.addNestedPass<func::FuncOp>(createInferShapesPass());
  if (failed(pm.run(*base)))
    return absl::InvalidArgumentError("cannot infer the shapes of '" + path +
                                      "' (the errors above say why)");
  return std::make_pair(std::move(base), std::move(module));
}

/// Whether some result of `module` has a layout.
bool isLaidOut(ModuleOp module) {
  bool laidOut = false;
  module->walk([&](Operation *op) {
    for (Type type : op->getResultTypes())
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        laidOut |= isa_and_nonnull<oneflow::GlobalAttr>(tensor.getEncoding());
  });
  return laidOut;
}

/// The checks of a program: gradients, its own layouts, or variants.
absl::Status checkProgram(MLIRContext *context, PlacementAttr placement,
                          const std::string &path, Tally &tally) {
  const CheckOptions &options = tally.options;
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler handler(sourceMgr, context);
  auto loaded = loadProgram(context, sourceMgr, path);
  if (!loaded.ok())
    return loaded.status();
  auto &[base, module] = *loaded;
  RunFn runOne = [&](ModuleOp variant, const std::string &what) {
    return run(variant, what, options);
  };
  if (options.mode == "gradients") {
    GradientCheckOptions gradients;
    gradients.loss = options.loss;
    gradients.eps = options.eps;
    gradients.rtol = options.gradRtol;
    gradients.atol = options.gradAtol;
    gradients.verbose = options.verbose;
    auto result = checkGradients(*base, gradients, runOne);
    if (!result.ok())
      return result.status();
    tally.passed = result->passed;
    tally.failed = result->failed;
    return absl::OkStatus();
  }
  if (options.autodiff) {
    PassManager autodiff(context);
    AutodiffPassOptions autodiffOptions;
    autodiffOptions.loss = options.loss;
    autodiff.addNestedPass<func::FuncOp>(createAutodiffPass(autodiffOptions));
    if (failed(autodiff.run(*base)))
      return absl::InvalidArgumentError("oneflow-autodiff failed on '" + path +
                                        "' (the errors above say why)");
  }
  absl::StatusOr<Outputs> serial = run(base->clone(), path, options);
  if (!serial.ok())
    return serial.status();
  if (options.mode == "given") {
    // A program without layouts would run on one rank and pass trivially.
    if (!isLaidOut(*module))
      return absl::InvalidArgumentError(
          "'" + path +
          "' has no layouts, so nothing would run in parallel: give its "
          "inputs and variables #oneflow.global layouts, or check generated "
          "ones with --mode signatures or --mode random");
    tally.check(path + " as laid out", module->clone(), *serial);
  } else if (options.mode == "signatures") {
    checkSignatures(*base, placement, *serial, tally);
  } else {
    checkRandomLayouts(*base, placement, *serial, tally);
  }
  return absl::OkStatus();
}

} // namespace

absl::StatusOr<CheckResult> ofcheck::check(const std::string &path,
                                           const CheckOptions &options) {
  if (absl::Status checked = checkOptions(options); !checked.ok())
    return checked;
  if ((options.mode == "boxing") != path.empty())
    return absl::InvalidArgumentError(options.mode == "boxing"
                                          ? "--mode boxing takes no model file"
                                          : "give one model file (.mlir)");
  DialectRegistry registry;
  ofdriver::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  SmallVector<int64_t> ranks =
      llvm::to_vector(llvm::seq<int64_t>(0, options.ranks));
  SmallVector<int64_t> mesh(options.mesh.begin(), options.mesh.end());
  if (mesh.empty())
    mesh = {options.ranks};
  PlacementAttr placement = makePlacement(&context, ranks, mesh);
  Tally tally(options);
  if (options.mode == "boxing")
    checkBoxingMode(&context, placement, tally);
  else if (absl::Status status =
               checkProgram(&context, placement, path, tally);
           !status.ok())
    return status;
  return static_cast<CheckResult>(tally);
}
