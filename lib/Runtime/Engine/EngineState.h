//===- EngineState.h - The engine's state of actors and regsts --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to the engine: what EngineSetUp.cpp builds from a RankProgram and
// Engine.cpp runs.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_ENGINE_ENGINESTATE_H
#define OFRT_ENGINE_ENGINESTATE_H

#include "ofrt/Engine.h"

#include "MessageQueue.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <vector>

namespace ofrt::engine {

/// One distinct regst an actor reads.
struct InputSlot {
  int64_t regst = 0;    ///< Index into Impl::regsts.
  int64_t producer = 0; ///< Actor index.
  int64_t pair = 0;     ///< The producer's (output, consumer) pair index.
  int64_t available = 0; ///< Items the producer has finished.
  /// Firings of the consumer that read each item: its firings per step
  /// over the items the regst gets per step.
  int64_t reads = 1;
  bool eord = false;
  /// Per buffer, recorded after the consumer's last read of the item in
  /// it, when the producer's stream must wait for that (OutputPair::
  /// orderedAcross); empty otherwise.
  std::vector<std::unique_ptr<Event>> read;
};

/// One (output regst, consumer) pair of a producing actor, and how the two
/// learn of each other's firings (on an asynchronous device): when each
/// firing is enqueued, or only when the host has seen it finish.
struct OutputPair {
  int64_t output = 0;    ///< Index into the actor's outputs.
  int64_t consumer = 0;  ///< Actor index.
  int64_t slot = 0;      ///< The consumer's input slot.
  int64_t returned = 0;  ///< Items the consumer has returned.
  bool ended = false;
  /// Ready at the producer's enqueue: it wrote on the host, or both run on
  /// streams.
  bool readyAtEnqueue = false;
  /// Returned at the consumer's enqueue: it read on the host, or both run
  /// on streams.
  bool returnAtEnqueue = false;
  /// Both run on streams, different ones: each waits for the other's
  /// event of the buffer (RegstState::written, InputSlot::read).
  bool orderedAcross = false;
};

/// A firing whose work may not have finished.
struct Pending {
  std::unique_ptr<Event> event;
  bool completed = false;
  bool hostWait = false; ///< Firing::hostWait.
  double startUs = 0, endUs = 0;
};

struct ActorState {
  const ActorSpec *spec = nullptr;
  std::unique_ptr<Kernel> kernel;
  int64_t stream = 0;
  int64_t worker = 0;
  std::vector<int64_t> operandRegsts; ///< Regst index per operand.
  std::vector<int64_t> operandReads;  ///< Its slot's `reads`, per operand.
  std::vector<int64_t> resultRegsts;  ///< Regst index per result.
  /// The kernel's views; each firing only points them at its buffers.
  std::vector<TensorView> inputViews, outputViews;
  std::vector<InputSlot> inputs;
  std::vector<OutputPair> pairs;
  /// Counted in firings: with micro-batches an actor fires several times
  /// per step (spec->firingsPerStep), and an accumulation writes an output
  /// item every spec->firingsPerOutput firings.
  int64_t step = 0;     ///< The next firing.
  int64_t finished = 0; ///< Firings whose work is done and announced.
  /// Firing f uses pending[f % size]; at most size firings are in flight.
  std::vector<Pending> pending;
  /// Where its stream's order lists it (once per firing of a step).
  std::vector<int64_t> listed;
  /// Whether it may fire ahead of its stream's order: it fires per
  /// micro-batch and none of its regsts shares memory with another (the
  /// memory plan follows the order).
  bool free = false;
  bool dataEnded = false; ///< A source's kernel reported the end of data.
  bool ended = false;
  /// Its kernel touches buffers on the host (Kernel::runsOnHost, or every
  /// kernel of a device that is not asynchronous).
  bool onHost = true;
  /// Something it tells a consumer or producer waits for the host to see
  /// its firing finish.
  bool hostWaits = false;
  /// It runs on the host and writes memory another regst shares, which
  /// work still on its stream may use: it waits for the stream first.
  bool drainsStream = false;
  int64_t inFlight() const { return step - finished; }
};

struct RegstState {
  const RegstSpec *spec = nullptr;
  std::vector<char *> buffers;
  /// Its buffers overlap another regst's in the arena.
  bool shared = false;
  /// Per buffer, recorded after the producer wrote an item there, when a
  /// consumer on another stream waits for it; empty otherwise.
  std::vector<std::unique_ptr<Event>> written;
};

/// Tokens of completions: actor index and step.
inline uint64_t tokenOf(int64_t actor, int64_t step) {
  return (static_cast<uint64_t>(actor) << 40) | static_cast<uint64_t>(step);
}

} // namespace ofrt::engine

namespace ofrt {

/// The engine's state; a worker thread owns its streams' actors.
struct Engine::Impl : CompletionSink {
  using ActorState = engine::ActorState;
  using RegstState = engine::RegstState;
  using Message = engine::Message;
  using MessageQueue = engine::MessageQueue;

  RankProgram program;
  std::shared_ptr<Device> device;
  bool async = false; ///< Device::asynchronous().
  std::vector<ActorState> actors;
  std::vector<RegstState> regsts;
  std::vector<std::vector<int64_t>> streamOrders; ///< Actor indices.
  /// Each stream's distinct actors (an order may list one several times).
  std::vector<std::vector<int64_t>> streamActors;
  /// Whether a stream fires strictly in its order: it talks to other ranks,
  /// which must see the same order, or none of its actors is free. In the
  /// others, free actors fire as soon as they can and the rest once every
  /// firing listed before theirs has started.
  std::vector<bool> streamOrdered;
  /// Per unordered stream during a run: its actors that have not ended,
  /// by the place of their next firing in the order (priorityOf).
  std::vector<std::set<std::pair<int64_t, int64_t>>> byPriority;
  std::vector<std::unique_ptr<Stream>> streams;
  /// The streams each worker thread drives, and its queue.
  std::vector<std::vector<int64_t>> workers;
  std::vector<std::unique_ptr<MessageQueue>> queues;
  std::vector<void *> allocations;

  // Shared by the stream threads during a run.
  std::atomic<bool> stopped{false};
  int64_t firstStep = 0; ///< RunOptions::firstStep of this run.
  std::vector<Firing> *firingsOf = nullptr; ///< Per worker, when recording.
  /// The run's start, and where firings' times count from.
  std::chrono::steady_clock::time_point start, epoch;
  std::mutex errorMutex;
  absl::Status error;
  /// For the stall check: workers asleep on their queues or finished,
  /// firings of an asynchronous device not yet completed, and a count that
  /// moves with every message and firing.
  std::atomic<int64_t> idleWorkers{0}, asyncPending{0};
  /// RunResult::hostWaits of this run.
  std::atomic<int64_t> hostWaits{0};
  std::atomic<uint64_t> progress{0};

  ~Impl() override {
    for (void *p : allocations)
      device->deallocate(p);
  }

  absl::Status setUp(const KernelProvider &provider);
  // The steps of setUp (EngineSetUp.cpp), in order.
  /// Streams (a transfer per micro-batch may get its own) and workers.
  absl::Status setUpStreams(const std::map<int64_t, int64_t> &actorIndex);
  /// Each regst's buffers: in the planned arena, or one allocation each.
  absl::Status setUpBuffers();
  /// The protocol slots: distinct input regsts, (output, consumer) pairs.
  void setUpSlots(const std::map<int64_t, int64_t> &actorIndex,
                  const std::map<int64_t, int64_t> &regstIndex);
  /// An event per firing that may be in flight.
  absl::Status setUpEvents();
  /// How each pair of actors learns of the other's firings, and the
  /// events of buffers read or written across streams (after the kernels,
  /// which say whether they run on the host).
  absl::Status setUpOrdering();
  /// The kernels, created as the stream threads will run them.
  absl::Status createKernels(const KernelProvider &provider);
  void runWorker(int64_t worker, const RunOptions &options);
  /// Whether actor `index` (the next of its stream) should end now.
  bool shouldEnd(const ActorState &actor, const RunOptions &options) const;
  /// Moves stream `stream` of a worker on as far as it can go: ends or
  /// fires its next actors; false when the stream made no progress.
  bool advance(int64_t stream, size_t &position, size_t &endedCount,
               const RunOptions &options);
  /// advance() for an unordered stream: fires the ready actor whose next
  /// firing comes first in the stream's order, again and again.
  bool advanceFree(int64_t stream, size_t &endedCount,
                   const RunOptions &options);
  /// Whether every firing its stream lists before `actor`'s next one has
  /// started (or will not happen: its actor ended).
  bool predecessorsFired(const ActorState &actor) const;
  /// The place of `actor`'s next firing in its stream's order, counted
  /// over steps.
  int64_t priorityOf(const ActorState &actor) const {
    int64_t n = actor.listed.size();
    return (actor.step / n) *
               static_cast<int64_t>(streamOrders[actor.stream].size()) +
           actor.listed[actor.step % n];
  }
  void fail(const ActorState &actor, const absl::Status &status,
            int64_t step);
  /// Watches the workers during a run: when every one is asleep or
  /// finished with nothing queued and nothing running for a while, no actor
  /// can ever fire again (a plan whose orders and buffer counts deadlock);
  /// the run then fails, naming the actors that wait and what for. It
  /// returns as soon as the run has `finished` (not at its next poll).
  struct RunEnd {
    std::mutex mutex;
    std::condition_variable changed;
    bool finished = false;
  };
  void watchForStalls(RunEnd &end, const StepGate *gate);
  /// Why `actor` cannot fire now, for the stall report.
  std::string whyWaiting(const ActorState &actor) const;
  void complete(uint64_t token, absl::Status status) override;
  /// Waits until every completion the device was asked for (notify) has
  /// been delivered: after an error a GPU's stream synchronizes at once
  /// but its callbacks may come later, and they must not reach an engine
  /// that is gone. Gives up after a minute with an error in `error`.
  void awaitCompletions();
  void send(int64_t from, int64_t actor, Message message) {
    message.actor = actor;
    if (actors[actor].worker == actors[from].worker)
      apply(message); // This thread owns the receiver.
    else
      queues[actors[actor].worker]->push(message);
  }
  void apply(const Message &message);
  bool mayFire(const ActorState &actor) const;
  /// A source at a step boundary that its step gate holds back.
  bool gated(const ActorState &actor, const RunOptions &options) const;
  void endActor(int64_t index);
  absl::Status fire(int64_t index);
  /// Makes the stream of actor `index` wait for the other streams' work
  /// that firing `firing` depends on: its inputs' writes, and the reads of
  /// the buffers it is about to overwrite.
  absl::Status orderAcrossStreams(int64_t index, int64_t firing);
  /// Tells consumers of the items firing `firing` of `index` completed
  /// that they are readable, and producers of the items it read last that
  /// they are free: those told at enqueue (`atEnqueue`, recording the
  /// events other streams wait for) or those told once the host saw the
  /// firing finish.
  absl::Status announce(int64_t index, int64_t firing, bool atEnqueue);
  void finish(int64_t index);
  /// Whether announce() tells anyone of firing `firing` of `index` only
  /// once the host saw it finish.
  bool waitsForHost(const ActorState &actor, int64_t firing) const;
  double nowUs() const {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now() - epoch)
        .count();
  }
};

} // namespace ofrt

#endif // OFRT_ENGINE_ENGINESTATE_H
