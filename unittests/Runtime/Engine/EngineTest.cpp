//===- EngineTest.cpp - Firing rule, back-pressure, end of data, errors ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "../Watchdog.h"
#include "TestPrograms.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

using namespace ofrt;
using namespace ofrt::test;

namespace {

/// Firings of `actor`, by step.
std::vector<Firing> firingsOf(const RunResult &result, int64_t actor) {
  std::vector<Firing> out;
  for (const Firing &f : result.firings)
    if (f.actor == actor)
      out.push_back(f);
  std::sort(out.begin(), out.end(),
            [](const Firing &a, const Firing &b) { return a.step < b.step; });
  return out;
}

KernelProvider sums(std::map<int64_t, int64_t> *sink = nullptr,
                    std::mutex *mutex = nullptr,
                    std::map<int64_t, int64_t> sleepUs = {}) {
  return [=](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    bool isSink = actor.outputs.empty();
    int64_t sleep = sleepUs.count(actor.id) ? sleepUs.at(actor.id) : 0;
    return std::make_unique<SumKernel>(actor.id, nullptr, sleep,
                                       isSink ? sink : nullptr, mutex);
  };
}

TEST(Engine, ChainOnOneStreamFiresInOrderWithCorrectValues) {
  ProgramBuilder b;
  int64_t a = b.actor("a", "compute", {});
  int64_t c = b.actor("b", "compute", {b.out(a)});
  b.actor("sink", "compute", {b.out(c)}, 0);
  std::map<int64_t, int64_t> sink;
  std::mutex mutex;
  auto engine = Engine::create(b.program, test::cpuDevice(), sums(&sink, &mutex));
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto result = (*engine)->run({/*maxSteps=*/4, /*recordFirings=*/true});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->steps, 4);
  ASSERT_EQ(result->firings.size(), 12u);
  // One stream: a, b, sink for step 0, then step 1, ...
  for (size_t i = 0; i < result->firings.size(); ++i) {
    EXPECT_EQ(result->firings[i].actor, static_cast<int64_t>(i % 3));
    EXPECT_EQ(result->firings[i].step, static_cast<int64_t>(i / 3));
  }
  // sink(s) = 3000s + 2 + (1000s + 1 + (1000s + 0)).
  for (int64_t s = 0; s < 4; ++s)
    EXPECT_EQ(sink[s], 3000 * s + 3);
}

TEST(Engine, CountOneProducerStaysOneStepAhead) {
  ProgramBuilder b;
  int64_t p = b.actor("producer", "p", {}, 1, /*count=*/1);
  int64_t c = b.actor("consumer", "c", {b.out(p)}, 0);
  auto engine = Engine::create(b.program, test::cpuDevice(), sums(nullptr, nullptr, {{c, 2000}}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto result = (*engine)->run({8, true});
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<Firing> ps = firingsOf(*result, p), cs = firingsOf(*result, c);
  ASSERT_EQ(ps.size(), 8u);
  ASSERT_EQ(cs.size(), 8u);
  // The producer writes step s only after the consumer returned step s - 1.
  for (size_t s = 1; s < ps.size(); ++s)
    EXPECT_GE(ps[s].startUs, cs[s - 1].endUs) << "step " << s;
}

TEST(Engine, CountTwoLetsNeighboursOverlap) {
  ProgramBuilder b;
  int64_t p = b.actor("producer", "p", {}, 1, /*count=*/2);
  int64_t c = b.actor("consumer", "c", {b.out(p)}, 0);
  auto engine =
      Engine::create(b.program, test::cpuDevice(), sums(nullptr, nullptr, {{p, 3000}, {c, 3000}}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto result = (*engine)->run({8, true});
  ASSERT_TRUE(result.ok()) << result.status();
  std::vector<Firing> ps = firingsOf(*result, p), cs = firingsOf(*result, c);
  int overlaps = 0;
  for (size_t s = 1; s < ps.size(); ++s) {
    // Never more than two steps ahead...
    if (s >= 2)
      EXPECT_GE(ps[s].startUs, cs[s - 2].endUs) << "step " << s;
    // ...and the producer computes step s while the consumer reads s - 1.
    overlaps += ps[s].startUs < cs[s - 1].endUs;
  }
  EXPECT_GE(overlaps, 4);
}

// Threads per kernel are the CPU device's business: every stream thread
// gets DeviceOptions::threads as its OpenMP count, whatever the caller's.
TEST(Engine, StreamThreadsTakeTheDevicesKernelThreads) {
  ProgramBuilder b;
  int64_t a = b.actor("a", "s0", {});
  b.actor("sink", "s1", {b.out(a)}, 0);
  std::mutex mutex;
  std::vector<int> seen;
  KernelProvider provider =
      [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    return std::make_unique<SumKernel>(actor.id, [&](int64_t) {
      std::lock_guard<std::mutex> lock(mutex);
      seen.push_back(omp_get_max_threads());
      return absl::OkStatus();
    });
  };
  int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  for (int threads : {1, 3}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    seen.clear();
    DeviceOptions options;
    options.threads = threads;
    std::shared_ptr<Device> device(*createDevice(DeviceKind::Cpu, 0, options));
    auto engine = Engine::create(b.program, device, provider);
    ASSERT_TRUE(engine.ok()) << engine.status();
    ASSERT_TRUE((*engine)->run({/*maxSteps=*/2, false}).ok());
    EXPECT_EQ(seen, std::vector<int>(4, threads));
  }
  omp_set_num_threads(saved);
}

TEST(Engine, EndOfDataFromASourceStopsEveryActor) {
  ProgramBuilder b;
  int64_t data = b.actor("data", "io", {});
  int64_t weights = b.actor("weights", "compute", {}); // never runs dry
  int64_t add = b.actor("add", "compute", {b.out(data), b.out(weights)});
  b.actor("sink", "compute", {b.out(add)}, 0);
  std::map<int64_t, int64_t> sink;
  std::mutex mutex;
  KernelProvider provider =
      [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    SumKernel::Hook hook;
    if (actor.id == data)
      hook = [](int64_t step) {
        return step < 5 ? absl::OkStatus()
                        : absl::OutOfRangeError("end of data");
      };
    return std::make_unique<SumKernel>(
        actor.id, hook, 0, actor.outputs.empty() ? &sink : nullptr, &mutex);
  };
  auto engine = Engine::create(b.program, test::cpuDevice(), provider);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto result = (*engine)->run({/*maxSteps=*/-1, false});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->steps, 5);
  EXPECT_EQ(sink.size(), 5u);
  EXPECT_EQ(sink[4], 4000 * 4 + 0 + 1 + 2 + 3);
}

TEST(Engine, AFailingKernelStopsEveryStreamAndNamesTheActor) {
  ProgramBuilder b;
  int64_t src = b.actor("src", "s0", {}, 1, 2);
  int64_t mid = b.actor("mid", "s1", {b.out(src)}, 1, 2);
  int64_t other = b.actor("other", "s2", {}, 1, 1);
  b.actor("sink", "s3", {b.out(mid), b.out(other)}, 0);
  std::atomic<int> otherFirings{0};
  KernelProvider provider =
      [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    SumKernel::Hook hook;
    if (actor.id == mid)
      hook = [](int64_t step) {
        return step == 3 ? absl::InvalidArgumentError("index 7 out of range")
                         : absl::OkStatus();
      };
    if (actor.id == other)
      hook = [&](int64_t) {
        ++otherFirings;
        return absl::OkStatus();
      };
    return std::make_unique<SumKernel>(actor.id, hook, 100);
  };
  auto engine = Engine::create(b.program, test::cpuDevice(), provider);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto result = (*engine)->run({/*maxSteps=*/-1, false});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "actor 'mid' (test.mid 'mid' at test.mlir:2:1) failed at step 3: "
            "index 7 out of range");
  // The unbounded source was stopped too (within a few steps).
  EXPECT_LT(otherFirings.load(), 10);
}

TEST(Engine, KernelCreationErrorNamesTheActor) {
  ProgramBuilder b;
  b.actor("conv", "compute", {}, 1);
  auto engine = Engine::create(b.program, test::cpuDevice(),
      [](const ActorSpec &) -> absl::StatusOr<std::unique_ptr<Kernel>> {
        return absl::InvalidArgumentError("groups must divide channels");
      });
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().message(),
            "cannot create the kernel of actor 'conv' (test.conv 'conv' at "
            "test.mlir:1:1): groups must divide channels");
}

TEST(Engine, ChromeTraceHasOneEventPerFiring) {
  ProgramBuilder b;
  int64_t a = b.actor("a", "compute", {});
  b.actor("sink", "io", {b.out(a)}, 0);
  auto engine = Engine::create(b.program, test::cpuDevice(), sums());
  ASSERT_TRUE(engine.ok());
  auto result = (*engine)->run({3, true});
  ASSERT_TRUE(result.ok());
  std::string path = ::testing::TempDir() + "/engine-trace.json";
  ASSERT_TRUE(writeChromeTrace(b.program, result->firings, path).ok());
  std::FILE *f = std::fopen(path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(1 << 16, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  size_t events = 0;
  for (size_t at = text.find("\"ph\":\"X\""); at != std::string::npos;
       at = text.find("\"ph\":\"X\"", at + 1))
    ++events;
  EXPECT_EQ(events, 6u);
  EXPECT_NE(text.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(text.find("\"thread_name\""), std::string::npos);
  EXPECT_FALSE(
      writeChromeTrace(b.program, result->firings, "/nonexistent/dir/t.json")
          .ok());
}

// A step's load: the compute stream's busy time (other streams do not
// count) and the end of the step's last firing on any stream; firings past
// the steps asked for are left out.
TEST(Engine, StepLoadsSumTheComputeStreamAndEndAtTheLastFiring) {
  ProgramBuilder b;
  int64_t a = b.actor("a", "compute", {});
  int64_t reduce = b.actor("reduce", "collective", {b.out(a)});
  int64_t sink = b.actor("sink", "compute", {b.out(reduce)}, 0);
  std::vector<Firing> firings = {
      {a, 0, 0, 10},  {reduce, 0, 10, 40},  {sink, 0, 40, 45},
      {a, 1, 20, 35}, {reduce, 1, 40, 70},  {sink, 1, 70, 72},
      {a, 2, 50, 60}, {reduce, 2, 70, 100}, {sink, 2, 100, 101}};
  std::vector<StepLoad> loads = stepLoads(b.program, firings, 2);
  ASSERT_EQ(loads.size(), 2u);
  EXPECT_DOUBLE_EQ(loads[0].computeUs, 15);
  EXPECT_DOUBLE_EQ(loads[0].endUs, 45);
  EXPECT_DOUBLE_EQ(loads[1].computeUs, 17);
  EXPECT_DOUBLE_EQ(loads[1].endUs, 72);

  // A run that records its firings returns their loads.
  auto engine = Engine::create(b.program, test::cpuDevice(),
                               sums(nullptr, nullptr, {{a, 500}}));
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto result = (*engine)->run({4, true});
  ASSERT_TRUE(result.ok()) << result.status();
  ASSERT_EQ(result->stepLoads.size(), 4u);
  for (size_t s = 0; s < 4; ++s) {
    EXPECT_GE(result->stepLoads[s].computeUs, 500) << "step " << s;
    if (s > 0)
      EXPECT_GT(result->stepLoads[s].endUs, result->stepLoads[s - 1].endUs);
  }
  auto quiet = Engine::create(b.program, test::cpuDevice(), sums());
  ASSERT_TRUE(quiet.ok()) << quiet.status();
  auto unrecorded = (*quiet)->run({2, false});
  ASSERT_TRUE(unrecorded.ok()) << unrecorded.status();
  EXPECT_TRUE(unrecorded->stepLoads.empty());
}

} // namespace

namespace {

// DeviceOptions::oneStreamThread: every stream of the rank on one thread.
// Each stream still runs in its own order, data crossing streams in both
// directions, and the values are those of a thread per stream.
TEST(Engine, OneThreadDrivesEveryStreamInItsOwnOrder) {
  ProgramBuilder b;
  int64_t source = b.actor("source", "io", {}, 1, /*count=*/2);
  int64_t first = b.actor("first", "compute", {b.out(source)});
  int64_t reduce = b.actor("reduce", "collective", {b.out(first)});
  int64_t second = b.actor("second", "compute", {b.out(reduce)});
  b.actor("sink", "compute", {b.out(second)}, 0);
  for (bool one : {false, true}) {
    SCOPED_TRACE(one ? "one thread" : "a thread per stream");
    DeviceOptions options;
    options.oneStreamThread = one;
    std::shared_ptr<Device> device(*createDevice(DeviceKind::Cpu, 0, options));
    EXPECT_EQ(device->oneStreamThread(), one);
    std::map<int64_t, int64_t> sink;
    std::mutex mutex;
    std::set<std::thread::id> threads;
    KernelProvider provider =
        [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      return std::make_unique<SumKernel>(
          actor.id,
          [&](int64_t) {
            std::lock_guard<std::mutex> lock(mutex);
            threads.insert(std::this_thread::get_id());
            return absl::OkStatus();
          },
          0, actor.outputs.empty() ? &sink : nullptr, &mutex);
    };
    auto engine = Engine::create(b.program, device, provider);
    ASSERT_TRUE(engine.ok()) << engine.status();
    auto result = (*engine)->run({/*maxSteps=*/5, /*recordFirings=*/true});
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->steps, 5);
    EXPECT_EQ(threads.size(), one ? 1u : 3u);
    // Five actors each add 1000s + their id: sink(s) = 5000s + 10.
    for (int64_t s = 0; s < 5; ++s)
      EXPECT_EQ(sink[s], 5000 * s + 10) << "step " << s;
    // Within each stream, firings follow the stream order step by step.
    for (int64_t actor : {first, second})
      EXPECT_EQ(firingsOf(*result, actor).size(), 5u);
    std::vector<Firing> sources = firingsOf(*result, source);
    ASSERT_EQ(sources.size(), 5u);
  }
}

} // namespace

namespace {

// DeviceOptions::cores: the CPU device runs the kernels of its threads on
// those cores only, and gives the thread its old cores back after the run.
TEST(Engine, CpuDeviceKeepsItsThreadsOnItsCores) {
  cpu_set_t allowed;
  ASSERT_EQ(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
  int last = -1;
  for (int core = 0; core < CPU_SETSIZE; ++core)
    if (CPU_ISSET(core, &allowed))
      last = core;
  ASSERT_GE(last, 0);
  ProgramBuilder b;
  int64_t a = b.actor("a", "s0", {});
  b.actor("sink", "s1", {b.out(a)}, 0);
  DeviceOptions options;
  options.cores = {last};
  std::shared_ptr<Device> device(*createDevice(DeviceKind::Cpu, 0, options));
  std::mutex mutex;
  std::set<int> seen;
  KernelProvider provider =
      [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    return std::make_unique<SumKernel>(actor.id, [&](int64_t) {
      std::lock_guard<std::mutex> lock(mutex);
      seen.insert(sched_getcpu());
      return absl::OkStatus();
    });
  };
  auto engine = Engine::create(b.program, device, provider);
  ASSERT_TRUE(engine.ok()) << engine.status();
  ASSERT_TRUE((*engine)->run({/*maxSteps=*/20, false}).ok());
  EXPECT_EQ(seen, std::set<int>{last});
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&allowed, &after));
}

} // namespace

namespace {

// A plan whose stream order and buffer counts deadlock (an actor firing
// twice per step listed twice before its consumer, one buffer between
// them, memory shared so the stream keeps its order) fails within seconds,
// naming the actors that wait and what for, instead of hanging.
TEST(Engine, AStalledPlanFailsNamingTheWaitingActors) {
  ProgramBuilder b;
  int64_t producer = b.actor("producer", "compute", {}, 1, /*count=*/1);
  int64_t consumer = b.actor("consumer", "compute", {b.out(producer)});
  b.actor("sink", "compute", {b.out(consumer)}, 0);
  RankProgram &program = b.program;
  program.actors[producer].firingsPerStep = 2;
  program.actors[consumer].firingsPerStep = 2;
  program.actors[2].firingsPerStep = 2;
  // [producer, producer, consumer, consumer, sink, sink]: the second
  // producer firing needs the buffer the first consumer firing returns.
  program.streams[0].actors = {producer, producer, consumer, consumer, 2, 2};
  for (RegstSpec &regst : program.regsts)
    regst.offset = 0;
  program.arenaBytes = 64;
  oftest::withWatchdog([&] {
    auto engine = Engine::create(program, test::cpuDevice(), sums());
    ASSERT_TRUE(engine.ok()) << engine.status();
    auto result = (*engine)->run({/*maxSteps=*/3});
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().code(), absl::StatusCode::kInternal);
    std::string message(result.status().message());
    EXPECT_NE(message.find("rank 0: no actor can fire any more"),
              std::string::npos)
        << message;
    EXPECT_NE(
        message.find(
            "actor 'producer' (test.producer 'producer' at test.mlir:1:1) at "
            "firing 1 "
            "waits for 'consumer' to return item 0 of regst 0 "
            "(1 buffers)"),
        std::string::npos)
        << message;
  });
}

// Ctrl-C: held, sources begin no step past the frontier and wait (longer
// than the stall watchdog's second, which must not fire); released with a
// higher limit (another process had begun more steps), they resume and end
// exactly there, every source with as many steps.
TEST(Engine, AStepGateHoldsSourcesAndEndsEveryOneAtTheAgreedStep) {
  ProgramBuilder b;
  int64_t p = b.actor("p", "p", {}, 1, /*count=*/3);
  int64_t q = b.actor("q", "q", {}, 1, /*count=*/2);
  int64_t sink = b.actor("sink", "compute", {b.out(p), b.out(q)}, 0);
  oftest::withWatchdog([&] {
    auto engine = Engine::create(b.program, test::cpuDevice(),
                                 sums(nullptr, nullptr, {{sink, 500}}));
    ASSERT_TRUE(engine.ok()) << engine.status();
    StepGate gate;
    int64_t frontier = -1;
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      frontier = gate.hold();
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      EXPECT_EQ(gate.frontier(), frontier) << "a source passed the hold";
      gate.release(frontier + 2);
    });
    RunOptions options;
    options.recordFirings = true;
    options.gate = &gate;
    auto result = (*engine)->run(options);
    stopper.join();
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_GT(frontier, 0);
    EXPECT_EQ(result->steps, frontier + 2);
    EXPECT_EQ(firingsOf(*result, p).size(), size_t(frontier + 2));
    EXPECT_EQ(firingsOf(*result, q).size(), size_t(frontier + 2));
  });
}

} // namespace
