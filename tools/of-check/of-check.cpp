//===- of-check.cpp - Parallel equals serial ------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   of-check model.mlir --devices cpu:4 [--mesh 2x2]
//       --mode given        the program's own layouts (default)
//       --mode signatures   every op in each of its nd-SBP signatures
//       --mode random       random layouts on inputs and variables (--trials)
//       --mode gradients    oneflow-autodiff against finite differences, one
//                           rank (see Gradients.h)
//       --autodiff          check the program with its gradients appended
//   of-check --mode boxing --devices cpu:4 [--shape 5,6] [--cross]
//                           every pair of layouts (and of placements)
//
// Runs each multi-rank variant of a program on N ranks in this process and
// the program without layouts on one rank, and compares every output. Prints
// one line per failing case (every case with --verbose) and a summary;
// exits non-zero when a case fails.
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Compile.h"
#include "ofdriver/Options.h"
#include "ofdriver/Run.h"
#include "Gradients.h"
#include "Variants.h"

#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "ofrt/MultiRank.h"
#include "ofrt/Plan.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"

#include "ToolFlags.h"

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

#include <cmath>
#include <cstdio>
#include <utility>

ABSL_FLAG(std::string, devices, "cpu:2",
          "Ranks of the parallel runs, as cpu:N");
ABSL_FLAG(std::string, mesh, "", "Mesh of the N ranks, as 2x2 (default: N)");
ABSL_FLAG(std::string, mode, "given",
          "given (the program's own layouts), signatures (every op in each "
          "of its nd-SBP signatures), random (random layouts on inputs and "
          "variables), boxing (every pair of layouts of one tensor) or "
          "gradients (oneflow-autodiff against finite differences)");
ABSL_FLAG(int, trials, 5, "Random layouts to try (--mode random)");
ABSL_FLAG(uint64_t, seed, 0, "Seed of the inputs and of random layouts");
ABSL_FLAG(std::string, shape, "5,6", "Tensor shape (--mode boxing)");
ABSL_FLAG(bool, cross, false, "Also box between placements (--mode boxing)");
ABSL_FLAG(bool, partial_reductions, false,
          "Check the pairs that involve P(max) or P(min) instead (--mode "
          "boxing)");
ABSL_FLAG(int64_t, steps, 2, "Steps of each run");
ABSL_FLAG(std::string, collectives, "inproc",
          "The collective library the ranks (threads of this process) use: "
          "inproc or gloo");
ABSL_FLAG(double, rtol, 1e-4, "Relative tolerance");
ABSL_FLAG(double, atol, 1e-5, "Absolute tolerance");
ABSL_FLAG(bool, verbose, false, "Print every case, not only failures");
ABSL_FLAG(std::string, loss, "loss",
          "Scalar output to differentiate (--mode gradients, --autodiff)");
ABSL_FLAG(bool, autodiff, false,
          "Append the gradients of --loss before checking (oneflow-autodiff)");
ABSL_FLAG(double, eps, 1e-2, "Perturbation of finite differences");
ABSL_FLAG(double, grad_rtol, 2e-2, "Relative tolerance of --mode gradients");
ABSL_FLAG(double, grad_atol, 1e-3, "Absolute tolerance of --mode gradients");

using namespace mlir;
using namespace mlir::oneflow;

namespace {

using Outputs = std::map<std::string, ofrt::TensorData>;

int fail(const std::string &message) {
  std::fprintf(stderr, "of-check: error: %s\n", message.c_str());
  return 2;
}

/// Parses "a,b,c" into positive integers.
std::optional<SmallVector<int64_t>> parseInts(const std::string &text) {
  SmallVector<int64_t> values;
  for (absl::string_view part : absl::StrSplit(text, ',')) {
    int64_t value;
    if (!absl::SimpleAtoi(part, &value) || value < 1)
      return std::nullopt;
    values.push_back(value);
  }
  return values;
}

/// Why `got` differs from `want`, or an empty string if it does not.
std::string compareOutputs(const Outputs &want, const Outputs &got) {
  double rtol = absl::GetFlag(FLAGS_rtol), atol = absl::GetFlag(FLAGS_atol);
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
absl::StatusOr<Outputs> run(ModuleOp module, const std::string &what) {
  absl::StatusOr<std::string> bytes = ofdriver::compileModule(module, what);
  if (!bytes.ok())
    return bytes.status();
  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofrt::parsePlan(*bytes, /*text=*/false, what);
  if (!plan.ok())
    return plan.status();
  ofrt::MultiRankOptions options;
  options.session.seed = absl::GetFlag(FLAGS_seed);
  options.run.maxSteps = absl::GetFlag(FLAGS_steps);
  options.timeout = std::chrono::milliseconds(20000);
  options.collectives = absl::GetFlag(FLAGS_collectives);
  absl::StatusOr<ofrt::MultiRankResult> result =
      ofrt::runAllRanks(*plan, options);
  if (!result.ok())
    return result.status();
  return std::move(result->outputs);
}

/// Counts cases and prints their outcomes.
struct Tally {
  int passed = 0, failed = 0, retried = 0;

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
    absl::StatusOr<Outputs> got = run(*variant, name);
    if (!got.ok() && got.status().message().find("joining the group failed") !=
                         std::string::npos) {
      ++retried;
      std::printf("RETRY %s: %s\n", name.c_str(),
                  std::string(got.status().message()).c_str());
      diagnostics.clear();
      got = run(*spare, name);
    }
    std::string why = !got.ok()
                          ? std::string(got.status().message()) +
                                (diagnostics.empty() ? "" : ": ") + diagnostics
                          : compareOutputs(serial, *got);
    if (why.empty()) {
      ++passed;
      if (absl::GetFlag(FLAGS_verbose))
        std::printf("PASS %s\n", name.c_str());
    } else {
      ++failed;
      std::printf("FAIL %s: %s\n", name.c_str(), why.c_str());
    }
    std::fflush(stdout);
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
  SmallVector<Operation *> ops = ofcheck::getCheckedOps(module);
  for (auto [index, op] : llvm::enumerate(ops)) {
    for (const ofcheck::NdSignature &signature :
         ofcheck::getNdSignatures(op, placement)) {
      OwningOpRef<ModuleOp> variant = module.clone();
      Operation *target = ofcheck::getCheckedOps(*variant)[index];
      ofcheck::pinSignature(*variant, placement, target, signature);
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
  for (int trial = 0; trial < absl::GetFlag(FLAGS_trials); ++trial) {
    std::mt19937_64 rng(absl::GetFlag(FLAGS_seed) * 1000003 + trial);
    OwningOpRef<ModuleOp> variant = module.clone();
    std::string layouts =
        ofcheck::randomizeSourceLayouts(*variant, placement, rng);
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
        ofcheck::buildBoxingProgram(ctx, type, GlobalAttr(), GlobalAttr());
    ofcheck::stripLayouts(*program);
    absl::StatusOr<Outputs> outputs = run(*program, "the serial program");
    if (!outputs.ok()) {
      ++tally.failed;
      std::printf("FAIL serial run: %s\n",
                  std::string(outputs.status().message()).c_str());
      return;
    }
    serial = std::move(*outputs);
  }
  bool reductions = absl::GetFlag(FLAGS_partial_reductions);
  auto checkPair = [&](GlobalAttr from, GlobalAttr to) {
    if (reductions && !ofcheck::hasMaxOrMin(from) && !ofcheck::hasMaxOrMin(to))
      return;
    tally.check(layoutString(from) + " -> " + layoutString(to),
                ofcheck::buildBoxingProgram(ctx, type, from, to), serial);
  };
  auto layouts = [&](PlacementAttr placement) {
    return ofcheck::enumerateLayouts(placement, shape, reductions);
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

int main(int argc, char **argv) {
  ofdriver::setProgramName("of-check");
  std::vector<std::string> normalized;
  std::vector<std::string> args = oftools::parseToolFlags(
      argc, argv,
      {"of-check",
       "runs multi-rank variants of a program (or of boxing between "
       "layouts) and compares every output with one rank's; --mode "
       "gradients checks oneflow-autodiff against finite differences",
       "of-check MODEL.mlir --devices cpu:N [--mesh AxB] "
       "[--mode given|signatures|random|gradients] [--autodiff]\n"
       "       of-check --mode boxing --devices cpu:N [--shape A,B] [--cross]",
       {{"What to check",
         {"mode", "autodiff", "loss", "trials", "shape", "cross",
          "partial_reductions", "seed"}},
        {"Ranks", {"devices", "mesh", "collectives", "steps"}},
        {"Tolerances", {"rtol", "atol", "eps", "grad_rtol", "grad_atol"}},
        {"Output", {"verbose"}}}},
      normalized);

  std::string devices = absl::GetFlag(FLAGS_devices);
  ofdriver::Job job;
  if (absl::Status parsed = ofdriver::parseDevices(devices, job); !parsed.ok())
    return fail(std::string(parsed.message()));
  if (job.device != "cpu")
    return fail("--devices '" + devices +
                "': of-check runs its ranks on the CPU (cpu:N)");
  int64_t numRanks = job.devices;
  SmallVector<int64_t> mesh = {numRanks};
  if (std::string text = absl::GetFlag(FLAGS_mesh); !text.empty()) {
    absl::StatusOr<ofdriver::Mesh> parsed = ofdriver::parseMesh(text, numRanks);
    if (!parsed.ok())
      return fail(std::string(parsed.status().message()));
    std::fputs(ofdriver::meshNote(text, *parsed).c_str(), stderr);
    mesh.assign(parsed->sizes.begin(), parsed->sizes.end());
  }
  std::string collectives = absl::GetFlag(FLAGS_collectives);
  if (collectives != "inproc" && collectives != "gloo")
    return fail("--collectives '" + collectives +
                "' is not inproc or gloo (of-check runs every rank in this "
                "process)");
  std::string mode = absl::GetFlag(FLAGS_mode);
  if (mode != "given" && mode != "signatures" && mode != "random" &&
      mode != "boxing" && mode != "gradients")
    return fail("--mode '" + mode +
                "' is not one of given, signatures, random, boxing, gradients");
  // Counts and tolerances that would make every case vacuous or NaN.
  if (absl::GetFlag(FLAGS_trials) < 1)
    return fail("--trials " + std::to_string(absl::GetFlag(FLAGS_trials)) +
                " is not at least 1");
  if (absl::GetFlag(FLAGS_steps) < 1)
    return fail("--steps " + std::to_string(absl::GetFlag(FLAGS_steps)) +
                " is not at least 1");
  for (auto [name, value] :
       {std::pair<const char *, double>{"rtol", absl::GetFlag(FLAGS_rtol)},
        {"atol", absl::GetFlag(FLAGS_atol)},
        {"grad-rtol", absl::GetFlag(FLAGS_grad_rtol)},
        {"grad-atol", absl::GetFlag(FLAGS_grad_atol)}})
    if (!(value >= 0) || std::isinf(value))
      return fail(absl::StrCat("--", name, " ", value,
                               " is not a finite tolerance of at least 0"));
  double eps = absl::GetFlag(FLAGS_eps);
  if (!(eps > 0) || std::isinf(eps))
    return fail(absl::StrCat("--eps ", eps,
                             " is not a positive, finite perturbation"));
  if ((mode == "boxing") != (args.size() == 1))
    return fail(mode == "boxing" ? "--mode boxing takes no model file"
                                 : "give one model file (.mlir)");

  DialectRegistry registry;
  ofdriver::registerDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  context.printOpOnDiagnostic(false);
  SmallVector<int64_t> ranks = llvm::to_vector(llvm::seq<int64_t>(0, numRanks));
  PlacementAttr placement = makePlacement(&context, ranks, mesh);
  Tally tally;

  if (mode == "boxing") {
    auto shape = parseInts(absl::GetFlag(FLAGS_shape));
    if (!shape)
      return fail("--shape '" + absl::GetFlag(FLAGS_shape) +
                  "' is not a list of positive sizes");
    SmallVector<PlacementAttr> same = {placement};
    if (mesh.size() > 1)
      same.push_back(makePlacement(&context, ranks, {numRanks}));
    SmallVector<PlacementAttr> cross;
    if (absl::GetFlag(FLAGS_cross))
      cross = crossPlacements(&context, numRanks);
    checkBoxing(&context, *shape, same, cross, tally);
  } else {
    llvm::SourceMgr sourceMgr;
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    std::string error;
    auto file = openInputFile(args[1], &error);
    if (!file)
      return fail("cannot open '" + args[1] + "': " + error);
    sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return fail("cannot parse '" + args[1] + "' (the errors above say why)");
    // The program without layouts and with inferred shapes: the serial run
    // and the start of every variant.
    OwningOpRef<ModuleOp> base = module->clone();
    ofcheck::stripLayouts(*base);
    PassManager pm(&context);
    pm.addNestedPass<func::FuncOp>(createInferShapesPass());
    if (failed(pm.run(*base)))
      return fail("cannot infer the shapes of '" + args[1] +
                  "' (the errors above say why)");
    if (mode == "gradients") {
      ofcheck::GradientCheckOptions options;
      options.loss = absl::GetFlag(FLAGS_loss);
      options.eps = absl::GetFlag(FLAGS_eps);
      options.rtol = absl::GetFlag(FLAGS_grad_rtol);
      options.atol = absl::GetFlag(FLAGS_grad_atol);
      options.verbose = absl::GetFlag(FLAGS_verbose);
      auto result = ofcheck::checkGradients(*base, options, run);
      if (!result.ok())
        return fail(std::string(result.status().message()));
      tally.passed = result->passed;
      tally.failed = result->failed;
    } else if (absl::GetFlag(FLAGS_autodiff)) {
      PassManager autodiff(&context);
      AutodiffPassOptions autodiffOptions;
      autodiffOptions.loss = absl::GetFlag(FLAGS_loss);
      autodiff.addNestedPass<func::FuncOp>(createAutodiffPass(autodiffOptions));
      if (failed(autodiff.run(*base)))
        return fail("oneflow-autodiff failed on '" + args[1] +
                    "' (the errors above say why)");
    }
    absl::StatusOr<Outputs> serial =
        mode == "gradients" ? Outputs() : run(base->clone(), args[1]);
    if (!serial.ok())
      return fail(std::string(serial.status().message()));
    if (mode == "gradients") {
      // Checked above.
    } else if (mode == "given") {
      // A program without layouts would run on one rank and pass trivially.
      bool laidOut = false;
      module->walk([&](Operation *op) {
        for (Type type : op->getResultTypes())
          if (auto tensor = dyn_cast<RankedTensorType>(type))
            laidOut |=
                isa_and_nonnull<oneflow::GlobalAttr>(tensor.getEncoding());
      });
      if (!laidOut)
        return fail("'" + args[1] +
                    "' has no layouts, so nothing would run in parallel: "
                    "give its inputs and variables #oneflow.global layouts, "
                    "or check generated ones with --mode signatures or "
                    "--mode random");
      tally.check(args[1] + " as laid out", module->clone(), *serial);
    } else {
      // Variants start from the program with inferred shapes, no layouts.
      if (mode == "signatures")
        checkSignatures(*base, placement, *serial, tally);
      else
        checkRandomLayouts(*base, placement, *serial, tally);
    }
  }
  std::printf("of-check: %d cases, %d passed, %d failed",
              tally.passed + tally.failed, tally.passed, tally.failed);
  if (tally.retried)
    std::printf(" (%d retried after a group failed to connect)", tally.retried);
  std::printf("\n");
  return tally.failed ? 1 : 0;
}
