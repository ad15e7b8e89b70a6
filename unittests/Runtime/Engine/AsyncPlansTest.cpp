//===- AsyncPlansTest.cpp - Compiled plans on the fake asynchronous device ===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Runs every rank of compiled plans (the files OFRT_ASYNC_PLANS lists,
// separated by ':'; test/Run/async-engine-plans.test compiles the MLP, the
// GPT and a 2-stage micro-batched step) on the fake asynchronous device, as
// compiled and with regst counts raised to 2 and 3. Every kernel stamps each output
// item with its actor and item number, in work enqueued on its stream, and
// checks that each input holds its producer's stamp for the item it reads:
// a read before the write or a rewrite before the last read shows as a
// wrong stamp. Inputs and outputs run on the host, as data kernels of a
// host-accessible device do; the host waits only next to them, and not at
// all when every kernel runs on a stream.
//
//===----------------------------------------------------------------------===//

#include "FakeAsyncDevice.h"

#include "ofrt/Engine.h"
#include "ofrt/Plan.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

using namespace ofrt;
using namespace ofrt::test;

namespace {

std::vector<std::string> planPaths() {
  const char *list = std::getenv("OFRT_ASYNC_PLANS");
  std::vector<std::string> paths;
  std::stringstream stream(list ? list : "");
  for (std::string path; std::getline(stream, path, ':');)
    if (!path.empty())
      paths.push_back(path);
  return paths;
}

struct PlanRun {
  int64_t wrong = 0, hostWaits = 0, firings = 0;
  /// Firings per step of the host kernels, and of the stream kernels next
  /// to one.
  int64_t onHost = 0, nextToHost = 0;
};

/// Runs `program` for `steps` steps, data endpoints on the host when
/// `dataOnHost`: with `count` 1 as compiled (its memory plan's arena, where
/// regsts share memory), otherwise with every regst in memory of its own
/// and of `count` buffers (at least its own count).
PlanRun runRank(RankProgram program, int64_t count, bool dataOnHost,
                int64_t steps) {
  program.device = DeviceKind::Cuda;
  if (count > 1) {
    program.arenaBytes = 0;
    for (RegstSpec &regst : program.regsts) {
      regst.offset = -1;
      regst.count = std::max(regst.count, count);
    }
  }
  std::map<int64_t, const ActorSpec *> actors;
  for (const ActorSpec &actor : program.actors)
    actors[actor.id] = &actor;
  auto host = [&](const ActorSpec &actor) {
    return dataOnHost && (actor.op.role == OpRole::Input ||
                          actor.op.role == OpRole::Output);
  };
  PlanRun run;
  for (const ActorSpec &actor : program.actors) {
    bool besideHost = false;
    for (int64_t id : actor.inputs)
      besideHost |= host(*actors[program.findRegst(id)->producer]);
    for (int64_t id : actor.outputs)
      for (int64_t consumer : program.findRegst(id)->consumers)
        besideHost |= host(*actors[consumer]);
    if (host(actor))
      run.onHost += actor.firingsPerStep;
    else if (besideHost)
      run.nextToHost += actor.firingsPerStep;
  }
  std::atomic<int64_t> wrong{0};
  auto device = std::make_shared<FakeDevice>();
  auto engine =
      Engine::create(program, device, stampKernels(program, host, &wrong));
  EXPECT_TRUE(engine.ok()) << engine.status();
  if (!engine.ok())
    return run;
  absl::StatusOr<RunResult> result = (*engine)->run({steps, true});
  EXPECT_TRUE(result.ok()) << result.status();
  if (!result.ok())
    return run;
  EXPECT_EQ(result->steps, steps);
  device->deliverer.drain();
  run.wrong = wrong.load();
  run.hostWaits = result->hostWaits;
  run.firings = result->firings.size();
  return run;
}

// Every value read is the one of its step, with the host waiting only at
// or next to the host-side actors (at most once per step for each firing
// of one, or of a stream kernel beside one), and never when every kernel
// is on a stream.
TEST(AsyncPlans, CompiledPlansReadOnlyTheirStepsValues) {
  std::vector<std::string> paths = planPaths();
  if (paths.empty())
    GTEST_SKIP() << "OFRT_ASYNC_PLANS names no plans "
                    "(test/Run/async-engine-plans.test sets it)";
  const int64_t steps = 6;
  for (const std::string &path : paths) {
    std::ifstream file(path, std::ios::binary);
    ASSERT_TRUE(file) << path;
    std::stringstream bytes;
    bytes << file.rdbuf();
    absl::StatusOr<LoadedPlan> plan = parsePlan(bytes.str(), false, path);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (const RankProgram &program : plan->ranks)
      for (int64_t count : {1, 2, 3}) {
        SCOPED_TRACE(path + " rank " + std::to_string(program.rank) +
                     ", regst count " + std::to_string(count));
        PlanRun withHost = runRank(program, count, true, steps);
        EXPECT_EQ(withHost.wrong, 0);
        EXPECT_LE(withHost.hostWaits,
                  (withHost.onHost + withHost.nextToHost) * steps);
        PlanRun onStreams = runRank(program, count, false, steps);
        EXPECT_EQ(onStreams.wrong, 0);
        EXPECT_EQ(onStreams.hostWaits, 0);
        if (count == 1)
          std::printf("%s rank %lld: %lld actors, %lld firings per step, "
                      "host waits per step %g (data on the host: %lld "
                      "firings there, %lld beside them), %g (all on "
                      "streams)\n",
                      path.c_str(), static_cast<long long>(program.rank),
                      static_cast<long long>(program.actors.size()),
                      static_cast<long long>(withHost.firings / steps),
                      double(withHost.hostWaits) / steps,
                      static_cast<long long>(withHost.onHost),
                      static_cast<long long>(withHost.nextToHost),
                      double(onStreams.hostWaits) / steps);
      }
  }
}

} // namespace
