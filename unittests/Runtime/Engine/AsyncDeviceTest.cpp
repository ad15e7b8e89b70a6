//===- AsyncDeviceTest.cpp - The engine on a device that finishes later ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The engine on the fake asynchronous device of FakeAsyncDevice.h: values
// read are those of their step although consumers are told at enqueue and
// completions arrive late and shuffled; host waits happen only next to
// kernels that run on the host; and a stream that skips the waits the
// engine asks for is caught by the values it reads.
//
//===----------------------------------------------------------------------===//

#include "FakeAsyncDevice.h"
#include "TestPrograms.h"

#include <gtest/gtest.h>

using namespace ofrt;
using namespace ofrt::test;

namespace {

/// Checks that each input holds its producer's value for this step, then
/// writes step * 1000 + id + sum(inputs) to every output: in work enqueued
/// on the stream, or with `onHost` in compute() itself.
class AsyncSumKernel : public Kernel {
public:
  AsyncSumKernel(int64_t id, std::vector<int64_t> producers,
                 std::atomic<int64_t> *wrong, std::atomic<int64_t> *sinkSum,
                 bool onHost = false)
      : id(id), producers(std::move(producers)), wrong(wrong),
        sinkSum(sinkSum), onHost(onHost) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    int64_t step = context.step;
    std::vector<int64_t *> in, out;
    for (const TensorView &view : inputs)
      in.push_back(view.as<int64_t>());
    for (const TensorView &view : outputs)
      out.push_back(view.as<int64_t>());
    Work work = [=] {
      int64_t value = step * 1000 + id;
      for (size_t i = 0; i < in.size(); ++i) {
        int64_t seen = *in[i];
        // Chains of these kernels: each producer p wrote 1000 * step * n_p
        // + ...; the consumer knows its producer's value from the step.
        if (seen != expected(producers[i], step))
          ++*wrong;
        value += seen;
      }
      for (int64_t *o : out)
        *o = value;
      if (out.empty())
        *sinkSum += value;
    };
    runOrEnqueue(context, onHost, std::move(work));
    return absl::OkStatus();
  }
  bool runsOnHost() const override { return onHost; }

  /// What actor `actor` of the chain 0 -> 1 -> ... writes at `step`.
  static int64_t expected(int64_t actor, int64_t step) {
    int64_t value = 0;
    for (int64_t a = 0; a <= actor; ++a)
      value += step * 1000 + a;
    return value;
  }

private:
  int64_t id;
  std::vector<int64_t> producers;
  std::atomic<int64_t> *wrong, *sinkSum;
  bool onHost;
};

/// A chain 0 -> 1 -> ... built with `b`, run on `device` for `steps`
/// steps with AsyncSumKernels (those in `onHost` run on the host).
struct ChainRun {
  std::atomic<int64_t> wrong{0}, sinkSum{0};
  absl::StatusOr<RunResult> result = absl::UnknownError("not run");
  int64_t streamWaits = 0;

  void run(const ProgramBuilder &b, FakeDevice &device,
           std::shared_ptr<FakeDevice> shared, int64_t steps,
           std::set<int64_t> onHost = {}) {
    KernelProvider provider =
        [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      std::vector<int64_t> producers;
      for (int64_t regst : actor.inputs)
        producers.push_back(b.program.regsts[regst].producer);
      return std::make_unique<AsyncSumKernel>(actor.id, producers, &wrong,
                                              &sinkSum,
                                              onHost.count(actor.id) != 0);
    };
    auto engine = Engine::create(b.program, shared, provider);
    ASSERT_TRUE(engine.ok()) << engine.status();
    result = (*engine)->run({steps, /*recordFirings=*/true});
    streamWaits = device.streamWaits();
    device.deliverer.drain();
  }
  /// Whether the sink (the last of `actors`) saw every step's right sum.
  bool sinkRight(int64_t actors, int64_t steps) const {
    int64_t want = 0;
    for (int64_t s = 0; s < steps; ++s)
      want += AsyncSumKernel::expected(actors - 1, s);
    return sinkSum.load() == want;
  }
};

/// a (s0) -> m (s1) -> n (s0) -> sink (s2), actors 0 to 3, regsts of
/// `count` buffers.
ProgramBuilder crossStreamChain(int64_t count) {
  ProgramBuilder b;
  b.program.device = DeviceKind::Cuda;
  int64_t a = b.actor("a", "s0", {}, 1, count);
  int64_t m = b.actor("m", "s1", {b.out(a)}, 1, count);
  int64_t n = b.actor("n", "s0", {b.out(m)}, 1, count);
  b.actor("sink", "s2", {b.out(n)}, 0);
  return b;
}

// A chain of four actors over three streams, regsts of one to three
// buffers: every value read is the one written for that step (no consumer
// reads before its producer's work is done, no producer overwrites a buffer
// a consumer has not finished with), for every step, although consumers
// and producers are told at enqueue, ordered only by the streams' waits
// for each other's events, and completions arrive late and out of order.
// The host never waits.
TEST(AsyncDevice, ConsumersReadOnlyFinishedWorkAndBackPressureHolds) {
  for (int64_t count : {1, 2, 3}) {
    SCOPED_TRACE("regst count " + std::to_string(count));
    ProgramBuilder b = crossStreamChain(count);
    const int64_t a = 0, m = 1, n = 2;
    auto device = std::make_shared<FakeDevice>();
    ChainRun run;
    const int64_t steps = 40;
    run.run(b, *device, device, steps);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    EXPECT_EQ(run.result->steps, steps);
    EXPECT_EQ(run.wrong.load(), 0);
    EXPECT_TRUE(run.sinkRight(4, steps));
    EXPECT_GT(device->deliverer.outOfOrder(), 0);
    EXPECT_EQ(run.result->firings.size(), static_cast<size_t>(4 * steps));
    EXPECT_EQ(run.result->hostWaits, 0);
    // Each cross-stream read and rewrite waited for an event.
    EXPECT_GT(run.streamWaits, 0);
    // The host ran ahead of the device: a producer's firing for step
    // s + count was enqueued before its consumer's step s had finished.
    std::map<std::pair<int64_t, int64_t>, Firing> byActorStep;
    for (const Firing &f : run.result->firings)
      byActorStep[{f.actor, f.step}] = f;
    int64_t ahead = 0;
    for (auto [producer, consumer] :
         {std::pair<int64_t, int64_t>{a, m}, {m, n}})
      for (int64_t s = 0; s + count < steps; ++s)
        ahead += byActorStep[std::make_pair(producer, s + count)].startUs <
                 byActorStep[std::make_pair(consumer, s)].endUs;
    EXPECT_GT(ahead, 0);
  }
}

// Eight actors on one stream: stream order alone keeps every value right,
// so the host never waits and no stream waits for an event.
TEST(AsyncDevice, ChainOnOneStreamRunsWithoutHostWaits) {
  for (int64_t count : {1, 2, 3}) {
    SCOPED_TRACE("regst count " + std::to_string(count));
    ProgramBuilder b;
    b.program.device = DeviceKind::Cuda;
    int64_t last = b.actor("a0", "s", {}, 1, count);
    for (int i = 1; i < 7; ++i)
      last = b.actor("a" + std::to_string(i), "s", {b.out(last)}, 1, count);
    b.actor("sink", "s", {b.out(last)}, 0);
    auto device = std::make_shared<FakeDevice>();
    ChainRun run;
    const int64_t steps = 30;
    run.run(b, *device, device, steps);
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    EXPECT_EQ(run.result->steps, steps);
    EXPECT_EQ(run.wrong.load(), 0);
    EXPECT_TRUE(run.sinkRight(8, steps));
    EXPECT_EQ(run.result->hostWaits, 0);
    EXPECT_EQ(run.streamWaits, 0);
  }
}

// A kernel that runs on the host between two that run on streams: it
// reads only what the host saw finish, and its producer (a stream kernel)
// waits for the host; its consumer's return goes to it only once the host
// saw the read done. Those firings, and only those, are host waits.
TEST(AsyncDevice, HostKernelsWaitForTheHost) {
  for (int64_t count : {1, 2, 3}) {
    SCOPED_TRACE("regst count " + std::to_string(count));
    ProgramBuilder b = crossStreamChain(count);
    const int64_t a = 0, h = 1, n = 2;
    auto device = std::make_shared<FakeDevice>();
    ChainRun run;
    const int64_t steps = 30;
    run.run(b, *device, device, steps, {h});
    ASSERT_TRUE(run.result.ok()) << run.result.status();
    EXPECT_EQ(run.wrong.load(), 0);
    EXPECT_TRUE(run.sinkRight(4, steps));
    // a's Ready to h and n's Returned to h wait for the host.
    EXPECT_EQ(run.result->hostWaits, 2 * steps);
    for (const Firing &f : run.result->firings)
      EXPECT_EQ(f.hostWait, f.actor == a || f.actor == n)
          << "actor " << f.actor << " step " << f.step;
  }
}

// A kernel on the host writes at once, not in stream order: where the
// memory plan gives its regst the memory of an earlier regst of its stream
// (p -> c, then h -> d, one arena buffer), it first waits for the stream,
// whose work may still read that memory (a host wait each firing, as is
// each return of d's reads to h).
TEST(AsyncDevice, HostWritesToSharedMemoryWaitForTheStream) {
  ProgramBuilder b;
  b.program.device = DeviceKind::Cuda;
  int64_t p = b.actor("p", "s", {}, 1, 1);
  b.actor("c", "s", {b.out(p)}, 0);
  int64_t h = b.actor("h", "s", {}, 1, 1);
  b.actor("d", "s", {b.out(h)}, 0);
  b.program.arenaBytes = 64;
  b.program.regsts[b.out(p)].offset = 0;
  b.program.regsts[b.out(h)].offset = 0;
  auto device = std::make_shared<FakeDevice>();
  device->maxDelayUs = {{"s", 1000}};
  std::atomic<int64_t> wrong{0};
  auto onHost = [h](const ActorSpec &actor) { return actor.id == h; };
  auto engine = Engine::create(b.program, device,
                               stampKernels(b.program, onHost, &wrong));
  ASSERT_TRUE(engine.ok()) << engine.status();
  const int64_t steps = 20;
  auto result = (*engine)->run({steps, false});
  ASSERT_TRUE(result.ok()) << result.status();
  device->deliverer.drain();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(result->hostWaits, 2 * steps);
}

/// The wrong values read by a -> m -> sink, with `a` on stream `first`,
/// `m` and the sink on `second`, regsts of one buffer, when the slow
/// stream's items take up to 2 ms and the fast one ignores the engine's
/// waits for events.
int64_t wrongWithoutWaits(const std::string &first,
                          const std::string &second) {
  ProgramBuilder b;
  b.program.device = DeviceKind::Cuda;
  int64_t a = b.actor("a", first, {}, 1, 1);
  int64_t m = b.actor("m", second, {b.out(a)}, 1, 1);
  b.actor("sink", second, {b.out(m)}, 0);
  auto device = std::make_shared<FakeDevice>();
  device->maxDelayUs = {{"slow", 2000}, {"fast", 0}};
  device->ignoreWaitsOn = {"fast"};
  ChainRun run;
  run.run(b, *device, device, 20);
  EXPECT_TRUE(run.result.ok()) << run.result.status();
  return run.wrong.load();
}

// The engine's waits are what keeps the values right: a consumer's stream
// that does not wait for its producer's event (Ready across streams taken
// as enough) reads values of the wrong step.
TEST(AsyncDevice, ReadingAcrossStreamsWithoutTheWaitIsCaught) {
  EXPECT_GT(wrongWithoutWaits("slow", "fast"), 0);
}

// And a producer's stream that does not wait for its consumer's read (a
// return across streams taken as enough) overwrites the buffer before the
// consumer read it.
TEST(AsyncDevice, RewritingAcrossStreamsWithoutTheWaitIsCaught) {
  EXPECT_GT(wrongWithoutWaits("fast", "slow"), 0);
}

/// What a GPU does after a kernel fails: its streams synchronize at once,
/// but the callbacks of work still in flight come later, from CUDA's
/// thread. The first completion fails; every other one arrives 30 ms later.
struct LateCompletions {
  std::atomic<bool> failed{false}, returned{false};
  std::atomic<int64_t> late{0}, delivered{0};
  std::mutex mutex;
  std::vector<std::thread> threads;

  ~LateCompletions() {
    for (std::thread &thread : threads)
      thread.join();
  }
};

class LateEvent : public Event {
public:
  explicit LateEvent(LateCompletions &state) : state(state) {}
  bool query() override { return false; }
  absl::Status wait() override { return absl::OkStatus(); }
  bool notify(CompletionSink &sink, uint64_t token) override {
    bool first = !state.failed.exchange(true);
    std::lock_guard<std::mutex> lock(state.mutex);
    // The thread may outlive the event (it goes with the engine).
    LateCompletions *shared = &state;
    state.threads.emplace_back([shared, &sink, token, first] {
      std::this_thread::sleep_for(std::chrono::milliseconds(first ? 1 : 30));
      if (shared->returned.load())
        ++shared->late;
      sink.complete(token, first ? absl::InternalError("the kernel faulted")
                                 : absl::OkStatus());
      ++shared->delivered;
    });
    return true;
  }

private:
  LateCompletions &state;
};

class NullStream : public Stream {
public:
  const std::string &name() const override { return streamName; }
  absl::Status record(Event &) override { return absl::OkStatus(); }
  absl::Status waitFor(Event &) override { return absl::OkStatus(); }
  absl::Status synchronize() override { return absl::OkStatus(); }

private:
  std::string streamName = "s";
};

class LateDevice : public FakeDevice {
public:
  absl::StatusOr<std::unique_ptr<Stream>>
  createStream(const std::string &) override {
    return std::unique_ptr<Stream>(new NullStream());
  }
  absl::StatusOr<std::unique_ptr<Event>> createEvent() override {
    return std::unique_ptr<Event>(new LateEvent(state));
  }

  LateCompletions state;
};

class NoOpKernel : public Kernel {
public:
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                       const std::vector<TensorView> &) override {
    return absl::OkStatus();
  }
};

// A failed firing ends the run, but run() returns only once every
// completion in flight has reached the engine: none comes after it, when
// the engine may be gone (the CUDA device's callbacks after an error).
TEST(AsyncDevice, RunReturnsAfterEveryCompletionAfterAFailure) {
  ProgramBuilder b;
  b.program.device = DeviceKind::Cuda;
  int64_t a = b.actor("a", "s0", {}, 1, 3);
  int64_t m = b.actor("m", "s1", {b.out(a)}, 1, 3);
  b.actor("sink", "s2", {b.out(m)}, 0);
  auto device = std::make_shared<LateDevice>();
  KernelProvider provider =
      [](const ActorSpec &) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    return std::make_unique<NoOpKernel>();
  };
  {
    auto engine = Engine::create(b.program, device, provider);
    ASSERT_TRUE(engine.ok()) << engine.status();
    auto result = (*engine)->run({20, false});
    device->state.returned = true;
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.status().message().find("the kernel faulted"),
              std::string::npos)
        << result.status();
  } // The engine goes here.
  {
    std::lock_guard<std::mutex> lock(device->state.mutex);
    EXPECT_GT(device->state.threads.size(), 1u)
        << "only the failing firing was in flight: the test shows nothing";
  }
  EXPECT_EQ(device->state.late.load(), 0)
      << "completions reached the engine after run() returned";
}

/// Reads its operand and writes it doubled, recording where it read from.
class DoublingKernel : public Kernel {
public:
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    seen.push_back(in[0].data);
    *out[0].as<int64_t>() = 2 * *in[0].as<int64_t>();
    return absl::OkStatus();
  }
  std::vector<const void *> seen;
};

/// FakeDevice that remembers the host memory it handed out.
class CountingDevice : public FakeDevice {
public:
  absl::StatusOr<void *> allocateHost(size_t bytes) override {
    absl::StatusOr<void *> p = FakeDevice::allocateHost(bytes);
    if (p.ok())
      host.push_back(*p);
    return p;
  }
  std::vector<void *> host;
};

// A staged kernel computes on the device's host memory (pinned on a GPU:
// allocateHost), allocated once and reused by later firings.
TEST(AsyncDevice, StagedKernelsUseTheDevicesHostMemory) {
  CountingDevice device;
  auto stream = device.createStream("compute");
  ASSERT_TRUE(stream.ok());
  auto inner = std::make_unique<DoublingKernel>();
  DoublingKernel *doubling = inner.get();
  std::unique_ptr<Kernel> staged = stageOnHost(std::move(inner));
  EXPECT_TRUE(isStaged(*staged));
  EXPECT_FALSE(isStaged(*doubling));
  TensorDesc scalar{DType::I64, {}};
  int64_t x = 21, y = 0;
  for (int step = 0; step < 3; ++step) {
    KernelContext context{step, stream->get(), &device};
    ASSERT_TRUE(staged->compute(context, {{&x, scalar}}, {{&y, scalar}}).ok());
    EXPECT_EQ(y, 42);
  }
  ASSERT_EQ(device.host.size(), 2u); // one operand, one result, once
  ASSERT_EQ(doubling->seen.size(), 3u);
  for (const void *p : doubling->seen)
    EXPECT_EQ(p, device.host[0]);
}

} // namespace

