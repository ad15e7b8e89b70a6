//===- FakeAsyncDevice.h - A device that behaves as a GPU --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A fake asynchronous device, as a GPU behaves: compute() only enqueues the
// kernel's work on its stream; a worker thread per stream runs that work in
// order, each item after a random delay; a wait for an event holds the
// stream back until the work recorded before the event (when the wait was
// enqueued) has run; and the completions the engine is told of come from
// another thread, late and in a shuffled order. Kernels that read and
// write their buffers inside the enqueued work show any read before its
// write, or any write before the last read, as a wrong value.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_ENGINE_FAKEASYNCDEVICE_H
#define ONEFLOW_UNITTESTS_RUNTIME_ENGINE_FAKEASYNCDEVICE_H

#include "ofrt/Engine.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace ofrt::test {

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

/// Each record() is a new point (a generation); the stream reaching it
/// completes every generation up to it.
class FakeEvent : public Event {
public:
  explicit FakeEvent(Deliverer &deliverer) : deliverer(deliverer) {}

  bool query() override {
    std::lock_guard<std::mutex> lock(mutex);
    return reachedGeneration >= recordedGeneration;
  }
  absl::Status wait() override {
    waitUntil(recorded());
    return absl::OkStatus();
  }
  bool notify(CompletionSink &sink, uint64_t token) override {
    std::lock_guard<std::mutex> lock(mutex);
    // Even finished work is reported later: the engine must not assume
    // either way.
    if (reachedGeneration >= recordedGeneration)
      deliverer.post(&sink, token);
    else
      waiters.push_back({recordedGeneration, &sink, token});
    return true;
  }

  /// A new point, for the stream to reach.
  int64_t record() {
    std::lock_guard<std::mutex> lock(mutex);
    return ++recordedGeneration;
  }
  int64_t recorded() {
    std::lock_guard<std::mutex> lock(mutex);
    return recordedGeneration;
  }
  /// The stream reached `generation`: everything recorded before is done.
  void reached(int64_t generation) {
    std::lock_guard<std::mutex> lock(mutex);
    reachedGeneration = std::max(reachedGeneration, generation);
    for (auto it = waiters.begin(); it != waiters.end();) {
      if (it->generation > reachedGeneration) {
        ++it;
        continue;
      }
      deliverer.post(it->sink, it->token);
      it = waiters.erase(it);
    }
    changed.notify_all();
  }
  void waitUntil(int64_t generation) {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return reachedGeneration >= generation; });
  }

private:
  struct Waiter {
    int64_t generation;
    CompletionSink *sink;
    uint64_t token;
  };
  Deliverer &deliverer;
  std::mutex mutex;
  std::condition_variable changed;
  int64_t recordedGeneration = 0, reachedGeneration = 0;
  std::vector<Waiter> waiters;
};

/// In-order work on a worker thread, each item after a random delay of up
/// to `maxDelayUs`. With `ignoreWaits` it does not wait for events (a
/// broken stream, for tests that must fail).
class FakeStream : public Stream {
public:
  FakeStream(std::string name, unsigned seed, int maxDelayUs,
             bool ignoreWaits)
      : streamName(std::move(name)), random(seed), maxDelayUs(maxDelayUs),
        ignoreWaits(ignoreWaits), worker([this] { loop(); }) {}
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
    int64_t generation = fake->record();
    enqueue([fake, generation] { fake->reached(generation); });
    return absl::OkStatus();
  }
  absl::Status waitFor(Event &event) override {
    ++waits;
    if (ignoreWaits)
      return absl::OkStatus();
    auto *fake = static_cast<FakeEvent *>(&event);
    int64_t generation = fake->recorded();
    enqueue([fake, generation] { fake->waitUntil(generation); });
    return absl::OkStatus();
  }
  absl::Status synchronize() override {
    std::unique_lock<std::mutex> lock(mutex);
    changed.wait(lock, [&] { return queue.empty() && !busy; });
    return absl::OkStatus();
  }

  std::atomic<int64_t> waits{0}; ///< waitFor() calls.

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
      int delayUs = std::uniform_int_distribution<int>(0, maxDelayUs)(random);
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
  int maxDelayUs;
  bool ignoreWaits;
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
  bool asynchronous() const override { return true; }
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
    auto delay = maxDelayUs.find(name);
    auto *stream = new FakeStream(
        name, ++streams, delay == maxDelayUs.end() ? 150 : delay->second,
        ignoreWaitsOn.count(name) != 0);
    created.push_back(stream);
    return std::unique_ptr<Stream>(stream);
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

  /// waitFor() calls on the streams created so far (while they live).
  int64_t streamWaits() const {
    int64_t total = 0;
    for (FakeStream *stream : created)
      total += stream->waits;
    return total;
  }

  Deliverer deliverer;
  /// Per stream name: the longest delay before each item (default 150 us).
  std::map<std::string, int> maxDelayUs;
  /// Streams that do not wait for events.
  std::set<std::string> ignoreWaitsOn;

private:
  unsigned streams = 0;
  std::vector<FakeStream *> created;
};

/// Runs a test kernel's `work` on the host now (`onHost`), or enqueues it
/// on the fake stream of `context`.
inline void runOrEnqueue(const KernelContext &context, bool onHost,
                         Work work) {
  if (onHost)
    work();
  else
    static_cast<FakeStream *>(context.stream)->enqueue(std::move(work));
}

/// The stamp actor `actor` writes for output item `item`.
inline int64_t stamp(int64_t actor, int64_t item) {
  return (actor << 32) | (item & 0xffffffff);
}

/// Writes its stamp to the first 8 bytes of every output and checks that
/// every input holds its producer's stamp for the item it reads, in work
/// enqueued on its fake stream (or, `onHost`, in compute() itself): a read
/// before the write, or a rewrite before the last read, counts in `wrong`.
class StampKernel : public Kernel {
public:
  /// `producers` and `reads` per operand: the producing actor and the
  /// firings that read each of its items.
  StampKernel(const ActorSpec &spec, std::vector<int64_t> producers,
              std::vector<int64_t> reads, bool onHost,
              std::atomic<int64_t> *wrong)
      : id(spec.id), perOutput(spec.firingsPerOutput),
        producers(std::move(producers)), reads(std::move(reads)),
        onHost(onHost), wrong(wrong) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    int64_t firing = context.step * context.microBatches + context.micro;
    std::vector<std::pair<const int64_t *, int64_t>> checks;
    for (size_t i = 0; i < inputs.size(); ++i)
      checks.push_back({static_cast<const int64_t *>(inputs[i].data),
                        stamp(producers[i], firing / reads[i])});
    std::vector<int64_t *> stamps;
    for (const TensorView &out : outputs)
      stamps.push_back(static_cast<int64_t *>(out.data));
    int64_t value = stamp(id, firing / perOutput);
    std::atomic<int64_t> *counter = wrong;
    Work work = [checks, stamps, value, counter] {
      for (auto [data, want] : checks)
        if (*data != want)
          ++*counter;
      for (int64_t *data : stamps)
        *data = value;
    };
    runOrEnqueue(context, onHost, std::move(work));
    return absl::OkStatus();
  }
  bool runsOnHost() const override { return onHost; }

private:
  int64_t id, perOutput;
  std::vector<int64_t> producers, reads;
  bool onHost;
  std::atomic<int64_t> *wrong;
};

/// StampKernels for the actors of `program` (which must outlive the
/// provider), on the host where `onHost` says.
inline KernelProvider
stampKernels(const RankProgram &program,
             std::function<bool(const ActorSpec &)> onHost,
             std::atomic<int64_t> *wrong) {
  return [&program, onHost,
          wrong](const ActorSpec &actor)
             -> absl::StatusOr<std::unique_ptr<Kernel>> {
    std::vector<int64_t> producers, reads;
    for (int64_t id : actor.inputs) {
      const ActorSpec &producer =
          *program.findActor(program.findRegst(id)->producer);
      producers.push_back(producer.id);
      reads.push_back(actor.firingsPerStep / producer.outputsPerStep());
    }
    return std::make_unique<StampKernel>(actor, producers, reads,
                                         onHost(actor), wrong);
  };
}

} // namespace ofrt::test

#endif // ONEFLOW_UNITTESTS_RUNTIME_ENGINE_FAKEASYNCDEVICE_H
