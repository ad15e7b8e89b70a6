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
//                           rank (see ofcheck/Gradients.h)
//       --autodiff          check the program with its gradients appended
//   of-check --mode boxing --devices cpu:4 [--shape 5,6] [--cross]
//                           every pair of layouts (and of placements)
//
// Runs each multi-rank variant of a program on N ranks in this process and
// the program without layouts on one rank, and compares every output
// (ofcheck/Check.h does; this is its flag parser). Prints one line per
// failing case (every case with --verbose) and a summary; exits 1 when a
// case fails, 2 on bad input.
//
//===----------------------------------------------------------------------===//

#include "ofcheck/Check.h"
#include "ofdriver/Options.h"
#include "ofdriver/Run.h"

#include "ToolFlags.h"

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#include <cstdio>

// The defaults are the library's.
static const ofcheck::CheckOptions kCheck;

ABSL_FLAG(std::string, devices, "cpu:" + std::to_string(kCheck.ranks),
          "Ranks of the parallel runs, as cpu:N");
ABSL_FLAG(std::string, mesh, "", "Mesh of the N ranks, as 2x2 (default: N)");
ABSL_FLAG(std::string, mode, kCheck.mode,
          "given (the program's own layouts), signatures (every op in each "
          "of its nd-SBP signatures), random (random layouts on inputs and "
          "variables), boxing (every pair of layouts of one tensor) or "
          "gradients (oneflow-autodiff against finite differences)");
ABSL_FLAG(int, trials, kCheck.trials, "Random layouts to try (--mode random)");
ABSL_FLAG(uint64_t, seed, kCheck.seed, "Seed of the inputs and of random layouts");
ABSL_FLAG(std::string, shape, "5,6", "Tensor shape (--mode boxing)");
ABSL_FLAG(bool, cross, kCheck.cross, "Also box between placements (--mode boxing)");
ABSL_FLAG(bool, partial_reductions, kCheck.partialReductions,
          "Check the pairs that involve P(max) or P(min) instead (--mode "
          "boxing)");
ABSL_FLAG(int64_t, steps, kCheck.steps, "Steps of each run");
ABSL_FLAG(std::string, collectives, kCheck.collectives,
          "The collective library the ranks (threads of this process) use: "
          "inproc or gloo");
ABSL_FLAG(double, rtol, kCheck.rtol, "Relative tolerance");
ABSL_FLAG(double, atol, kCheck.atol, "Absolute tolerance");
ABSL_FLAG(bool, verbose, kCheck.verbose, "Print every case, not only failures");
ABSL_FLAG(std::string, loss, kCheck.loss,
          "Scalar output to differentiate (--mode gradients, --autodiff)");
ABSL_FLAG(bool, autodiff, kCheck.autodiff,
          "Append the gradients of --loss before checking (oneflow-autodiff)");
ABSL_FLAG(double, eps, kCheck.eps, "Perturbation of finite differences");
ABSL_FLAG(double, grad_rtol, kCheck.gradRtol, "Relative tolerance of --mode gradients");
ABSL_FLAG(double, grad_atol, kCheck.gradAtol, "Absolute tolerance of --mode gradients");

static int fail(const std::string &message) {
  std::fprintf(stderr, "of-check: error: %s\n", message.c_str());
  return 2;
}

/// The checker's options from the flags, or the message of a bad one.
static absl::StatusOr<ofcheck::CheckOptions> optionsFromFlags() {
  ofcheck::CheckOptions options;
  std::string devices = absl::GetFlag(FLAGS_devices);
  ofdriver::Job job;
  if (absl::Status parsed = ofdriver::parseDevices(devices, job); !parsed.ok())
    return parsed;
  if (job.device != "cpu")
    return absl::InvalidArgumentError(
        "--devices '" + devices +
        "': of-check runs its ranks on the CPU (cpu:N)");
  options.ranks = job.devices;
  if (std::string text = absl::GetFlag(FLAGS_mesh); !text.empty()) {
    absl::StatusOr<ofdriver::Mesh> mesh = ofdriver::parseMesh(text, job.devices);
    if (!mesh.ok())
      return mesh.status();
    std::fputs(ofdriver::meshNote(text, *mesh).c_str(), stderr);
    options.mesh = mesh->sizes;
  }
  options.mode = absl::GetFlag(FLAGS_mode);
  options.trials = absl::GetFlag(FLAGS_trials);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.cross = absl::GetFlag(FLAGS_cross);
  options.partialReductions = absl::GetFlag(FLAGS_partial_reductions);
  options.steps = absl::GetFlag(FLAGS_steps);
  options.collectives = absl::GetFlag(FLAGS_collectives);
  options.rtol = absl::GetFlag(FLAGS_rtol);
  options.atol = absl::GetFlag(FLAGS_atol);
  options.verbose = absl::GetFlag(FLAGS_verbose);
  options.loss = absl::GetFlag(FLAGS_loss);
  options.autodiff = absl::GetFlag(FLAGS_autodiff);
  options.eps = absl::GetFlag(FLAGS_eps);
  options.gradRtol = absl::GetFlag(FLAGS_grad_rtol);
  options.gradAtol = absl::GetFlag(FLAGS_grad_atol);
  if (absl::Status checked = ofcheck::checkOptions(options); !checked.ok())
    return checked;
  // The shape matters to boxing only (a model's shapes are its own).
  options.shape.clear();
  std::string shape = absl::GetFlag(FLAGS_shape);
  for (absl::string_view part : absl::StrSplit(shape, ',')) {
    int64_t size = 0;
    if (!absl::SimpleAtoi(part, &size) || size < 1) {
      if (options.mode != "boxing")
        return options;
      return absl::InvalidArgumentError("--shape '" + shape +
                                        "' is not a list of positive sizes");
    }
    options.shape.push_back(size);
  }
  return options;
}

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

  absl::StatusOr<ofcheck::CheckOptions> options = optionsFromFlags();
  if (!options.ok())
    return fail(std::string(options.status().message()));
  absl::StatusOr<ofcheck::CheckResult> result =
      ofcheck::check(args.size() > 1 ? args[1] : "", *options);
  if (!result.ok())
    return fail(std::string(result.status().message()));
  std::printf("of-check: %d cases, %d passed, %d failed",
              result->passed + result->failed, result->passed, result->failed);
  if (result->retried)
    std::printf(" (%d retried after a group failed to connect)",
                result->retried);
  std::printf("\n");
  return result->failed ? 1 : 0;
}
