//===- Runner.cpp - Running a plan as the flags say -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "Checkpointing.h"
#include "Interrupt.h"
#include "Nonfinite.h"
#include "Progress.h"

#include "ofrt/Backend.h"
#include "ofrt/Npy.h"

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/strip.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>
#include <thread>
#include <tuple>

using namespace ofrun;

namespace {

void printOutput(const std::string &name, const ofrt::TensorData &t,
                 int limit) {
  if (t.bytes.empty() && t.desc.numel() != 0) {
    std::printf("%s: (never computed)\n", name.c_str());
    return;
  }
  int64_t n = t.desc.numel();
  if (limit == 0) { // Only what it is.
    std::printf("%s: %s\n", name.c_str(), t.desc.str().c_str());
    return;
  }
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
  if (!absl::GetFlag(FLAGS_profile))
    return;
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

/// For a pipeline (transfers that run per micro-batch): the share of each
/// steady-state step that each rank's compute stream is idle. A rank's
/// step lasts from the end of its previous step to the end of its own (its
/// last firing; the next step's inputs are read while a step runs, so a
/// step's first-to-last span overlaps its predecessor's). Each rank's own
/// clock is enough, so ranks in other processes (which report their steps'
/// loads to rank 0) count too.
void printBubbles(const std::vector<ofrt::RankProgram> &programs,
                  const std::vector<ofrt::RunResult> &ranks) {
  bool pipelined = false;
  for (const ofrt::RankProgram &program : programs)
    for (const ofrt::ActorSpec &actor : program.actors)
      pipelined |=
          actor.op.role == ofrt::OpRole::Transfer && actor.firingsPerStep > 1;
  if (!pipelined || ranks.size() != programs.size())
    return;
  size_t steps = ranks[0].stepLoads.size();
  for (const ofrt::RunResult &rank : ranks)
    steps = std::min(steps, rank.stepLoads.size());
  if (steps < 3)
    return;
  std::printf("pipeline bubble (idle share of the compute stream, steps "
              "1-%zu), per rank:",
              steps - 2);
  for (const ofrt::RunResult &rank : ranks) {
    double idle = 0;
    for (size_t s = 1; s + 1 < steps; ++s) {
      double span = rank.stepLoads[s].endUs - rank.stepLoads[s - 1].endUs;
      idle += 1 - rank.stepLoads[s].computeUs / std::max(span, 1e-9);
    }
    std::printf(" %.3f", idle / (steps - 2));
  }
  std::printf("\n");
}

/// Parses --devices: "cpu:N" with 1 <= N <= kMaxDevices, or "cuda:1" when
/// this runtime has the CUDA backend, into the job.
absl::Status parseDevices(const std::string &devices, Job &job) {
  constexpr int64_t kMaxDevices = 4096;
  absl::string_view count = devices;
  int64_t n = 0;
  std::string kind = absl::ConsumePrefix(&count, "cuda:") ? "cuda" : "cpu";
  if ((kind == "cpu" && !absl::ConsumePrefix(&count, "cpu:")) ||
      !absl::SimpleAtoi(count, &n) || count.empty() ||
      !absl::ascii_isdigit(count[0]))
    return absl::InvalidArgumentError("--devices '" + devices +
                                      "' is not cpu:COUNT or cuda:COUNT");
  if (n < 1 || n > kMaxDevices)
    return absl::InvalidArgumentError(
        "--devices '" + devices + "' asks for " + std::string(count) +
        " ranks; one process runs 1 to " + std::to_string(kMaxDevices));
  if (kind == "cuda") {
    if (!ofrt::findBackend(ofrt::DeviceKind::Cuda).ok())
      return absl::InvalidArgumentError(
          "--devices '" + devices +
          "': this of-run was built without the CUDA backend (no CUDA "
          "toolkit was found when it was built)");
    if (n != 1)
      return absl::InvalidArgumentError(
          "--devices '" + devices +
          "': ranks on several GPUs need NCCL collectives, which this "
          "runtime does not have yet; use cuda:1");
  }
  job.devices = static_cast<int>(n);
  job.device = kind;
  return absl::OkStatus();
}

/// An error unless `path` (when set) can be written: an existing directory
/// for `isDirectory`, else a file in an existing directory.
absl::Status checkWritable(const char *flag, const std::string &path,
                           bool isDirectory) {
  if (path.empty())
    return absl::OkStatus();
  std::error_code error;
  std::filesystem::path target(path);
  if (isDirectory) {
    if (!std::filesystem::is_directory(target, error))
      return absl::InvalidArgumentError(std::string(flag) + " '" + path +
                                        "' is not an existing directory");
  } else {
    if (std::filesystem::is_directory(target, error))
      return absl::InvalidArgumentError(std::string(flag) + " '" + path +
                                        "' is a directory; it needs a file");
    if (std::filesystem::exists(target, error)) {
      if (access(path.c_str(), W_OK) != 0)
        return absl::InvalidArgumentError(
            std::string(flag) + " '" + path +
            "' cannot be written: " + std::strerror(errno));
      return absl::OkStatus();
    }
    target = target.parent_path();
    if (target.empty())
      target = ".";
    if (!std::filesystem::is_directory(target, error))
      return absl::InvalidArgumentError(std::string(flag) + " '" + path +
                                        "': the directory '" + target.string() +
                                        "' does not exist");
  }
  if (access(target.c_str(), W_OK) != 0)
    return absl::InvalidArgumentError(
        std::string(flag) + " '" + path +
        "' cannot be written: " + std::strerror(errno));
  return absl::OkStatus();
}

/// The store of a rank started by a launcher: the launcher's directory,
/// --store-dir or --redis; none under mpirun without them (MPI needs none).
absl::StatusOr<std::shared_ptr<ofrt::Store>>
jobStore(const ProcessRank &me, std::string &hostname) {
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

absl::StatusOr<Job> ofrun::jobFromFlags() {
  Job job;
  if (absl::Status status = parseDevices(absl::GetFlag(FLAGS_devices), job);
      !status.ok())
    return status;
  if (absl::GetFlag(FLAGS_threads) < 0)
    return absl::InvalidArgumentError("--threads must not be negative");
  if (absl::GetFlag(FLAGS_log_every) < 0)
    return absl::InvalidArgumentError("--log-every must not be negative");
  if (absl::GetFlag(FLAGS_print_limit) < 0)
    return absl::InvalidArgumentError(
        "--print-limit " + std::to_string(absl::GetFlag(FLAGS_print_limit)) +
        " is negative (0 prints only each output's type)");
  // Files written after the run are checked before it, so that a long run
  // does not end in an error about a path.
  for (auto [flag, path, isDirectory] :
       {std::tuple<const char *, std::string, bool>{
            "--trace", absl::GetFlag(FLAGS_trace), false},
        {"--metrics", absl::GetFlag(FLAGS_metrics), false},
        {"--save-outputs", absl::GetFlag(FLAGS_save_outputs), true}})
    if (absl::Status status = checkWritable(flag, path, isDirectory);
        !status.ok())
      return status;
  if (absl::GetFlag(FLAGS_timeout_ms) < 1)
    return absl::InvalidArgumentError("--timeout-ms must be positive");
  job.processes = absl::GetFlag(FLAGS_nproc_per_node);
  if (job.processes < 0)
    return absl::InvalidArgumentError(
        "--nproc-per-node must not be negative");
  // Checked before anything compiles for that many ranks (Launch.cpp's
  // limit).
  if (job.processes > 4096)
    return absl::InvalidArgumentError(
        "--nproc-per-node " + std::to_string(job.processes) +
        " is more than the 4096 processes one launcher starts");
  std::string streams = absl::GetFlag(FLAGS_stream_threads);
  if (streams != "auto" && streams != "each" && streams != "one")
    return absl::InvalidArgumentError("--stream-threads '" + streams +
                                      "' is not auto, each or one");
  std::string progress = absl::GetFlag(FLAGS_progress);
  if (progress != "on" && progress != "off" && progress != "auto")
    return absl::InvalidArgumentError("--progress '" + progress +
                                      "' is not on, off or auto");
  if (absl::StatusOr<NonfiniteAction> action = nonfiniteActionFromFlags();
      !action.ok())
    return action.status();
  std::string collectives = absl::GetFlag(FLAGS_collectives);
  if (!collectives.empty() &&
      !ofrt::CollectivesRegistry::global().contains(collectives))
    return absl::InvalidArgumentError(
        "--collectives '" + collectives +
        "' is not a collective library of this runtime (it has " +
        ofrt::CollectivesRegistry::global().names() + ")");
  absl::StatusOr<std::optional<ProcessRank>> launched = rankFromEnvironment();
  if (!launched.ok())
    return launched.status();
  job.launched = *launched;
  if (job.launched && job.processes > 0)
    std::fprintf(stderr,
                 "%s: note: --nproc-per-node %d is ignored: %s=%d makes this "
                 "process one rank of %d already started\n",
                 programName(), job.processes,
                 job.launched->rankVariable.c_str(), job.launched->rank,
                 job.launched->world);
  if (job.launched && job.devices != 1)
    return absl::InvalidArgumentError(
        "--devices " + job.device + ":" + std::to_string(job.devices) +
        " runs several ranks in one process; under a launcher each process "
        "is one rank");
  if (!job.launched && job.processes > 0 && job.devices != 1)
    return absl::InvalidArgumentError(
        "--nproc-per-node and --devices cpu:N both set the ranks; pick one");
  if (!job.launched && job.processes == 0 &&
      !absl::GetFlag(FLAGS_hostname).empty())
    return absl::InvalidArgumentError(
        "--hostname is the address a launched rank listens on; it needs a "
        "launcher (torchrun, mpirun, srun, --nproc-per-node)");
  if (absl::GetFlag(FLAGS_job_id) != "of-run" &&
      absl::GetFlag(FLAGS_redis).empty())
    return absl::InvalidArgumentError(
        "--job-id prefixes this job's keys on the Redis server; it needs "
        "--redis HOST:PORT");
  if (!job.launched && (!absl::GetFlag(FLAGS_store_dir).empty() ||
                        !absl::GetFlag(FLAGS_redis).empty()))
    return absl::InvalidArgumentError(
        "--store-dir and --redis need a launcher (torchrun, mpirun, srun, "
        "--nproc-per-node) to set this process's rank");
  return job;
}

absl::Status ofrun::checkPlanRanks(const ofrt::LoadedPlan &plan,
                                   const Job &job, const std::string &model) {
  int ranks = plan.ranks.size(), wanted = job.ranks();
  if (job.device == "cuda")
    for (const ofrt::RankProgram &rank : plan.ranks)
      if (rank.device != ofrt::DeviceKind::Cuda)
        return absl::InvalidArgumentError(
            "plan '" + model + "' puts rank " + std::to_string(rank.rank) +
            " on a " + ofrt::deviceKindName(rank.device) +
            " device but --devices asks for cuda; compile it for cuda");
  if (ranks == wanted)
    return absl::OkStatus();
  return absl::InvalidArgumentError(
      "plan '" + model + "' has " + std::to_string(ranks) +
      (ranks == 1 ? " rank" : " ranks") + " but " +
      (job.launched ? "the launcher started " + std::to_string(wanted) +
                          " processes"
       : job.processes > 0
           ? "--nproc-per-node asks for " + std::to_string(wanted)
           : "--devices asks for " + std::to_string(wanted)) +
      "; compile it for " + std::to_string(wanted) +
      (wanted == 1 ? " device" : " devices"));
}

/// Notes the ops of `plan` whose kernels on its device run on host copies
/// (a GPU's: no kernel of its own yet, or not for that element type), by
/// op and element types. Creating a kernel touches no device.
static void printStagedOps(const ofrt::LoadedPlan &plan) {
  std::set<std::string> staged;
  std::string kind;
  for (const ofrt::RankProgram &program : plan.ranks) {
    if (program.device == ofrt::DeviceKind::Cpu)
      continue;
    for (const ofrt::ActorSpec &actor : program.actors) {
      if (actor.op.role != ofrt::OpRole::Kernel)
        continue;
      absl::StatusOr<std::unique_ptr<ofrt::Kernel>> kernel =
          ofrt::KernelRegistry::global().create(program.device, actor.op);
      if (!kernel.ok() || !ofrt::isStaged(**kernel))
        continue;
      std::string types;
      for (const auto *descs : {&actor.op.inputs, &actor.op.outputs})
        for (const ofrt::TensorDesc &desc : *descs) {
          std::string name = ofrt::dtypeName(desc.dtype);
          if (types.find(name) == std::string::npos)
            types += (types.empty() ? "" : " ") + name;
        }
      staged.insert(actor.op.type + " (" + types + ")");
      kind = ofrt::deviceKindName(program.device);
    }
  }
  std::string list;
  for (const std::string &op : staged)
    list += (list.empty() ? "" : ", ") + op;
  if (!staged.empty())
    std::fprintf(stderr,
                 "%s: note: the %s backend has no kernel for %s yet; %s on "
                 "host copies (correct, slow)\n",
                 programName(), kind.c_str(), list.c_str(),
                 staged.size() > 1 ? "they run" : "it runs");
}

int ofrun::runPlan(const Job &job, const ofrt::LoadedPlan &plan,
                   const std::vector<std::string> &childArgs,
                   const VariablesHook &afterRun) {
  if (job.launches())
    return launchProcesses(job.processes, childArgs);
  if (absl::GetFlag(FLAGS_steps) < 1)
    return fail("--steps must be at least 1");
  if (absl::Status status = loadKernelPlugins(); !status.ok())
    return fail(std::string(status.message()));

  // Training runs only (plans that update variables): a model may compute
  // a NaN on purpose, a step that trains on one is the mistake. Checked by
  // jobFromFlags.
  bool trains = false;
  for (const ofrt::RankProgram &program : plan.ranks)
    for (const ofrt::ActorSpec &actor : program.actors)
      trains |= actor.op.role == ofrt::OpRole::Optimizer;
  NonfiniteAction onNonfinite =
      trains ? *nonfiniteActionFromFlags() : NonfiniteAction::Off;
  ofrt::MultiRankOptions options;
  options.session.seed = absl::GetFlag(FLAGS_seed);
  options.timeout = std::chrono::milliseconds(absl::GetFlag(FLAGS_timeout_ms));
  // Kernel threads are the CPU device's business.
  options.session.device.threads = absl::GetFlag(FLAGS_threads);
  options.session.device.allowTf32 = absl::GetFlag(FLAGS_allow_tf32);
  std::string streams = absl::GetFlag(FLAGS_stream_threads);
  options.autoStreamThreads = streams == "auto";
  options.session.device.oneStreamThread = streams == "one";
  options.collectives = absl::GetFlag(FLAGS_collectives);
  for (const std::string &binding : absl::GetFlag(FLAGS_input)) {
    size_t eq = binding.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail("--input '" + binding + "' is not NAME=SOURCE");
    absl::StatusOr<ofrt::InputSource> source =
        parseInputSource(binding.substr(eq + 1));
    if (!source.ok())
      return fail(std::string(source.status().message()));
    if (onNonfinite == NonfiniteAction::Stop) {
      if (source->kind == ofrt::InputSource::Kind::Fill &&
          !std::isfinite(source->value))
        return fail("--input '" + binding +
                    "' fills the input with a value that is not finite "
                    "(--on-nonfinite skip or warn trains on)");
      source->refuseNonfinite = true;
    }
    options.session.inputs[binding.substr(0, eq)] = *source;
  }
  // Inputs without --input get random data: say so (once per job).
  if (!job.launched || job.launched->rank == 0) {
    std::set<std::string> random;
    for (const ofrt::RankProgram &program : plan.ranks)
      for (const ofrt::ActorSpec &actor : program.actors)
        if (actor.op.role == ofrt::OpRole::Input) {
          std::string name = actor.op.get<std::string>("name", actor.op.name);
          if (!options.session.inputs.count(name))
            random.insert(name);
        }
    std::string names;
    for (const std::string &name : random)
      names += (names.empty() ? "" : ", ") + name;
    if (!random.empty())
      std::fprintf(stderr,
                   "%s: note: random data for input%s %s (feed %s with "
                   "--input NAME=SOURCE)\n",
                   programName(), random.size() > 1 ? "s" : "", names.c_str(),
                   random.size() > 1 ? "them" : "it");
    printStagedOps(plan);
  }

  absl::StatusOr<std::unique_ptr<Checkpointing>> checkpointing =
      Checkpointing::create(plan,
                            !job.launched || job.launched->world == 1,
                            !job.launched || job.launched->rank == 0);
  if (!checkpointing.ok())
    return fail(std::string(checkpointing.status().message()));
  (*checkpointing)->configure(options);
  options.collectVariables |= afterRun != nullptr;
  options.run.maxSteps = absl::GetFlag(FLAGS_steps);
  options.run.recordFirings = true;
  // The other processes' firings reach rank 0's trace.
  options.reportFirings = !absl::GetFlag(FLAGS_trace).empty();
  std::string progressMode = absl::GetFlag(FLAGS_progress);
  // The process of the first rank that holds the loss (rank 0 but in a
  // pipeline) reports; another process of the job writes nothing.
  bool reports = !job.launched ||
                 job.launched->rank == Progress::reportingRank(plan.ranks);
  absl::StatusOr<std::unique_ptr<Progress>> progress =
      Progress::create(plan.ranks, options.run.maxSteps,
                       reports ? absl::GetFlag(FLAGS_metrics) : "",
                       reports && (progressMode == "on" ||
                                   (progressMode == "auto" && isatty(2))),
                       absl::GetFlag(FLAGS_log_every));
  if (!progress.ok())
    return fail(std::string(progress.status().message()));
  (*progress)->setFirstStep(options.run.firstStep);
  std::optional<StopWatcher> watcher;
  ofrt::StepGate gate;
  NonfiniteMonitor nonfinite(plan.ranks, onNonfinite, reports, [&] {
    if (watcher)
      watcher->request();
  });
  options.session.onOutput = [observe = (*progress)->observer(),
                              &nonfinite](int64_t rank, const std::string &name,
                                          int64_t step,
                                          const ofrt::TensorView &value,
                                          bool whole) {
    if (name != kNonfiniteOutput)
      observe(rank, name, step, value, whole);
    nonfinite.observe(rank, name, step, value, whole);
  };
  // Ctrl-C stops every rank after the same step (Interrupt.h): the ranks
  // of this process share one step gate, processes agree through their
  // store (under mpirun without one, mpirun's signals end the job).
  options.run.gate = &gate;
  std::shared_ptr<ofrt::Store> store;
  int rank = 0, world = 1;
  if (job.launched && job.launched->world > 1) {
    rank = job.launched->rank;
    world = job.launched->world;
    options.underMpi = job.launched->launcher == "mpirun";
    options.hostname = absl::GetFlag(FLAGS_hostname);
    absl::StatusOr<std::shared_ptr<ofrt::Store>> made =
        jobStore(*job.launched, options.hostname);
    if (!made.ok())
      return fail(std::string(made.status().message()));
    store = *made;
    // A peer that dies closes its sockets: writing to them is an error
    // that names it, not a SIGPIPE that kills this rank too.
    std::signal(SIGPIPE, SIG_IGN);
    if (options.hostname.empty())
      options.hostname = "127.0.0.1";
  }
  if (world == 1 || store)
    watcher.emplace(gate, store, rank, world, options.timeout);
  absl::StatusOr<ofrt::MultiRankResult> result =
      world > 1 ? ofrt::runRank(plan, rank, store, options)
                : ofrt::runAllRanks(plan, options);
  if (watcher)
    watcher->stop();
  bool stoppedNonfinite = nonfinite.stopped();
  bool interrupted = watcher && watcher->interrupted() && !stoppedNonfinite;
  if (!result.ok()) {
    if (watcher && !watcher->status().ok())
      return fail(std::string(result.status().message()) + " (stopping: " +
                  std::string(watcher->status().message()) + ")");
    return fail(std::string(result.status().message()));
  }
  // The summary comes from the process that watched the loss, last.
  if (reports)
    (*progress)->endLine();
  int done = interrupted ? kInterruptedExit : stoppedNonfinite ? 1 : 0;
  if (stoppedNonfinite && reports)
    std::fprintf(stderr,
                 "%s: error: %s; stopped after step %lld (%s)\n",
                 programName(), nonfinite.stopMessage().c_str(),
                 static_cast<long long>(
                     watcher ? watcher->stopStep() - 1 : gate.frontier() - 1),
                 nonfinite.stopReason().c_str());
  nonfinite.printSummary();
  if (rank != 0) {
    if (reports)
      (*progress)->printSummary();
    return done;
  }
  if (interrupted)
    std::printf("interrupted: stopped after step %lld\n",
                static_cast<long long>(watcher->stopStep() - 1));
  if (absl::Status status = (*checkpointing)->finish(*result); !status.ok())
    return fail(std::string(status.message()));
  if (afterRun)
    if (int rc = afterRun(result->variables); rc != 0)
      return rc;

  for (const auto &[name, value] : result->outputs)
    if (name != kNonfiniteOutput)
      printOutput(name, value, absl::GetFlag(FLAGS_print_limit));
  if (std::string dir = absl::GetFlag(FLAGS_save_outputs); !dir.empty())
    for (const auto &[name, value] : result->outputs)
      if (absl::Status status = ofrt::writeNpy(dir + "/" + name + ".npy", value);
          !status.ok())
        return fail(std::string(status.message()));
  printTiming(plan.ranks[0], result->ranks[0], result->ranks);
  printBubbles(plan.ranks, result->ranks);
  if (!absl::GetFlag(FLAGS_trace).empty()) {
    // Every rank: this process's, and under a launcher the others' too
    // (MultiRankOptions::reportFirings).
    std::vector<ofrt::RankProgram> programs;
    std::vector<std::vector<ofrt::Firing>> firings;
    size_t count = 0;
    for (size_t r = 0; r < result->ranks.size(); ++r) {
      if (result->ranks[r].firings.empty() && r != 0)
        continue;
      programs.push_back(plan.ranks[r]);
      firings.push_back(result->ranks[r].firings);
      count += firings.back().size();
    }
    if (absl::Status status = ofrt::writeChromeTrace(
            programs, firings, absl::GetFlag(FLAGS_trace));
        !status.ok())
      return fail(std::string(status.message()));
    std::printf("trace: %s (%zu firings)\n",
                absl::GetFlag(FLAGS_trace).c_str(), count);
  }
  if (reports)
    (*progress)->printSummary();
  return done;
}
