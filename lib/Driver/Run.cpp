//===- Run.cpp - Running this process's ranks of a plan -------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Run.h"

#include "ofdriver/Checkpointing.h"
#include "ofdriver/Interrupt.h"
#include "ofdriver/Nonfinite.h"
#include "ofdriver/Progress.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Backend.h"
#include "ofrt/Kernel.h"

#include <unistd.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <set>

using namespace ofdriver;
using ofrt::InputSource;

namespace {

/// "a, b, c".
std::string joined(const std::set<std::string> &items) {
  std::string list;
  for (const std::string &item : items)
    list += (list.empty() ? "" : ", ") + item;
  return list;
}

/// The store of a rank started by a launcher: the launcher's directory,
/// --store-dir or --redis; none under mpirun without them (MPI needs none).
absl::StatusOr<std::shared_ptr<ofrt::Store>>
jobStore(const Job &job, const std::string &collectives,
         std::string &hostname) {
  const ProcessRank &me = *job.launched;
  std::string redis = job.redis;
  std::string dir = job.storeDir;
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
    return ofrt::createPrefixStore(*store, job.jobId);
  }
  if (dir.empty()) {
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
  std::string list = joined(staged);
  if (!staged.empty())
    std::fprintf(stderr,
                 "%s: note: the %s backend has no kernel for %s yet; %s on "
                 "host copies (correct, slow)\n",
                 programName(), kind.c_str(), list.c_str(),
                 staged.size() > 1 ? "they run" : "it runs");
}

namespace {

/// The sessions' options from `options`: inputs (checked for values that
/// are not finite with `onNonfinite` stop), seed, threads, streams and the
/// collective library.
absl::Status configure(const RunOptions &options, NonfiniteAction onNonfinite,
                       ofrt::MultiRankOptions &multi) {
  multi.session.seed = options.seed;
  multi.timeout = std::chrono::milliseconds(options.timeoutMs);
  // Kernel threads are the CPU device's business.
  multi.session.device.threads = options.threads;
  multi.session.device.allowTf32 = options.allowTf32;
  multi.autoStreamThreads = options.streamThreads == "auto";
  multi.session.device.oneStreamThread = options.streamThreads == "one";
  multi.collectives = options.collectives;
  for (auto [name, source] : options.inputs) {
    if (onNonfinite == NonfiniteAction::Stop) {
      if (source.kind == InputSource::Kind::Fill &&
          !std::isfinite(source.value))
        return absl::InvalidArgumentError(
            "input '" + name +
            "' is filled with a value that is not finite (--on-nonfinite "
            "skip or warn trains on)");
      source.refuseNonfinite = true;
    }
    multi.session.inputs[name] = source;
  }
  multi.run.maxSteps = options.steps;
  multi.run.recordFirings = true;
  // The other processes' firings reach rank 0's trace.
  multi.reportFirings = options.gatherFirings;
  return absl::OkStatus();
}

/// Says which inputs get random data (once per job), and which ops run on
/// host copies.
void printNotes(const ofrt::LoadedPlan &plan,
                const ofrt::MultiRankOptions &options) {
  std::set<std::string> random;
  for (const ofrt::RankProgram &program : plan.ranks)
    for (const ofrt::ActorSpec &actor : program.actors)
      if (actor.op.role == ofrt::OpRole::Input) {
        std::string name = ofrt::userName(actor.op);
        if (!options.session.inputs.count(name))
          random.insert(name);
      }
  std::string names = joined(random);
  if (!random.empty())
    std::fprintf(stderr,
                 "%s: note: random data for input%s %s (feed %s with "
                 "--input NAME=SOURCE)\n",
                 programName(), random.size() > 1 ? "s" : "", names.c_str(),
                 random.size() > 1 ? "them" : "it");
  printStagedOps(plan);
}

/// Whether `plan` updates variables: only training runs stop on a value
/// that is not finite (a model may compute a NaN on purpose; a step that
/// trains on one is the mistake).
bool updatesVariables(const ofrt::LoadedPlan &plan) {
  for (const ofrt::RankProgram &program : plan.ranks)
    for (const ofrt::ActorSpec &actor : program.actors)
      if (actor.op.role == ofrt::OpRole::Optimizer)
        return true;
  return false;
}

/// Under a launcher with several processes: this process's rank (in
/// `out.rank`), the job's size and the store where the processes meet.
absl::Status joinJob(const Job &job, const RunOptions &options,
                     ofrt::MultiRankOptions &multi, RunResult &out,
                     std::shared_ptr<ofrt::Store> &store, int &world) {
  if (!job.launched || job.launched->world <= 1)
    return absl::OkStatus();
  out.rank = job.launched->rank;
  world = job.launched->world;
  multi.underMpi = job.launched->launcher == "mpirun";
  multi.hostname = job.hostname;
  absl::StatusOr<std::shared_ptr<ofrt::Store>> made =
      jobStore(job, options.collectives, multi.hostname);
  if (!made.ok())
    return made.status();
  store = *made;
  // A peer that dies closes its sockets: writing to them is an error that
  // names it, not a SIGPIPE that kills this rank too.
  std::signal(SIGPIPE, SIG_IGN);
  if (multi.hostname.empty())
    multi.hostname = "127.0.0.1";
  return absl::OkStatus();
}

/// How a run that returned ended: its exit code and, after a stop (Ctrl-C
/// or a value that is not finite), the step it stopped after, said on
/// stderr for the latter.
void recordEnd(RunResult &out, const std::optional<StopWatcher> &watcher,
               const ofrt::StepGate &gate, const NonfiniteMonitor &nonfinite,
               bool interrupted) {
  bool stoppedNonfinite = nonfinite.stopped();
  out.exitCode = interrupted ? kInterruptedExit : stoppedNonfinite ? 1 : 0;
  if (interrupted || stoppedNonfinite)
    out.stoppedAfter =
        watcher ? watcher->stopStep() - 1 : gate.frontier() - 1;
  if (stoppedNonfinite && out.reports)
    std::fprintf(stderr, "%s: error: %s; stopped after step %lld (%s)\n",
                 programName(), nonfinite.stopMessage().c_str(),
                 static_cast<long long>(out.stoppedAfter),
                 nonfinite.stopReason().c_str());
}

} // namespace

absl::StatusOr<RunResult> ofdriver::run(const Job &job,
                                        const ofrt::LoadedPlan &plan,
                                        const RunOptions &options) {
  if (job.launches())
    return absl::InvalidArgumentError(
        "a job of processes is launched (launchProcesses), not run");
  if (options.steps < 1)
    return absl::InvalidArgumentError("--steps must be at least 1");
  NonfiniteAction onNonfinite =
      updatesVariables(plan) ? options.onNonfinite : NonfiniteAction::Off;
  ofrt::MultiRankOptions multi;
  if (absl::Status status = configure(options, onNonfinite, multi);
      !status.ok())
    return status;
  if (!job.launched || job.launched->rank == 0)
    printNotes(plan, multi);

  absl::StatusOr<std::unique_ptr<Checkpointing>> checkpointing =
      Checkpointing::create(plan, options.checkpoint, options.onNonfinite,
                            !job.launched || job.launched->world == 1,
                            !job.launched || job.launched->rank == 0);
  if (!checkpointing.ok())
    return checkpointing.status();
  (*checkpointing)->configure(multi);
  multi.collectVariables |= options.collectVariables;
  // The process of the first rank that holds the loss (rank 0 but in a
  // pipeline) reports; another process of the job writes nothing.
  RunResult out;
  out.reports = !job.launched ||
                job.launched->rank == Progress::reportingRank(plan.ranks);
  absl::StatusOr<std::unique_ptr<Progress>> progress = Progress::create(
      plan.ranks, multi.run.maxSteps, out.reports ? options.metrics : "",
      out.reports && (options.progress == "on" ||
                      (options.progress == "auto" && isatty(2))),
      options.logEvery);
  if (!progress.ok())
    return progress.status();
  (*progress)->setFirstStep(multi.run.firstStep);
  if (out.reports)
    (*progress)->setStepCallback(options.onStep);
  std::optional<StopWatcher> watcher;
  ofrt::StepGate gate;
  NonfiniteMonitor nonfinite(plan.ranks, onNonfinite, out.reports, [&] {
    if (watcher)
      watcher->request();
  });
  multi.session.onOutput = [observe = (*progress)->observer(),
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
  multi.run.gate = &gate;
  std::shared_ptr<ofrt::Store> store;
  int world = 1;
  if (absl::Status joined = joinJob(job, options, multi, out, store, world);
      !joined.ok())
    return joined;
  if (world == 1 || store)
    watcher.emplace(gate, store, out.rank, world, multi.timeout);
  absl::StatusOr<ofrt::MultiRankResult> result =
      world > 1 ? ofrt::runRank(plan, out.rank, store, multi)
                : ofrt::runAllRanks(plan, multi);
  if (watcher)
    watcher->stop();
  bool stoppedNonfinite = nonfinite.stopped();
  bool interrupted = watcher && watcher->interrupted() && !stoppedNonfinite;
  if (watcher && watcher->stoppedJoining())
    return absl::CancelledError(
        "interrupted while the job's processes were joining: no step ran");
  if (!result.ok()) {
    if (watcher && !watcher->status().ok())
      return absl::Status(result.status().code(),
                          std::string(result.status().message()) +
                              " (stopping: " +
                              std::string(watcher->status().message()) + ")");
    return result.status();
  }
  out.run = std::move(*result);
  // The summary comes from the process that watched the loss, last.
  if (out.reports)
    (*progress)->endLine();
  recordEnd(out, watcher, gate, nonfinite, interrupted);
  nonfinite.printSummary();
  out.scalars = (*progress)->history();
  out.summary = (*progress)->summary();
  if (out.rank != 0)
    return out;
  if (interrupted)
    std::printf("interrupted: stopped after step %lld\n",
                static_cast<long long>(out.stoppedAfter));
  if (absl::Status status = (*checkpointing)->finish(out.run); !status.ok())
    return status;
  return out;
}
