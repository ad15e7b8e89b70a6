//===- AsyncDeviceTest.cpp - The engine on a device that finishes later ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A fake asynchronous device, as a GPU behaves: compute() only enqueues the
// kernel's work on its stream, a worker thread per stream does it later
// (after a random delay), and the completions of recorded events reach the
// engine from another thread, held back and delivered in a shuffled order.
// Kernels write and read their buffers inside the enqueued work, so a
// consumer that read before its producer's work was done, or a producer
// that overwrote a buffer still being read, shows up as a wrong value.
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <random>

using namespace ofrt;
using namespace ofrt::test;

namespace {

using Work = std::function<void()>;

/// Delivers completions on its own thread, a few at a time in a shuffled
/// order.
class Deliverer {
public:
  Deliverer() : thread([this] { loop(); }) {}
  ~Deliverer() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    changed.notify_all();
    thread.join();
  }

  void post(CompletionSink *sink, uint64_t token) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      pending.push_back({sink, token});
      ++posted;
    }
    changed.notify_all();
  }

  /// Waits until everything posted has been delivered.
  void drain() {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return delivered == posted; });
  }

  int64_t outOfOrder() const { return shuffled; }

private:
  void loop() {
    std::mt19937 random(7);
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      changed.wait_for(lock, std::chrono::microseconds(300),
                       [&] { return done || pending.size() >= 3; });
      if (pending.empty()) {
        if (done)
          return;
        continue;
      }
      std::vector<std::pair<CompletionSink *, uint64_t>> batch(
          pending.begin(), pending.end());
      pending.clear();
      std::shuffle(batch.begin(), batch.end(), random);
      for (size_t i = 1; i < batch.size(); ++i)
        shuffled += batch[i].second < batch[i - 1].second;
      lock.unlock();
      for (auto &[sink, token] : batch)
        sink->complete(token, absl::OkStatus());
      lock.lock();
      delivered += batch.size();
      changed.notify_all();
    }
  }

  std::mutex mutex;
  std::condition_variable changed;
  std::deque<std::pair<CompletionSink *, uint64_t>> pending;
  int64_t posted = 0, delivered = 0;
  std::atomic<int64_t> shuffled{0};
  bool done = false;
  std::thread thread;
};

class FakeEvent : public Event {
public:
  explicit FakeEvent(Deliverer &deliverer) : deliverer(deliverer) {}

  bool query() override {
    std::lock_guard<std::mutex> lock(mutex);
    return finished;
  }
  absl::Status wait() override {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return finished; });
    return absl::OkStatus();
  }
  bool notify(CompletionSink &sink, uint64_t token) override {
    std::lock_guard<std::mutex> lock(mutex);
    if (finished) {
      // Even finished work is reported later: the engine must not assume
      // either way.
      deliverer.post(&sink, token);
      return true;
    }
    waiter = &sink;
    waiterToken = token;
    return true;
  }

  /// The stream reached the event: everything recorded before it is done.
  void reached() {
    std::lock_guard<std::mutex> lock(mutex);
    finished = true;
    if (waiter) {
      deliverer.post(waiter, waiterToken);
      waiter = nullptr;
    }
    changed.notify_all();
  }
  void rearm() {
    std::lock_guard<std::mutex> lock(mutex);
    finished = false;
    waiter = nullptr;
  }

private:
  Deliverer &deliverer;
  std::mutex mutex;
  std::condition_variable changed;
  bool finished = false;
  CompletionSink *waiter = nullptr;
  uint64_t waiterToken = 0;
};

/// In-order work on a worker thread, each item after a random delay.
class FakeStream : public Stream {
public:
  FakeStream(std::string name, unsigned seed)
      : streamName(std::move(name)), random(seed),
        worker([this] { loop(); }) {}
  ~FakeStream() override {
    {
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
    }
    changed.notify_all();
    worker.join();
  }

  const std::string &name() const override { return streamName; }

  void enqueue(Work work) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      queue.push_back(std::move(work));
    }
    changed.notify_all();
  }
  absl::Status record(Event &event) override {
    auto *fake = static_cast<FakeEvent *>(&event);
    fake->rearm();
    enqueue([fake] { fake->reached(); });
    return absl::OkStatus();
  }
  absl::Status waitFor(Event &event) override {
    enqueue([&event] { (void)event.wait(); });
    return absl::OkStatus();
  }
  absl::Status synchronize() override {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.empty() && !busy; });
    return absl::OkStatus();
  }

private:
  void loop() {
    std::unique_lock<std::mutex> lock(mutex);
    while (true) {
      changed.wait(lock, [&] { return done || !queue.empty(); });
      if (queue.empty())
        return;
      Work work = std::move(queue.front());
      queue.pop_front();
      busy = true;
      int delayUs = std::uniform_int_distribution<int>(0, 150)(random);
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::microseconds(delayUs));
      work();
      lock.lock();
      busy = false;
      changed.notify_all();
    }
  }

  std::string streamName;
  std::mt19937 random;
  std::mutex mutex;
  std::condition_variable changed;
  std::deque<Work> queue;
  bool busy = false, done = false;
  std::thread worker;
};

class FakeDevice : public Device {
public:
  DeviceKind kind() const override { return DeviceKind::Cuda; }
  int ordinal() const override { return 0; }
  absl::StatusOr<void *> allocate(size_t bytes) override {
    return std::aligned_alloc(64, std::max<size_t>(64, (bytes + 63) / 64 * 64));
  }
  void deallocate(void *pointer) override { std::free(pointer); }
  absl::StatusOr<void *> allocateHost(size_t bytes) override {
    return allocate(bytes);
  }
  void deallocateHost(void *pointer) override { deallocate(pointer); }
  bool hostAccessible() const override { return true; }
  absl::StatusOr<std::unique_ptr<Stream>>
  createStream(const std::string &name) override {
    return std::unique_ptr<Stream>(new FakeStream(name, ++streams));
  }
  absl::StatusOr<std::unique_ptr<Event>> createEvent() override {
    return std::unique_ptr<Event>(new FakeEvent(deliverer));
  }
  absl::StatusOr<std::unique_ptr<ThreadBinding>> bindThread(Stream *) override {
    return std::unique_ptr<ThreadBinding>(new ThreadBinding());
  }
  absl::Status copyToDevice(Stream &s, void *dst, const void *src,
                            size_t bytes) override {
    static_cast<FakeStream &>(s).enqueue(
        [=] { std::memcpy(dst, src, bytes); });
    return absl::OkStatus();
  }
  absl::Status copyToHost(Stream &s, void *dst, const void *src,
                          size_t bytes) override {
    return copyToDevice(s, dst, src, bytes);
  }
  absl::Status copyOnDevice(Stream &s, void *dst, const void *src,
                            size_t bytes) override {
    return copyToDevice(s, dst, src, bytes);
  }

  Deliverer deliverer;

private:
  unsigned streams = 0;
};

/// Enqueues: check that each input holds its producer's value for this
/// step, then write step * 1000 + id + sum(inputs) to every output.
class AsyncSumKernel : public Kernel {
public:
  AsyncSumKernel(int64_t id, std::vector<int64_t> producers,
                 std::atomic<int64_t> *wrong, std::atomic<int64_t> *sinkSum)
      : id(id), producers(std::move(producers)), wrong(wrong),
        sinkSum(sinkSum) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    int64_t step = context.step;
    std::vector<int64_t *> in, out;
    for (const TensorView &view : inputs)
      in.push_back(view.as<int64_t>());
    for (const TensorView &view : outputs)
      out.push_back(view.as<int64_t>());
    static_cast<FakeStream *>(context.stream)->enqueue([=] {
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
    });
    return absl::OkStatus();
  }

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
};

// A chain of four actors over three streams, regsts of one and two
// buffers: every value read is the one written for that step (no consumer
// reads before its producer's work is done, no producer overwrites a buffer
// a consumer has not finished with), for every step, although completions
// arrive late and out of order.
TEST(AsyncDevice, ConsumersReadOnlyFinishedWorkAndBackPressureHolds) {
  for (int64_t count : {1, 2, 3}) {
    SCOPED_TRACE("regst count " + std::to_string(count));
    ProgramBuilder b;
    b.program.device = DeviceKind::Cuda;
    int64_t a = b.actor("a", "s0", {}, 1, count);
    int64_t m = b.actor("m", "s1", {b.out(a)}, 1, count);
    int64_t n = b.actor("n", "s0", {b.out(m)}, 1, count);
    b.actor("sink", "s2", {b.out(n)}, 0);
    auto device = std::make_shared<FakeDevice>();
    std::atomic<int64_t> wrong{0}, sinkSum{0};
    KernelProvider provider =
        [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
      std::vector<int64_t> producers;
      for (int64_t regst : actor.inputs)
        producers.push_back(b.program.regsts[regst].producer);
      return std::make_unique<AsyncSumKernel>(actor.id, producers, &wrong,
                                              &sinkSum);
    };
    auto engine = Engine::create(b.program, device, provider);
    ASSERT_TRUE(engine.ok()) << engine.status();
    const int64_t steps = 40;
    auto result = (*engine)->run({steps, /*recordFirings=*/true});
    ASSERT_TRUE(result.ok()) << result.status();
    device->deliverer.drain();
    EXPECT_EQ(result->steps, steps);
    EXPECT_EQ(wrong.load(), 0);
    // Completions did arrive out of order.
    EXPECT_GT(device->deliverer.outOfOrder(), 0);
    int64_t want = 0;
    for (int64_t s = 0; s < steps; ++s)
      want += AsyncSumKernel::expected(3, s);
    EXPECT_EQ(sinkSum.load(), want);
    EXPECT_EQ(result->firings.size(), static_cast<size_t>(4 * steps));
    // The firing of a producer for step s + count starts only after its
    // consumer finished step s (the buffer came back).
    std::map<std::pair<int64_t, int64_t>, Firing> byActorStep;
    for (const Firing &f : result->firings)
      byActorStep[{f.actor, f.step}] = f;
    for (auto [producer, consumer] :
         {std::pair<int64_t, int64_t>{a, m}, {m, n}})
      for (int64_t s = 0; s + count < steps; ++s)
        EXPECT_GE(byActorStep[std::make_pair(producer, s + count)].startUs,
                  byActorStep[std::make_pair(consumer, s)].endUs)
            << "actor " << producer << " step " << s + count;
  }
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

