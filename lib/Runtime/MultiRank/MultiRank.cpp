//===- MultiRank.cpp - Running every rank of a plan -----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/KernelParams.h"
#include "ofrt/MultiRank.h"

#include "RankReport.h"

#include "ofrt/Backend.h"
#include "ofrt/Checkpoint.h"
#include "ofrt/CommunicatorPool.h"
#include "ofrt/Pieces.h"
#include "ofrt/Status.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace ofrt;
using namespace ofrt::multirank;

namespace {

std::string hostName() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0)
    return "";
  return name;
}

/// The names of the inputs of every rank of `plan`.
std::set<std::string> inputNames(const LoadedPlan &plan) {
  std::set<std::string> names;
  for (const RankProgram &program : plan.ranks)
    for (const ActorSpec &actor : program.actors)
      if (actor.op.role == OpRole::Input)
        names.insert(ofrt::userName(actor.op));
  return names;
}

/// Runs `program` with `pool` and collects its output pieces (and, given
/// `variables`, the values of its primary variable pieces). The session
/// (and with it every kernel) is gone when this returns.
absl::Status runProgram(const RankProgram &program, CommunicatorPool &pool,
                        const MultiRankOptions &options,
                        const std::set<std::string> &planInputs,
                        RankState &state,
                        const std::vector<VariablePiece> *variables) {
  SessionOptions sessionOptions = options.session;
  sessionOptions.communicators = &pool;
  sessionOptions.planInputs = planInputs;
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::create(program, sessionOptions);
  if (!session.ok())
    return session.status();
  absl::StatusOr<RunResult> result = (*session)->run(options.run);
  if (!result.ok())
    return result.status();
  state.result = std::move(*result);
  if (variables)
    for (const VariablePiece &piece : *variables) {
      TensorData value;
      if (piece.primary) {
        absl::StatusOr<TensorData> read = (*session)->regstValue(piece.regst, 0);
        if (!read.ok())
          return read.status();
        value = std::move(*read);
      }
      state.variables.push_back(std::move(value));
    }
  for (const ActorSpec &actor : program.actors) {
    if (actor.op.role != OpRole::Output)
      continue;
    std::string name = ofrt::userName(actor.op);
    absl::StatusOr<OutputPiece> piece = readOutputPiece(actor.op, program.rank);
    if (!piece.ok())
      return piece.status();
    auto it = (*session)->outputs().find(name);
    if (it != (*session)->outputs().end())
      piece->value = it->second;
    if (piece->value.bytes.empty() && !actor.op.inputs.empty())
      piece->value.desc = actor.op.inputs[0];
    state.pieces.push_back({name, std::move(*piece)});
  }
  return absl::OkStatus();
}

/// Point-to-point calls may run concurrently with every library: the
/// in-process groups' slots, Gloo's pairs and contexts lock, and MPI is
/// initialized with MPI_THREAD_MULTIPLE. So a transfer between pipeline
/// stages gets a thread of its own (DeviceOptions::transferThreads) in one
/// process or many.
constexpr bool concurrentPointToPoint = true;

/// Whether the rank sends or receives per micro-batch (a pipeline stage).
/// Such a rank keeps a thread per stream when the ranks outnumber the
/// cores: on one thread, a transfer waiting for a peer would hold up the
/// rank's compute, and the stages would take turns instead of overlapping.
bool hasStageTransfers(const RankProgram &program) {
  for (const ActorSpec &actor : program.actors)
    if (actor.op.role == OpRole::Transfer && actor.firingsPerStep > 1)
      return true;
  return false;
}

/// Errors a rank gets because a peer failed, rather than its own.
bool isConsequence(const absl::Status &status) {
  return absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status) ||
         (absl::IsFailedPrecondition(status) &&
          status.message().find("broken by") != std::string::npos);
}

/// One error for the job: the first rank that failed on its own (or the
/// first failure), then what every other failing rank saw. A single rank's
/// error is returned as it is.
absl::Status combineErrors(const std::vector<absl::Status> &statuses) {
  if (statuses.size() == 1)
    return statuses[0];
  int root = -1;
  for (size_t r = 0; r < statuses.size() && root < 0; ++r)
    if (!statuses[r].ok() && !isConsequence(statuses[r]))
      root = r;
  for (size_t r = 0; r < statuses.size() && root < 0; ++r)
    if (!statuses[r].ok())
      root = r;
  if (root < 0)
    return absl::OkStatus();
  std::string message = "rank " + std::to_string(root) + " failed: " +
                        std::string(statuses[root].message());
  for (size_t r = 0; r < statuses.size(); ++r)
    if (static_cast<int>(r) != root && !statuses[r].ok())
      message += "\nrank " + std::to_string(r) +
                 " stopped: " + std::string(statuses[r].message());
  return absl::Status(statuses[root].code(), message);
}

/// Assembles every output from the pieces of all ranks.
absl::StatusOr<std::map<std::string, TensorData>>
assembleAll(const std::vector<std::pair<std::string, OutputPiece>> &pieces) {
  std::map<std::string, std::vector<OutputPiece>> byName;
  for (const auto &[name, piece] : pieces)
    byName[name].push_back(piece);
  std::map<std::string, TensorData> outputs;
  for (const auto &[name, list] : byName) {
    absl::StatusOr<TensorData> value = assemblePieces(name, list);
    if (!value.ok())
      return value.status();
    outputs[name] = std::move(*value);
  }
  return outputs;
}

/// Sends this rank's report to rank 0 (rank != 0) or receives every other
/// rank's into `states` (rank 0), over the control channel.
absl::Status
exchangeReports(CommunicatorPool &pool, std::vector<RankState> &states,
                const std::vector<std::vector<VariablePiece>> *variables,
                bool firings) {
  int rank = pool.rank();
  absl::StatusOr<std::unique_ptr<ControlChannel>> channel =
      pool.controlChannel();
  if (!channel.ok())
    return channel.status();
  if (rank != 0)
    return (*channel)->send("result",
                            encodeReport(rank, states[rank], firings));
  absl::StatusOr<std::vector<std::string>> reports =
      (*channel)->gather("result");
  if (!reports.ok())
    return reports.status();
  for (size_t r = 1; r < reports->size(); ++r)
    OFRT_RETURN_IF_ERROR(decodeReport((*reports)[r], r,
                                      variables ? &(*variables)[r] : nullptr,
                                      states[0], states[r]));
  return absl::OkStatus();
}

/// The variables of every rank when the run collects them (else none).
absl::StatusOr<std::vector<std::vector<VariablePiece>>>
planVariablesIf(const LoadedPlan &plan, const MultiRankOptions &options) {
  if (!options.collectVariables)
    return std::vector<std::vector<VariablePiece>>(plan.ranks.size());
  return planVariables(plan.ranks);
}

/// The result from every rank's state: timing, and the outputs (and
/// variables) assembled from the pieces.
absl::StatusOr<MultiRankResult>
collectResult(std::vector<RankState> &states,
              const std::vector<std::vector<VariablePiece>> &variables,
              const MultiRankOptions &options) {
  MultiRankResult result;
  std::vector<std::pair<std::string, OutputPiece>> pieces;
  std::vector<std::vector<TensorData>> values;
  for (RankState &state : states) {
    result.ranks.push_back(std::move(state.result));
    for (auto &piece : state.pieces)
      pieces.push_back(std::move(piece));
    values.push_back(std::move(state.variables));
  }
  absl::StatusOr<std::map<std::string, TensorData>> outputs =
      assembleAll(pieces);
  if (!outputs.ok())
    return outputs.status();
  result.outputs = std::move(*outputs);
  if (options.collectVariables) {
    absl::StatusOr<std::map<std::string, TensorData>> assembled =
        assembleVariables(variables, values);
    if (!assembled.ok())
      return assembled.status();
    result.variables = std::move(*assembled);
  }
  return result;
}

CollectivesOptions collectivesOptions(int rank, int world,
                                      std::shared_ptr<Store> store,
                                      const MultiRankOptions &options) {
  CollectivesOptions result;
  result.rank = rank;
  result.worldSize = world;
  result.store = std::move(store);
  result.timeout = options.timeout;
  result.hostname = options.hostname;
  return result;
}

/// The collective library: the one asked for, else the default of the
/// plan's device backend.
absl::StatusOr<std::string> collectivesLibrary(const LoadedPlan &plan,
                                               const MultiRankOptions &options,
                                               bool inOneProcess) {
  if (!options.collectives.empty())
    return options.collectives;
  absl::StatusOr<const Backend *> backend =
      findBackend(plan.ranks.empty() ? DeviceKind::Cpu : plan.ranks[0].device);
  if (!backend.ok())
    return backend.status();
  return (*backend)->defaultCollectives(inOneProcess, options.underMpi);
}

} // namespace

absl::Status ofrt::checkRankNumbers(const LoadedPlan &plan) {
  if (plan.worldSize != static_cast<int64_t>(plan.ranks.size()))
    return absl::InvalidArgumentError(
        "the plan's world size is " + std::to_string(plan.worldSize) +
        " but it has " + std::to_string(plan.ranks.size()) + " rank plans");
  for (size_t r = 0; r < plan.ranks.size(); ++r)
    if (plan.ranks[r].rank != static_cast<int64_t>(r))
      return absl::InvalidArgumentError(
          "rank plan " + std::to_string(r) + " is for rank " +
          std::to_string(plan.ranks[r].rank) +
          "; ranks must be listed as 0 .. world size - 1");
  return absl::OkStatus();
}

absl::StatusOr<MultiRankResult>
ofrt::runAllRanks(const LoadedPlan &plan, const MultiRankOptions &options) {
  if (absl::Status status = checkRankNumbers(plan); !status.ok())
    return status;
  int world = plan.ranks.size();
  absl::StatusOr<std::vector<std::vector<VariablePiece>>> variables =
      planVariablesIf(plan, options);
  if (!variables.ok())
    return variables.status();
  std::shared_ptr<Store> store = createInProcessStore();
  absl::StatusOr<std::string> library =
      collectivesLibrary(plan, options, /*inOneProcess=*/true);
  if (!library.ok())
    return library.status();
  std::vector<RankState> states(world);
  // Ranks that outnumber the cores: one thread per rank, each rank on a
  // core of its own choosing in turn, so that the cores stay evenly loaded
  // and a rank waiting in a collective yields to one that shares its core.
  std::vector<int> cores = allowedCores();
  MultiRankOptions rankOptions = options;
  bool crowded = false;
  if (options.autoStreamThreads) {
    int64_t busy = int64_t(world) * std::max(1, options.session.device.threads);
    crowded = busy > static_cast<int64_t>(cores.size());
  }
  // The ranks' traces share one clock.
  rankOptions.run.epoch = std::chrono::steady_clock::now();
  rankOptions.session.device.transferThreads = concurrentPointToPoint;
  std::set<std::string> planInputs = inputNames(plan);
  std::vector<std::thread> threads;
  for (int r = 0; r < world; ++r)
    threads.emplace_back([&, r, rankOptions]() mutable {
      if (crowded && options.session.device.threads <= 1 && !cores.empty())
        rankOptions.session.device.cores = {cores[r % cores.size()]};
      if (options.autoStreamThreads)
        rankOptions.session.device.oneStreamThread =
            crowded && !hasStageTransfers(plan.ranks[r]);
      absl::StatusOr<std::unique_ptr<CommunicatorPool>> pool =
          CommunicatorPool::create(CollectivesRegistry::global(), *library,
                                   collectivesOptions(r, world, store, options));
      states[r].status =
          pool.ok()
              ? runProgram(
                    plan.ranks[r], **pool, rankOptions, planInputs, states[r],
                    options.collectVariables ? &(*variables)[r] : nullptr)
              : pool.status();
    });
  for (std::thread &thread : threads)
    thread.join();
  std::vector<absl::Status> statuses;
  for (RankState &state : states)
    statuses.push_back(state.status);
  if (absl::Status status = combineErrors(statuses); !status.ok())
    return status;
  return collectResult(states, *variables, options);
}

/// Every process of the job publishes its plan's collectives digest; all
/// must agree (processes that compiled different programs would hang or
/// compute wrong numbers together).
static absl::Status checkPlansAgree(Store &store, const LoadedPlan &plan,
                                    int rank, int world,
                                    std::chrono::milliseconds timeout) {
  std::string ours = collectivesDigest(plan.ranks);
  auto key = [](int r) { return "plan/collectives/" + std::to_string(r); };
  if (absl::Status status = store.set(key(rank), ours); !status.ok())
    return status;
  std::vector<std::string> keys;
  for (int peer = 0; peer < world; ++peer)
    keys.push_back(key(peer));
  if (!store.wait(keys, timeout).ok()) {
    std::string missing;
    for (int peer = 0; peer < world; ++peer)
      if (!store.get(key(peer), std::chrono::milliseconds(1)).ok())
        missing += (missing.empty() ? "" : ", ") + std::to_string(peer);
    return absl::DeadlineExceededError(
        "not every rank joined within " + std::to_string(timeout.count()) +
        " ms; missing rank(s) " + missing +
        " (comparing the ranks' plans before the first collective)");
  }
  for (int peer = 0; peer < world; ++peer) {
    if (peer == rank)
      continue;
    absl::StatusOr<std::string> theirs = store.get(key(peer), timeout);
    if (!theirs.ok())
      return theirs.status();
    if (*theirs != ours)
      return absl::FailedPreconditionError(
          "rank " + std::to_string(rank) + "'s plan and rank " +
          std::to_string(peer) + "'s disagree on their collectives (digest " +
          ours + " here, " + *theirs + " there): the processes compiled "
          "different programs or read different plans");
  }
  return absl::OkStatus();
}

absl::StatusOr<MultiRankResult>
ofrt::runRank(const LoadedPlan &plan, int rank, std::shared_ptr<Store> store,
              const MultiRankOptions &options) {
  if (absl::Status status = checkRankNumbers(plan); !status.ok())
    return status;
  int world = plan.ranks.size();
  if (rank < 0 || rank >= world)
    return absl::InvalidArgumentError("rank " + std::to_string(rank) +
                                      " is not in the plan's " +
                                      std::to_string(world) + " ranks");
  absl::StatusOr<std::vector<std::vector<VariablePiece>>> variables =
      planVariablesIf(plan, options);
  if (!variables.ok())
    return variables.status();
  const std::vector<std::vector<VariablePiece>> *collect =
      options.collectVariables ? &*variables : nullptr;
  absl::StatusOr<std::string> library =
      collectivesLibrary(plan, options, /*inOneProcess=*/false);
  if (!library.ok())
    return library.status();
  std::vector<RankState> states(world);
  std::shared_ptr<Store> shared = store;
  absl::StatusOr<std::unique_ptr<CommunicatorPool>> pool =
      CommunicatorPool::create(
          CollectivesRegistry::global(), *library,
          collectivesOptions(rank, world, std::move(store), options));
  MultiRankOptions rankOptions = options;
  rankOptions.session.device.transferThreads = concurrentPointToPoint;
  rankOptions.run.epoch = std::chrono::steady_clock::now();
  states[rank].host = hostName();
  states[rank].epochNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                             rankOptions.run.epoch->time_since_epoch())
                             .count();
  absl::Status status = pool.status();
  // The processes have met: before any collective, their plans agree.
  if (status.ok() && shared)
    status = checkPlansAgree(*shared, plan, rank, world, options.timeout);
  if (status.ok())
    status = runProgram(plan.ranks[rank], **pool, rankOptions, inputNames(plan),
                        states[rank], collect ? &(*collect)[rank] : nullptr);
  if (status.ok() && world > 1)
    status =
        exchangeReports(**pool, states, collect,
                        options.reportFirings && options.run.recordFirings);
  if (!status.ok())
    return absl::Status(status.code(), "rank " + std::to_string(rank) +
                                           " failed: " +
                                           std::string(status.message()));
  if (rank != 0) {
    MultiRankResult result;
    for (RankState &state : states)
      result.ranks.push_back(state.result);
    return result;
  }
  return collectResult(states, *variables, options);
}
