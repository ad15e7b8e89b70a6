//===- of-run.cpp - Compile and run OneFlow programs ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   of-run model.plan [--steps N] [--input NAME=SOURCE]... [--trace out.json]
//   of-run model.mlir ...   (compiled through oneflow-default-pipeline)
//
// Runs a program on CPU ranks through the actor runtime, prints its outputs
// at the last step and a timing summary, and optionally writes a Chrome
// trace of every actor firing.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/Plan.h"
#include "OneFlowDialect/Runtime/Session.h"
#include "ModelLoader.h"

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"

#include <omp.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <map>

ABSL_FLAG(int64_t, steps, 1, "Steps to run (each input delivers one batch per step)");
ABSL_FLAG(int, threads, 0, "Threads for each kernel (0: the library's default)");
ABSL_FLAG(std::string, devices, "cpu:1", "Devices to run on, as KIND:COUNT (only cpu:1 so far)");
ABSL_FLAG(std::vector<std::string>, input, {},
          "Data for an input, NAME=SOURCE with SOURCE one of random, "
          "random:LOW:HIGH, fill:VALUE, @FILE (raw little-endian batches); "
          "repeat or separate with commas");
ABSL_FLAG(uint64_t, seed, 0, "Seed of the generated inputs");
ABSL_FLAG(std::string, trace, "", "Write a Chrome trace of every actor firing to this file");
ABSL_FLAG(std::string, emit_plan, "", "Also write the compiled plan (binary) to this file");
ABSL_FLAG(int, print_limit, 8, "Elements of each output to print");

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "of-run: error: %s\n", message.c_str());
  return 1;
}

double elementAt(const ofrt::TensorData &t, int64_t i) {
  const void *p = t.bytes.data();
  switch (t.desc.dtype) {
  case ofrt::DType::F32:
    return static_cast<const float *>(p)[i];
  case ofrt::DType::F64:
    return static_cast<const double *>(p)[i];
  case ofrt::DType::I8:
    return static_cast<const int8_t *>(p)[i];
  case ofrt::DType::I32:
    return static_cast<const int32_t *>(p)[i];
  case ofrt::DType::I64:
    return static_cast<const int64_t *>(p)[i];
  case ofrt::DType::Bool:
    return static_cast<const uint8_t *>(p)[i];
  default:
    return NAN;
  }
}

void printOutput(const std::string &name, const ofrt::TensorData &t,
                 int limit) {
  if (t.bytes.empty()) {
    std::printf("%s: (never computed)\n", name.c_str());
    return;
  }
  int64_t n = t.desc.numel();
  std::printf("%s: %s = ", name.c_str(), t.desc.str().c_str());
  if (t.desc.rank() > 0)
    std::printf("[");
  for (int64_t i = 0; i < std::min<int64_t>(n, limit); ++i)
    std::printf("%s%.6g", i ? ", " : "", elementAt(t, i));
  if (n > limit)
    std::printf(", ... (%" PRId64 " values)", n);
  if (t.desc.rank() > 0)
    std::printf("]");
  std::printf("\n");
}

void printTiming(const ofrt::RankProgram &program,
                 const ofrt::RunResult &result) {
  std::printf("ran %" PRId64 " steps in %.3f s: %.3f ms/step, %.1f steps/s\n",
              result.steps, result.seconds,
              result.steps ? 1e3 * result.seconds / result.steps : 0.0,
              result.seconds > 0 ? result.steps / result.seconds : 0.0);
  if (result.firings.empty())
    return;
  // Steady state: from the end of step 0 to the end of the last step, so
  // that one-time costs (thread start-up, JIT) are left out.
  std::vector<double> stepEnd(result.steps, 0);
  for (const ofrt::Firing &f : result.firings)
    if (f.step < result.steps)
      stepEnd[f.step] = std::max(stepEnd[f.step], f.endUs);
  if (result.steps > 1)
    std::printf("steady state (steps 1-%" PRId64 "): %.3f ms/step\n",
                result.steps - 1,
                (stepEnd.back() - stepEnd.front()) / 1e3 / (result.steps - 1));
  std::map<int64_t, std::string> types;
  for (const ofrt::ActorSpec &actor : program.actors)
    types[actor.id] = actor.op.type;
  std::map<std::string, std::pair<double, int64_t>> byType;
  double total = 0;
  for (const ofrt::Firing &f : result.firings) {
    auto &entry = byType[types[f.actor]];
    entry.first += f.endUs - f.startUs;
    entry.second += 1;
    total += f.endUs - f.startUs;
  }
  std::vector<std::pair<std::string, std::pair<double, int64_t>>> rows(
      byType.begin(), byType.end());
  std::sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.first > b.second.first;
  });
  std::printf("kernel time by op (%.3f ms in all):\n", total / 1e3);
  for (const auto &[type, entry] : rows)
    std::printf("  %-36s %10.3f ms  %5.1f%%  %" PRId64 " firings\n",
                type.c_str(), entry.first / 1e3,
                total > 0 ? 100 * entry.first / total : 0.0, entry.second);
}

} // namespace

int main(int argc, char **argv) {
  absl::SetProgramUsageMessage(
      "compile (.mlir) or load (.plan, .plantxt) a OneFlow program and run "
      "it.\nUsage: of-run MODEL [flags]");
  std::vector<char *> args = absl::ParseCommandLine(argc, argv);
  if (args.size() != 2)
    return fail("expected exactly one model file (.mlir, .plan or .plantxt); "
                "see --help");
  std::string model = args[1];
  if (absl::GetFlag(FLAGS_devices) != "cpu:1")
    return fail("--devices '" + absl::GetFlag(FLAGS_devices) +
                "' is not supported yet: this runtime runs one CPU rank "
                "(cpu:1)");
  if (absl::GetFlag(FLAGS_steps) < 1)
    return fail("--steps must be at least 1");
  if (absl::GetFlag(FLAGS_threads) < 0)
    return fail("--threads must not be negative");
  if (absl::GetFlag(FLAGS_threads) > 0)
    omp_set_num_threads(absl::GetFlag(FLAGS_threads));

  ofrt::SessionOptions options;
  options.seed = absl::GetFlag(FLAGS_seed);
  for (const std::string &binding : absl::GetFlag(FLAGS_input)) {
    size_t eq = binding.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("--input '" + binding + "' is not NAME=SOURCE");
    absl::StatusOr<ofrt::InputSource> source =
        ofrt::parseInputSource(binding.substr(eq + 1));
    if (!source.ok())
      return fail(std::string(source.status().message()));
    options.inputs[binding.substr(0, eq)] = *source;
  }

  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofrun::loadModel(model, absl::GetFlag(FLAGS_emit_plan));
  if (!plan.ok())
    return fail(std::string(plan.status().message()));
  if (plan->ranks.size() != 1)
    return fail("plan '" + model + "' has " +
                std::to_string(plan->ranks.size()) +
                " ranks; this runtime runs one CPU rank");

  absl::StatusOr<std::unique_ptr<ofrt::Session>> session =
      ofrt::Session::create(std::move(plan->ranks[0]), options);
  if (!session.ok())
    return fail(std::string(session.status().message()));
  ofrt::RunOptions run;
  run.maxSteps = absl::GetFlag(FLAGS_steps);
  run.recordFirings = true;
  absl::StatusOr<ofrt::RunResult> result = (*session)->run(run);
  if (!result.ok())
    return fail(std::string(result.status().message()));

  for (const auto &[name, value] : (*session)->outputs())
    printOutput(name, value, absl::GetFlag(FLAGS_print_limit));
  printTiming((*session)->program(), *result);
  if (!absl::GetFlag(FLAGS_trace).empty()) {
    if (absl::Status status = ofrt::writeChromeTrace(
            (*session)->program(), result->firings, absl::GetFlag(FLAGS_trace));
        !status.ok())
      return fail(std::string(status.message()));
    std::printf("trace: %s (%zu firings)\n", absl::GetFlag(FLAGS_trace).c_str(),
                result->firings.size());
  }
  return 0;
}
