//===- RandomPlansTest.cpp - 1,000 random DAG plans finish correctly ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include <gtest/gtest.h>

#include <future>
#include <random>

using namespace ofrt;
using namespace ofrt::test;

namespace {

struct RandomPlan {
  ProgramBuilder builder;
  std::vector<std::vector<int64_t>> inputsOf; ///< Producer actor ids.
};

/// A random DAG of 2 to 12 actors over 1 to 3 streams, with random regst
/// counts and fan-in, and stream orders that follow a random topological
/// order.
RandomPlan makePlan(std::mt19937 &rng) {
  auto pick = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  RandomPlan plan;
  int n = pick(2, 12), streams = pick(1, 3);
  for (int i = 0; i < n; ++i) {
    std::vector<int64_t> producers, regsts;
    for (int j = 0; j < i; ++j)
      if (pick(0, 3) == 0) {
        producers.push_back(j);
        regsts.push_back(plan.builder.out(j));
      }
    // The actor's order on its stream is its index: a topological order.
    plan.builder.actor("a" + std::to_string(i),
                       "s" + std::to_string(pick(0, streams - 1)), regsts, 1,
                       pick(1, 3));
    plan.inputsOf.push_back(producers);
  }
  // Outputs nobody reads would make the actor end at once: give every
  // actor without consumers a sink.
  for (int i = 0; i < n; ++i) {
    const RegstSpec &out =
        plan.builder.program.regsts[plan.builder.out(i)];
    if (out.consumers.empty())
      plan.builder.actor("sink" + std::to_string(i),
                         "s" + std::to_string(pick(0, streams - 1)),
                         {plan.builder.out(i)}, 0);
  }
  return plan;
}

TEST(Engine, ThousandRandomPlansFinishWithSerialResults) {
  std::mt19937 rng(2024);
  for (int trial = 0; trial < 1000; ++trial) {
    RandomPlan plan = makePlan(rng);
    const int64_t steps = 1 + trial % 5;
    std::map<int64_t, std::map<int64_t, int64_t>> sinks;
    std::mutex mutex;
    KernelProvider provider =
        [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<SumKernel>(
          actor.id, nullptr, 0,
          actor.outputs.empty() ? &sinks[actor.id] : nullptr, &mutex);
    };
    auto engine = Engine::create(plan.builder.program, test::cpuDevice(), provider);
    ASSERT_TRUE(engine.ok()) << engine.status();
    // A deadlock fails the test instead of hanging it.
    auto future = std::async(std::launch::async, [&] {
      return (*engine)->run({steps, false});
    });
    if (future.wait_for(std::chrono::seconds(20)) !=
        std::future_status::ready) {
      ADD_FAILURE() << "plan " << trial << " did not finish";
      std::_Exit(1);
    }
    absl::StatusOr<RunResult> result = future.get();
    ASSERT_TRUE(result.ok()) << result.status();
    ASSERT_EQ(result->steps, steps) << "plan " << trial;

    // The serial reference: value(i, s) = 1000 s + i + sum of inputs.
    const RankProgram &program = plan.builder.program;
    for (int64_t s = 0; s < steps; ++s) {
      std::vector<int64_t> value(program.actors.size());
      for (const ActorSpec &actor : program.actors) {
        int64_t v = 1000 * s + actor.id;
        for (int64_t regst : actor.inputs)
          v += value[program.regsts[regst].producer];
        value[actor.id] = v;
        if (actor.outputs.empty())
          ASSERT_EQ(sinks[actor.id][s], v)
              << "plan " << trial << ", actor " << actor.id << ", step " << s;
      }
    }
  }
}

} // namespace
