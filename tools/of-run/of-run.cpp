//===- of-run.cpp - Compile and run OneFlow programs ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
//   of-run model.plan [--steps N] [--input NAME=SOURCE]... [--trace out.json]
//   of-run model.mlir ...   (compiled through oneflow-default-pipeline)
//   of-run model.onnx ...   (imported, data parallel over the ranks)
//   of-run model.mlir --train --devices cpu:4 --strategy dp|tp|hybrid|zero|FILE
//   of-run model.plan --devices cpu:4          (4 ranks in this process)
//   of-run model.plan --nproc-per-node 4       (4 processes of of-run)
//   torchrun/mpirun/srun ... of-run model.plan --store-dir DIR | --redis H:P
//
// Runs a program on CPU ranks through the actor runtime, prints its outputs
// at the last step (assembled from every rank's piece) and a timing
// summary, and optionally writes a Chrome trace of every actor firing (a
// row per rank; under a launcher, rank 0's only). With several processes,
// rank 0 prints; the others stay quiet unless they fail.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Backend.h"
#include "ofrt/MultiRank.h"
#include "ofrt/Npy.h"
#include "Checkpointing.h"
#include "Launch.h"
#include "ModelLoader.h"
#include "OnnxExport.h"
#include "Progress.h"
#include "TrainFlags.h"

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <map>
#include <thread>

ABSL_FLAG(int64_t, steps, 1, "Steps to run (each input delivers one batch per step)");
ABSL_FLAG(int, threads, 0, "Threads for each kernel (0: the library's default)");
ABSL_FLAG(std::string, devices, "cpu:1",
          "Devices to run on in this process, as cpu:COUNT (one rank each)");
ABSL_FLAG(int, nproc_per_node, 0,
          "Run this many processes of of-run on this machine, one rank each, "
          "meeting through a fresh store directory (--nproc-per-node)");
ABSL_FLAG(std::string, store_dir, "",
          "Under torchrun, mpirun or srun: an empty directory every rank "
          "sees, where ranks meet (--store-dir)");
ABSL_FLAG(std::string, redis, "",
          "Under torchrun, mpirun or srun on several machines: meet through "
          "the Redis server at HOST:PORT (keys under --job-id)");
ABSL_FLAG(std::string, job_id, "of-run",
          "Prefix of this job's keys on the Redis server (--job-id)");
ABSL_FLAG(std::string, hostname, "",
          "The address this rank listens on (default: 127.0.0.1, or this "
          "machine's hostname with --redis)");
ABSL_FLAG(std::string, collectives, "",
          "The collective library: inproc (ranks that are threads of this "
          "process; the default for --devices cpu:N), mpi (the default under "
          "mpirun), gloo (the default under other launchers; needs "
          "--store-dir or --redis)");
ABSL_FLAG(int64_t, timeout_ms, 60000,
          "How long a rank waits for its peers, in a collective or when "
          "joining a group, before it fails (--timeout-ms)");
ABSL_FLAG(std::vector<std::string>, input, {},
          "Data for an input, NAME=SOURCE with SOURCE one of random, "
          "random:LOW:HIGH, fill:VALUE, @FILE (raw little-endian batches); "
          "repeat or separate with commas");
ABSL_FLAG(uint64_t, seed, 0, "Seed of the generated inputs");
ABSL_FLAG(std::string, trace, "", "Write a Chrome trace of every actor firing to this file");
ABSL_FLAG(std::string, emit_plan, "", "Also write the compiled plan (binary) to this file");
ABSL_FLAG(int, print_limit, 8, "Elements of each output to print");
ABSL_FLAG(std::string, save_outputs, "",
          "Write each output at the last step to DIR/<name>.npy (the "
          "directory must exist)");
ABSL_FLAG(std::string, metrics, "",
          "Write one CSV row per step: time, samples/s and every scalar "
          "output rank 0 holds whole (a loss)");
ABSL_FLAG(std::string, export_onnx, "",
          "With an .onnx model: write it to this file with its initializers "
          "set to the variables' values after the run (--export-onnx); "
          "with --steps 0 --resume CKPT, to the checkpoint's");
ABSL_DECLARE_FLAG(std::string, resume);
ABSL_FLAG(std::string, progress, "auto",
          "Redraw a progress line on stderr: on, off, or auto (when stderr "
          "is a terminal)");

namespace {

std::atomic<bool> interruptRequested{false};

extern "C" void onInterrupt(int) { interruptRequested = true; }

/// Turns Ctrl-C into a step limit for the sources of this process's ranks.
class StopWatcher {
public:
  StopWatcher(const ofrun::Progress &progress,
              std::atomic<int64_t> &stepLimit, int64_t aheadBound)
      : thread([&progress, &stepLimit, aheadBound, this] {
          while (!done) {
            if (interruptRequested && !wasInterrupted) {
              wasInterrupted = true;
              stepLimit = progress.lastStep() + 1 + aheadBound;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
          }
        }) {
    std::signal(SIGINT, onInterrupt);
  }
  ~StopWatcher() { stop(); }
  void stop() {
    done = true;
    if (thread.joinable())
      thread.join();
    std::signal(SIGINT, SIG_DFL);
  }
  bool interrupted() const { return wasInterrupted; }

private:
  std::atomic<bool> done{false}, wasInterrupted{false};
  std::thread thread;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "of-run: error: %s\n", message.c_str());
  return 1;
}

void printOutput(const std::string &name, const ofrt::TensorData &t,
                 int limit) {
  if (t.bytes.empty() && t.desc.numel() != 0) {
    std::printf("%s: (never computed)\n", name.c_str());
    return;
  }
  int64_t n = t.desc.numel();
  std::printf("%s: %s = ", name.c_str(), t.desc.str().c_str());
  if (t.desc.rank() > 0)
    std::printf("[");
  for (int64_t i = 0; i < std::min<int64_t>(n, limit); ++i)
    std::printf("%s%.6g", i ? ", " : "", ofrt::loadElement(t.desc.dtype, t.bytes.data(), i));
  if (n > limit)
    std::printf(", ... (%" PRId64 " values)", n);
  if (t.desc.rank() > 0)
    std::printf("]");
  std::printf("\n");
}

void printTiming(const ofrt::RankProgram &program,
                 const ofrt::RunResult &result,
                 const std::vector<ofrt::RunResult> &ranks) {
  std::printf("ran %" PRId64 " steps in %.3f s: %.3f ms/step, %.1f steps/s\n",
              result.steps, result.seconds,
              result.steps ? 1e3 * result.seconds / result.steps : 0.0,
              result.seconds > 0 ? result.steps / result.seconds : 0.0);
  if (ranks.size() > 1) {
    std::printf("%zu ranks, ms/step:", ranks.size());
    for (size_t r = 0; r < ranks.size(); ++r)
      std::printf(" %.3f", ranks[r].steps
                                    ? 1e3 * ranks[r].seconds / ranks[r].steps
                                    : 0.0);
    std::printf("\n");
  }
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

/// Parses --devices: "cpu:N" with N >= 1.
absl::StatusOr<int> parseDevices(const std::string &devices) {
  int count = 0;
  char tail = 0;
  if (std::sscanf(devices.c_str(), "cpu:%d%c", &count, &tail) != 1 ||
      count < 1)
    return absl::InvalidArgumentError(
        "--devices '" + devices +
        "' is not cpu:COUNT with COUNT at least 1 (this runtime runs CPU "
        "ranks)");
  return count;
}

/// The store of a rank started by a launcher: the launcher's directory,
/// --store-dir or --redis; none under mpirun without them (MPI needs none).
absl::StatusOr<std::shared_ptr<ofrt::Store>>
jobStore(const ofrun::ProcessRank &me, std::string &hostname) {
  std::string redis = absl::GetFlag(FLAGS_redis);
  std::string dir = absl::GetFlag(FLAGS_store_dir);
  if (dir.empty())
    dir = me.storeDir;
  if (!redis.empty() && !dir.empty())
    return absl::InvalidArgumentError(
        "--redis and a store directory are two ways to meet; pick one");
  if (!redis.empty()) {
    size_t colon = redis.rfind(':');
    int port = 0;
    if (colon == std::string::npos || colon == 0 ||
        std::sscanf(redis.c_str() + colon + 1, "%d", &port) != 1 || port <= 0)
      return absl::InvalidArgumentError("--redis '" + redis +
                                        "' is not HOST:PORT");
    absl::StatusOr<std::shared_ptr<ofrt::Store>> store =
        ofrt::createRedisStore(redis.substr(0, colon), port);
    if (!store.ok())
      return store.status();
    if (hostname.empty()) {
      char name[256] = {0};
      gethostname(name, sizeof(name) - 1);
      hostname = name;
    }
    return ofrt::createPrefixStore(*store, absl::GetFlag(FLAGS_job_id));
  }
  if (dir.empty()) {
    std::string collectives = absl::GetFlag(FLAGS_collectives);
    if (me.launcher == "mpirun" && (collectives.empty() || collectives == "mpi"))
      return std::shared_ptr<ofrt::Store>();
    return absl::InvalidArgumentError(
        "rank " + std::to_string(me.rank) + " of " + std::to_string(me.world) +
        " (set by " + me.launcher +
        ") needs --store-dir DIR (an empty directory every rank sees) or "
        "--redis HOST:PORT to meet the other ranks");
  }
  return ofrt::createFileStore(dir);
}

} // namespace

int main(int argc, char **argv) {
  absl::SetProgramUsageMessage(
      "compile (.mlir) or load (.plan, .plantxt) a OneFlow program and run "
      "it.\nUsage: of-run MODEL [flags]");
  std::vector<std::string> normalized = ofrun::normalizeFlagNames(argc, argv);
  std::vector<char *> normalizedArgv;
  for (std::string &arg : normalized)
    normalizedArgv.push_back(arg.data());
  std::vector<char *> args =
      absl::ParseCommandLine(normalizedArgv.size(), normalizedArgv.data());
  if (args.size() != 2)
    return fail("expected exactly one model file (.mlir, .onnx, .plan or "
                ".plantxt); "
                "see --help");
  std::string model = args[1];
  absl::StatusOr<int> devices = parseDevices(absl::GetFlag(FLAGS_devices));
  if (!devices.ok())
    return fail(std::string(devices.status().message()));
  std::string exportPath = absl::GetFlag(FLAGS_export_onnx);
  bool exportOnly = absl::GetFlag(FLAGS_steps) == 0 && !exportPath.empty() &&
                    !absl::GetFlag(FLAGS_resume).empty();
  if (absl::GetFlag(FLAGS_steps) < 1 && !exportOnly)
    return fail("--steps must be at least 1 (0 only with --resume CKPT and "
                "--export-onnx OUT, to export a checkpoint's weights)");
  if (!exportPath.empty())
    if (absl::Status status = ofrun::checkOnnxExport(model, exportPath);
        !status.ok())
      return fail(std::string(status.message()));
  auto exportTo = [&](const std::map<std::string, ofrt::TensorData> &values) {
    if (absl::Status status = ofrun::exportOnnx(model, exportPath, values);
        !status.ok())
      return fail(std::string(status.message()));
    std::printf("exported %s\n", exportPath.c_str());
    return 0;
  };
  if (absl::GetFlag(FLAGS_threads) < 0)
    return fail("--threads must not be negative");
  if (absl::GetFlag(FLAGS_timeout_ms) < 1)
    return fail("--timeout-ms must be positive");
  int processes = absl::GetFlag(FLAGS_nproc_per_node);
  if (processes < 0)
    return fail("--nproc-per-node must not be negative");
  absl::StatusOr<std::optional<ofrun::ProcessRank>> launched =
      ofrun::rankFromEnvironment();
  if (!launched.ok())
    return fail(std::string(launched.status().message()));
  if (*launched && *devices != 1)
    return fail("--devices cpu:" + std::to_string(*devices) +
                " runs several ranks in one process; under a launcher each "
                "process is one rank");
  if (!*launched && processes > 0 && *devices != 1)
    return fail("--nproc-per-node and --devices cpu:N both set the ranks; "
                "pick one");
  if (!*launched && (!absl::GetFlag(FLAGS_store_dir).empty() ||
                     !absl::GetFlag(FLAGS_redis).empty()))
    return fail("--store-dir and --redis need a launcher (torchrun, mpirun, "
                "srun, --nproc-per-node) to set this process's rank");
  // Kernel threads are the CPU device's business (DeviceOptions); of-run's
  // own OpenMP use (none) is left alone.

  ofrt::MultiRankOptions options;
  options.session.seed = absl::GetFlag(FLAGS_seed);
  options.timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_timeout_ms));
  options.session.device.threads = absl::GetFlag(FLAGS_threads);
  options.collectives = absl::GetFlag(FLAGS_collectives);
  if (!options.collectives.empty() &&
      !ofrt::CollectivesRegistry::global().contains(options.collectives))
    return fail("--collectives '" + options.collectives +
                "' is not a collective library of this runtime (it has " +
                ofrt::CollectivesRegistry::global().names() + ")");
  for (const std::string &binding : absl::GetFlag(FLAGS_input)) {
    size_t eq = binding.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("--input '" + binding + "' is not NAME=SOURCE");
    absl::StatusOr<ofrt::InputSource> source =
        ofrt::parseInputSource(binding.substr(eq + 1));
    if (!source.ok())
      return fail(std::string(source.status().message()));
    options.session.inputs[binding.substr(0, eq)] = *source;
  }

  int wanted = *launched ? (*launched)->world : processes > 0 ? processes
                                                              : *devices;
  absl::StatusOr<std::optional<oftools::TrainOptions>> train =
      ofrun::trainOptionsFromFlags(wanted);
  if (!train.ok())
    return fail(std::string(train.status().message()));
  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofrun::loadModel(model, absl::GetFlag(FLAGS_emit_plan), wanted,
                       *train ? &**train : nullptr);
  if (!plan.ok())
    return fail(std::string(plan.status().message()));
  int ranks = plan->ranks.size();
  if (ranks != wanted)
    return fail("plan '" + model + "' has " + std::to_string(ranks) +
                (ranks == 1 ? " rank" : " ranks") + " but " +
                (*launched ? "the launcher started " + std::to_string(wanted) +
                                 " processes"
                 : processes > 0
                     ? "--nproc-per-node asks for " + std::to_string(wanted)
                     : "--devices asks for " + std::to_string(wanted)) +
                "; compile it for " + std::to_string(wanted) +
                (wanted == 1 ? " device" : " devices"));
  if (exportOnly) {
    // Nothing runs: the checkpoint, checked against the plan's variables,
    // goes straight into the model.
    if (*launched && (*launched)->rank != 0)
      return 0;
    absl::StatusOr<std::unique_ptr<ofrun::Checkpointing>> checkpointing =
        ofrun::Checkpointing::create(*plan, true, true);
    if (!checkpointing.ok())
      return fail(std::string(checkpointing.status().message()));
    absl::StatusOr<std::map<std::string, ofrt::TensorData>> values =
        (*checkpointing)->resumedVariables();
    if (!values.ok())
      return fail(std::string(values.status().message()));
    return exportTo(*values);
  }
  if (!*launched && processes > 1) {
    // The ranks compile the model again but leave --emit_plan (written
    // above) alone, so that no two processes write one file.
    std::vector<std::string> rest;
    for (size_t i = 1; i < normalized.size(); ++i) {
      if (normalized[i] == "--emit_plan") {
        ++i;
        continue;
      }
      if (normalized[i].rfind("--emit_plan=", 0) != 0)
        rest.push_back(normalized[i]);
    }
    return ofrun::launchProcesses(processes, rest);
  }

  absl::StatusOr<std::unique_ptr<ofrun::Checkpointing>> checkpointing =
      ofrun::Checkpointing::create(*plan, !*launched || (*launched)->world == 1,
                                   !*launched || (*launched)->rank == 0);
  if (!checkpointing.ok())
    return fail(std::string(checkpointing.status().message()));
  (*checkpointing)->configure(options);
  options.collectVariables |= !exportPath.empty();
  options.run.maxSteps = absl::GetFlag(FLAGS_steps);
  options.run.recordFirings = true;
  std::string progressMode = absl::GetFlag(FLAGS_progress);
  if (progressMode != "on" && progressMode != "off" && progressMode != "auto")
    return fail("--progress '" + progressMode + "' is not on, off or auto");
  absl::StatusOr<std::unique_ptr<ofrun::Progress>> progress =
      ofrun::Progress::create(
          plan->ranks[0], options.run.maxSteps, absl::GetFlag(FLAGS_metrics),
          progressMode == "on" || (progressMode == "auto" && isatty(2)));
  if (!progress.ok())
    return fail(std::string(progress.status().message()));
  (*progress)->setFirstStep(options.run.firstStep);
  options.session.onOutput = (*progress)->observer();
  // Ctrl-C stops every rank of this process after the same step, beyond
  // any step a source has reached (sources run at most the regsts' buffer
  // counts ahead of the outputs), then prints what the run got to.
  std::atomic<int64_t> stepLimit{std::numeric_limits<int64_t>::max()};
  int64_t aheadBound = 2;
  for (const ofrt::RegstSpec &regst : plan->ranks[0].regsts)
    aheadBound += regst.count;
  StopWatcher watcher(**progress, stepLimit, aheadBound);
  if (!*launched || (*launched)->world == 1)
    options.run.stepLimit = &stepLimit;
  absl::StatusOr<ofrt::MultiRankResult> result;
  int rank = 0;
  if (*launched && (*launched)->world > 1) {
    rank = (*launched)->rank;
    options.underMpi = (*launched)->launcher == "mpirun";
    options.hostname = absl::GetFlag(FLAGS_hostname);
    absl::StatusOr<std::shared_ptr<ofrt::Store>> store =
        jobStore(**launched, options.hostname);
    if (!store.ok())
      return fail(std::string(store.status().message()));
    if (options.hostname.empty())
      options.hostname = "127.0.0.1";
    result = ofrt::runRank(*plan, rank, *store, options);
  } else {
    result = ofrt::runAllRanks(*plan, options);
  }
  watcher.stop();
  if (!result.ok())
    return fail(std::string(result.status().message()));
  if (rank != 0)
    return 0;
  (*progress)->finish();
  if (watcher.interrupted())
    std::printf("interrupted: stopped after step %lld\n",
                static_cast<long long>(stepLimit.load()));
  if (absl::Status status = (*checkpointing)->finish(*result); !status.ok())
    return fail(std::string(status.message()));
  if (!exportPath.empty())
    if (int rc = exportTo(result->variables); rc != 0)
      return rc;

  for (const auto &[name, value] : result->outputs)
    printOutput(name, value, absl::GetFlag(FLAGS_print_limit));
  if (std::string dir = absl::GetFlag(FLAGS_save_outputs); !dir.empty())
    for (const auto &[name, value] : result->outputs)
      if (absl::Status status = ofrt::writeNpy(dir + "/" + name + ".npy", value);
          !status.ok())
        return fail(std::string(status.message()));
  printTiming(plan->ranks[0], result->ranks[0], result->ranks);
  if (!absl::GetFlag(FLAGS_trace).empty()) {
    // Every rank this process ran (all of them unless under a launcher).
    std::vector<ofrt::RankProgram> programs;
    std::vector<std::vector<ofrt::Firing>> firings;
    size_t count = 0;
    for (size_t r = 0; r < result->ranks.size(); ++r) {
      if (result->ranks[r].firings.empty() && r != 0)
        continue;
      programs.push_back(plan->ranks[r]);
      firings.push_back(result->ranks[r].firings);
      count += firings.back().size();
    }
    if (absl::Status status = ofrt::writeChromeTrace(
            programs, firings, absl::GetFlag(FLAGS_trace));
        !status.ok())
      return fail(std::string(status.message()));
    std::printf("trace: %s (%zu firings)\n", absl::GetFlag(FLAGS_trace).c_str(),
                count);
  }
  return 0;
}
