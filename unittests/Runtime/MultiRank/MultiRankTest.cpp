//===- MultiRankTest.cpp - Whole plans on several in-process ranks --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A data-parallel matmul with an all-reduce gives on 2-4 ranks what it
// gives on one; runRank on every rank gives rank 0 the same outputs; a rank
// whose kernel fails at step 3, and a rank that never starts, make the
// others stop within the timeout with errors that name the ranks. Ranks
// that outnumber the cores run on one thread each, except pipeline stages.
//
//===----------------------------------------------------------------------===//

#include "ProgramBuilder.h"
#include "RankThreads.h"

#include "ofrt/MultiRank.h"

#include <omp.h>
#include <sched.h>

#include <filesystem>
#include <mutex>
#include <fstream>

using namespace ofrt;
using namespace oftest;

namespace {

std::vector<int64_t> everyRank(int n) {
  std::vector<int64_t> ranks;
  for (int r = 0; r < n; ++r)
    ranks.push_back(r);
  return ranks;
}

/// x: 6x3 S(0) input, w: 3x2 B variable, y = x @ w (S(0)), and
/// s = reduce_sum(y, 0) made B by an all-reduce.
LoadedPlan dataParallelPlan(int n) {
  LoadedPlan plan;
  plan.worldSize = n;
  for (int r = 0; r < n; ++r) {
    ProgramBuilder b(r);
    auto [begin, rows] = part(6, n, r);
    int64_t x = b.add("oneflow.input", "x", {{"name", std::string("x")}}, {},
                      {{DType::F32, {rows, 3}}},
                      PieceLayout{{6, 3}, {begin, 0}, false})[0];
    int64_t w = b.add("oneflow.variable", "w",
                      {{"init", std::string("uniform")},
                       {"init_args", std::vector<double>{-1, 1}}},
                      {}, {{DType::F32, {3, 2}}},
                      PieceLayout{{3, 2}, {0, 0}, false})[0];
    int64_t y = b.add("oneflow.matmul", "mm", {}, {x, w},
                      {{DType::F32, {rows, 2}}})[0];
    int64_t partial = b.add("oneflow.reduce_sum", "sum", {{"axes", Shape{0}}},
                            {y}, {{DType::F32, {2}}})[0];
    int64_t s = b.add("oneflow.all_reduce", "ar", {}, {partial},
                      {{DType::F32, {2}}}, CollectiveLayout{everyRank(n)})[0];
    b.add("oneflow.output", "out_y", {{"name", std::string("y")}}, {y}, {},
          SinkLayout{{{6, 2}, {begin, 0}, false}, false, true});
    b.add("oneflow.output", "out_s", {{"name", std::string("s")}}, {s}, {},
          SinkLayout{{{2}, {0}, false}, false, r == 0});
    plan.ranks.push_back(b.finish());
  }
  return plan;
}

/// Two pipeline stages, two micro-batches: rank 0 sends its variable w to
/// rank 1 once per micro-batch, and rank 1 sums what it gets into y = 2 w.
LoadedPlan pipelinePlan() {
  LoadedPlan plan;
  plan.worldSize = 2;
  TensorDesc desc{DType::F32, {2, 3}};
  PointToPoint piece{0, 0, {0, 0}, {2, 3}};
  ProgramBuilder first(0);
  int64_t w = first.add("oneflow.variable", "w",
                        {{"init", std::string("uniform")},
                         {"init_args", std::vector<double>{-1, 1}}},
                        {}, {desc}, PieceLayout{{2, 3}, {0, 0}, false})[0];
  piece.peer = 1;
  first.add("oneflow.transfer", "send", {}, {w}, {},
            TransferLayout{{0, 1}, {piece}, {}, false});
  ProgramBuilder last(1);
  piece.peer = 0;
  int64_t got = last.add("oneflow.transfer", "recv", {}, {}, {desc},
                         TransferLayout{{0, 1}, {}, {piece}, false})[0];
  int64_t sum = last.add("oneflow.accumulate", "acc",
                         {{"mesh_axis", int64_t(0)}}, {got}, {desc})[0];
  last.add("oneflow.output", "out_y", {{"name", std::string("y")}}, {sum}, {},
           SinkLayout{{{2, 3}, {0, 0}, false}, false, true});
  for (ProgramBuilder *b : {&first, &last}) {
    RankProgram program = b->finish();
    // The transfers and the accumulation fire per micro-batch.
    for (StreamSpec &stream : program.streams) {
      std::vector<int64_t> order;
      for (int64_t id : stream.actors) {
        ActorSpec &actor = program.actors[id];
        bool twice = actor.op.type == "oneflow.transfer" ||
                     actor.op.type == "oneflow.accumulate";
        actor.firingsPerStep = twice ? 2 : 1;
        actor.firingsPerOutput = actor.op.type == "oneflow.accumulate" ? 2 : 1;
        order.insert(order.end(), twice ? 2 : 1, id);
      }
      stream.actors = order;
    }
    plan.ranks.push_back(program);
  }
  return plan;
}

MultiRankOptions options(int64_t steps, std::chrono::milliseconds timeout) {
  MultiRankOptions o;
  o.session.seed = 3;
  o.run.maxSteps = steps;
  o.timeout = timeout;
  return o;
}

void expectNear(const TensorData &a, const TensorData &b) {
  ASSERT_EQ(a.desc, b.desc);
  std::vector<float> x = values(a), y = values(b);
  for (size_t i = 0; i < x.size(); ++i)
    EXPECT_NEAR(x[i], y[i], 1e-5) << "element " << i;
}

TEST(MultiRank, DataParallelMatmulAndAllReduceMatchOneRank) {
  absl::StatusOr<MultiRankResult> one, many;
  withWatchdog([&] { one = runAllRanks(dataParallelPlan(1), options(2, 5s)); });
  ASSERT_TRUE(one.ok()) << one.status();
  for (int n = 2; n <= 4; ++n) {
    withWatchdog(
        [&] { many = runAllRanks(dataParallelPlan(n), options(2, 5s)); });
    ASSERT_TRUE(many.ok()) << many.status();
    ASSERT_EQ(many->ranks.size(), static_cast<size_t>(n));
    for (const RunResult &rank : many->ranks)
      EXPECT_EQ(rank.steps, 2);
    expectNear(many->outputs.at("y"), one->outputs.at("y"));
    expectNear(many->outputs.at("s"), one->outputs.at("s"));
  }
}

// of-run --threads N reaches the kernels through the session's device
// options, on the stream threads of every rank thread.
TEST(MultiRank, KernelsTakeTheSessionsKernelThreads) {
  for (int threads : {1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    std::mutex mutex;
    std::vector<int> seen;
    MultiRankOptions o = options(2, 5s);
    o.session.device.threads = threads;
    o.session.onOutput = [&](int64_t, const std::string &, int64_t,
                             const TensorView &, bool) {
      std::lock_guard<std::mutex> lock(mutex);
      seen.push_back(omp_get_max_threads());
    };
    absl::StatusOr<MultiRankResult> result;
    withWatchdog([&] { result = runAllRanks(dataParallelPlan(2), o); });
    ASSERT_TRUE(result.ok()) << result.status();
    // Two outputs on two ranks for two steps.
    EXPECT_EQ(seen, std::vector<int>(8, threads));
  }
}

TEST(MultiRank, RunRankOnEveryRankGivesRankZeroTheOutputs) {
  LoadedPlan plan = dataParallelPlan(3);
  absl::StatusOr<MultiRankResult> all;
  withWatchdog([&] { all = runAllRanks(plan, options(2, 5s)); });
  ASSERT_TRUE(all.ok()) << all.status();
  std::shared_ptr<Store> store = createInProcessStore();
  std::vector<absl::StatusOr<MultiRankResult>> results(3);
  withWatchdog([&] {
    std::vector<std::thread> threads;
    for (int r = 0; r < 3; ++r)
      threads.emplace_back(
          [&, r] { results[r] = runRank(plan, r, store, options(2, 5s)); });
    for (std::thread &t : threads)
      t.join();
  });
  for (int r = 0; r < 3; ++r)
    ASSERT_TRUE(results[r].ok()) << results[r].status();
  EXPECT_EQ(values(results[0]->outputs.at("y")), values(all->outputs.at("y")));
  EXPECT_EQ(values(results[0]->outputs.at("s")), values(all->outputs.at("s")));
  ASSERT_EQ(results[0]->ranks.size(), 3u);
  for (const RunResult &rank : results[0]->ranks)
    EXPECT_EQ(rank.steps, 2);
  EXPECT_TRUE(results[1]->outputs.empty());
  EXPECT_TRUE(results[2]->outputs.empty());
}

/// Rank r gathers row idx[r] of a 4x3 table, then all ranks all-reduce it.
/// The index file's fourth batch puts 9 on rank 1: its gather fails at
/// step 3 while rank 0 waits in the all-reduce.
TEST(MultiRank, KernelFailureAtStepThreeStopsEveryRank) {
  std::string path =
      (std::filesystem::temp_directory_path() / "multirank-indices.bin")
          .string();
  {
    std::vector<int64_t> batches{0, 1, 1, 2, 2, 3, 0, 9};
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char *>(batches.data()),
               batches.size() * sizeof(int64_t));
  }
  LoadedPlan plan;
  plan.worldSize = 2;
  for (int r = 0; r < 2; ++r) {
    ProgramBuilder b(r);
    int64_t idx = b.add("oneflow.input", "idx", {{"name", std::string("idx")}},
                        {}, {{DType::I64, {1}}},
                        PieceLayout{{2}, {r}, false})[0];
    int64_t table = b.add("oneflow.variable", "table",
                          {{"init", std::string("ones")}}, {},
                          {{DType::F32, {4, 3}}})[0];
    int64_t row = b.add("oneflow.gather", "gather", {}, {table, idx},
                        {{DType::F32, {1, 3}}})[0];
    int64_t sum = b.add("oneflow.all_reduce", "ar", {}, {row},
                        {{DType::F32, {1, 3}}}, CollectiveLayout{everyRank(2)})[0];
    b.add("oneflow.output", "out", {{"name", std::string("y")}}, {sum}, {});
    plan.ranks.push_back(b.finish());
  }
  MultiRankOptions o = options(-1, 2s);
  o.session.inputs["idx"] =
      InputSource{InputSource::Kind::File, 0, 0, 0, path};
  absl::StatusOr<MultiRankResult> result;
  auto start = std::chrono::steady_clock::now();
  withWatchdog([&] { result = runAllRanks(plan, o); });
  auto elapsed = std::chrono::steady_clock::now() - start;
  std::filesystem::remove(path);
  ASSERT_FALSE(result.ok());
  std::string message(result.status().message());
  EXPECT_EQ(message.rfind("rank 1 failed: actor 'gather' (oneflow.gather "
                          "'gather') failed at step 3",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("\nrank 0 stopped: actor 'ar' (oneflow.all_reduce "
                         "'ar') failed at step 3"),
            std::string::npos)
      << message;
  EXPECT_LT(elapsed, std::chrono::milliseconds(2500)) << message;
}

TEST(MultiRank, RankThatNeverStartsFailsTheOthersWithinTheTimeout) {
  LoadedPlan plan = dataParallelPlan(3);
  std::shared_ptr<Store> store = createInProcessStore();
  std::vector<absl::StatusOr<MultiRankResult>> results(2);
  withWatchdog([&] {
    std::vector<std::thread> threads;
    for (int r = 0; r < 2; ++r)
      threads.emplace_back([&, r] {
        results[r] = runRank(plan, r, store, options(2, 300ms));
      });
    for (std::thread &t : threads)
      t.join();
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_FALSE(results[r].ok());
    EXPECT_TRUE(absl::IsDeadlineExceeded(results[r].status()));
    std::string message(results[r].status().message());
    // The ranks compare their plans before the first collective: that is
    // where the missing one is found.
    EXPECT_EQ(message, "rank " + std::to_string(r) +
                           " failed: not every rank joined within 300 ms; "
                           "missing rank(s) 2 (comparing the ranks' plans "
                           "before the first collective)");
  }
}

// Processes that read different plans (each consistent in itself) stop at
// the rendezvous, before any collective combines their different calls.
TEST(MultiRank, ProcessesWithDifferentPlansStopBeforeTheFirstCollective) {
  LoadedPlan plan = dataParallelPlan(2);
  LoadedPlan maxPlan = plan;
  for (RankProgram &program : maxPlan.ranks)
    for (ActorSpec &actor : program.actors)
      if (auto *layout = std::get_if<CollectiveLayout>(&actor.op.layout))
        layout->reduce = ReduceOp::Max;
  std::shared_ptr<Store> store = createInProcessStore();
  std::vector<absl::StatusOr<MultiRankResult>> results(2);
  withWatchdog([&] {
    std::thread other([&] {
      results[1] = runRank(maxPlan, 1, store, options(2, 5000ms));
    });
    results[0] = runRank(plan, 0, store, options(2, 5000ms));
    other.join();
  });
  for (int r = 0; r < 2; ++r) {
    ASSERT_FALSE(results[r].ok());
    std::string message(results[r].status().message());
    EXPECT_EQ(message.rfind("rank " + std::to_string(r) + " failed: rank " +
                                std::to_string(r) + "'s plan and rank " +
                                std::to_string(1 - r) +
                                "'s disagree on their collectives",
                            0),
              0u)
        << message;
  }
}

// On one core, two ranks outnumber the cores: data-parallel ranks drive
// their streams from one thread, but pipeline stages keep a thread per
// stream (on one, a stage waiting for its peer's transfer could not
// compute meanwhile, and the stages would take turns).
TEST(MultiRank, CrowdedRanksShareAThreadExceptPipelineStages) {
  std::vector<int> cores = allowedCores();
  ASSERT_FALSE(cores.empty());
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof(saved), &saved), 0);
  CPU_ZERO(&one);
  CPU_SET(cores[0], &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof(one), &one), 0);
  MultiRankOptions o = options(3, 5s);
  o.session.device.threads = 1;
  o.collectVariables = true;
  absl::StatusOr<MultiRankResult> dp, pipeline;
  withWatchdog([&] {
    dp = runAllRanks(dataParallelPlan(2), o);
    pipeline = runAllRanks(pipelinePlan(), o);
  });
  ASSERT_EQ(sched_setaffinity(0, sizeof(saved), &saved), 0);
  ASSERT_TRUE(dp.ok()) << dp.status();
  ASSERT_TRUE(pipeline.ok()) << pipeline.status();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(dp->ranks[r].threads, 1) << "rank " << r;
    EXPECT_GT(pipeline->ranks[r].threads, 1) << "rank " << r;
  }
  std::vector<float> w = values(pipeline->variables.at("w")),
                     y = values(pipeline->outputs.at("y"));
  ASSERT_EQ(y.size(), w.size());
  for (size_t i = 0; i < w.size(); ++i)
    EXPECT_FLOAT_EQ(y[i], 2 * w[i]) << "element " << i;
  // With cores enough (or auto off), a thread per stream.
  o.autoStreamThreads = false;
  withWatchdog([&] { dp = runAllRanks(dataParallelPlan(2), o); });
  ASSERT_TRUE(dp.ok()) << dp.status();
  EXPECT_EQ(dp->ranks[0].threads, 2); // compute and collective
}

TEST(MultiRank, PlansMustListRanksInOrderAndCollectivesNeedAPool) {
  LoadedPlan plan = dataParallelPlan(2);
  plan.worldSize = 3;
  EXPECT_EQ(runAllRanks(plan, options(1, 1s)).status().message(),
            "the plan's world size is 3 but it has 2 rank plans");
  plan.worldSize = 2;
  std::swap(plan.ranks[0], plan.ranks[1]);
  EXPECT_EQ(runAllRanks(plan, options(1, 1s)).status().message(),
            "rank plan 0 is for rank 1; ranks must be listed as 0 .. world "
            "size - 1");
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::create(dataParallelPlan(1).ranks[0], {});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "cannot create the kernel of actor 'ar' (oneflow.all_reduce "
            "'ar'): oneflow.all_reduce 'ar' talks to other ranks but the "
            "session has no communicators (run the plan on all its ranks)");
}

} // namespace
