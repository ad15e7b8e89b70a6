//===- Engine.cpp - The actor engine --------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A worker thread drives one stream, or every stream of the rank when the
// device asks for one thread (DeviceOptions::oneStreamThread: ranks that
// outnumber the cores lose more to hand-offs between their stream threads
// than they gain from overlap). A worker owns the protocol state of its
// streams' actors and changes it only in response to messages, so no lock
// guards actor state. Each stream runs its actors in order, step after
// step; a stream's next actor fires when every input slot has the step
// readable, every output has a free buffer and it has an event free. A
// worker goes on with whichever of its streams can, and sleeps on its queue
// when none can. Messages between actors of one worker are applied at once.
//
// A firing is done when its event completes. On the CPU that is before
// record() returns, and the engine finishes the firing inline; on an
// asynchronous device the event calls the engine back (on any thread),
// which queues a Completed message for the actor's stream thread. An actor
// finishes its firings in step order even if their completions arrive out
// of order, and ends (EORD) only once none is in flight.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Engine.h"
#include "ofrt/Status.h"

#include "MessageQueue.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <map>
#include <mutex>
#include <thread>

using namespace ofrt;
using namespace ofrt::engine;

namespace {

/// One distinct regst an actor reads.
struct InputSlot {
  int64_t regst = 0;    ///< Index into Impl::regsts.
  int64_t producer = 0; ///< Actor index.
  int64_t pair = 0;     ///< The producer's (output, consumer) pair index.
  int64_t available = 0; ///< Steps the producer has finished.
  bool eord = false;
};

/// One (output regst, consumer) pair of a producing actor.
struct OutputPair {
  int64_t output = 0;    ///< Index into the actor's outputs.
  int64_t consumer = 0;  ///< Actor index.
  int64_t slot = 0;      ///< The consumer's input slot.
  int64_t returned = 0;  ///< Steps the consumer has returned.
  bool ended = false;
};

/// A firing whose work may not have finished.
struct Pending {
  std::unique_ptr<Event> event;
  bool completed = false;
  double startUs = 0, endUs = 0;
};

struct ActorState {
  const ActorSpec *spec = nullptr;
  std::unique_ptr<Kernel> kernel;
  int64_t stream = 0;
  int64_t worker = 0;
  std::vector<int64_t> operandRegsts; ///< Regst index per operand.
  std::vector<int64_t> resultRegsts;  ///< Regst index per result.
  /// The kernel's views; each firing only points them at its buffers.
  std::vector<TensorView> inputViews, outputViews;
  std::vector<InputSlot> inputs;
  std::vector<OutputPair> pairs;
  int64_t step = 0;     ///< The next step to fire.
  int64_t finished = 0; ///< Steps whose work is done and announced.
  /// Firing s uses pending[s % size]; at most size firings are in flight.
  std::vector<Pending> pending;
  bool dataEnded = false; ///< A source's kernel reported the end of data.
  bool ended = false;
  int64_t inFlight() const { return step - finished; }
};

struct RegstState {
  const RegstSpec *spec = nullptr;
  std::vector<char *> buffers;
};

/// Tokens of completions: actor index and step.
uint64_t tokenOf(int64_t actor, int64_t step) {
  return (static_cast<uint64_t>(actor) << 40) | static_cast<uint64_t>(step);
}

} // namespace

struct Engine::Impl : CompletionSink {
  RankProgram program;
  std::shared_ptr<Device> device;
  std::vector<ActorState> actors;
  std::vector<RegstState> regsts;
  std::vector<std::vector<int64_t>> streamOrders; ///< Actor indices.
  std::vector<std::unique_ptr<Stream>> streams;
  /// The streams each worker thread drives, and its queue.
  std::vector<std::vector<int64_t>> workers;
  std::vector<std::unique_ptr<MessageQueue>> queues;
  std::vector<void *> allocations;

  // Shared by the stream threads during a run.
  std::atomic<bool> stopped{false};
  int64_t firstStep = 0; ///< RunOptions::firstStep of this run.
  std::vector<Firing> *firingsOf = nullptr; ///< Per stream, when recording.
  std::chrono::steady_clock::time_point start;
  std::mutex errorMutex;
  absl::Status error;

  ~Impl() override {
    for (void *p : allocations)
      device->deallocate(p);
  }

  absl::Status setUp(const KernelProvider &provider);
  void runWorker(int64_t worker, const RunOptions &options);
  /// Whether actor `index` (the next of its stream) should end now.
  bool shouldEnd(const ActorState &actor, const RunOptions &options) const;
  /// Moves stream `stream` of a worker on as far as it can go: ends or
  /// fires its next actors; false when the stream made no progress.
  bool advance(int64_t stream, size_t &position, size_t &endedCount,
               const RunOptions &options);
  void fail(const ActorState &actor, const absl::Status &status,
            int64_t step);
  void complete(uint64_t token, absl::Status status) override;
  void send(int64_t from, int64_t actor, Message message) {
    message.actor = actor;
    if (actors[actor].worker == actors[from].worker)
      apply(message); // This thread owns the receiver.
    else
      queues[actors[actor].worker]->push(message);
  }
  void apply(const Message &message);
  bool mayFire(const ActorState &actor) const;
  void endActor(int64_t index);
  absl::Status fire(int64_t index);
  void finish(int64_t index);
  double nowUs() const {
    return std::chrono::duration<double, std::micro>(
               std::chrono::steady_clock::now() - start)
        .count();
  }
};

absl::Status Engine::Impl::setUp(const KernelProvider &provider) {
  std::map<int64_t, int64_t> actorIndex, regstIndex;
  for (const ActorSpec &spec : program.actors) {
    actorIndex[spec.id] = actors.size();
    actors.emplace_back();
    actors.back().spec = &spec;
  }
  for (const RegstSpec &spec : program.regsts) {
    regstIndex[spec.id] = regsts.size();
    regsts.push_back({&spec, {}});
  }
  for (const StreamSpec &stream : program.streams) {
    std::vector<int64_t> order;
    for (int64_t id : stream.actors) {
      actors[actorIndex[id]].stream = streamOrders.size();
      order.push_back(actorIndex[id]);
    }
    streamOrders.push_back(std::move(order));
    absl::StatusOr<std::unique_ptr<Stream>> created =
        device->createStream(stream.name);
    if (!created.ok())
      return absl::Status(created.status().code(),
                          "cannot create stream '" + stream.name + "' on " +
                              device->name() + ": " +
                              std::string(created.status().message()));
    streams.push_back(std::move(*created));
  }

  // Workers: a thread per stream, or one for them all.
  for (size_t s = 0; s < streamOrders.size(); ++s) {
    if (workers.empty() || !device->oneStreamThread())
      workers.emplace_back();
    workers.back().push_back(s);
    for (int64_t a : streamOrders[s])
      actors[a].worker = workers.size() - 1;
  }
  for (size_t w = 0; w < workers.size(); ++w)
    queues.push_back(std::make_unique<MessageQueue>());

  // Buffers: in the planned arena, or one allocation per regst.
  auto allocate = [&](int64_t bytes,
                      const std::string &what) -> absl::StatusOr<char *> {
    absl::StatusOr<void *> pointer = device->allocate(bytes);
    if (!pointer.ok())
      return absl::Status(pointer.status().code(),
                          "cannot allocate " + what + " on " + device->name() +
                              ": " + std::string(pointer.status().message()));
    allocations.push_back(*pointer);
    return static_cast<char *>(*pointer);
  };
  char *arena = nullptr;
  if (program.arenaBytes > 0) {
    absl::StatusOr<char *> block = allocate(
        program.arenaBytes,
        "the " + std::to_string(program.arenaBytes) + "-byte arena");
    if (!block.ok())
      return block.status();
    arena = *block;
  }
  for (RegstState &regst : regsts) {
    int64_t size = alignedBytes(regst.spec->desc);
    char *base = arena ? arena + regst.spec->offset : nullptr;
    if (regst.spec->offset < 0) {
      absl::StatusOr<char *> block =
          allocate(size * regst.spec->count,
                   "regst " + std::to_string(regst.spec->id));
      if (!block.ok())
        return block.status();
      base = *block;
    }
    for (int64_t i = 0; i < regst.spec->count; ++i)
      regst.buffers.push_back(base + i * size);
  }

  // Protocol slots: distinct input regsts, and (output, consumer) pairs.
  for (ActorState &actor : actors) {
    for (int64_t id : actor.spec->inputs) {
      actor.operandRegsts.push_back(regstIndex[id]);
      actor.inputViews.push_back({nullptr, regsts[regstIndex[id]].spec->desc});
    }
    for (int64_t id : actor.spec->outputs) {
      actor.resultRegsts.push_back(regstIndex[id]);
      actor.outputViews.push_back({nullptr, regsts[regstIndex[id]].spec->desc});
    }
  }
  for (int64_t a = 0; a < static_cast<int64_t>(actors.size()); ++a) {
    ActorState &actor = actors[a];
    for (int64_t o = 0; o < static_cast<int64_t>(actor.resultRegsts.size());
         ++o) {
      const RegstSpec &regst = *regsts[actor.resultRegsts[o]].spec;
      for (int64_t consumerId : regst.consumers) {
        int64_t c = actorIndex[consumerId];
        ActorState &consumer = actors[c];
        InputSlot slot;
        slot.regst = actor.resultRegsts[o];
        slot.producer = a;
        slot.pair = actor.pairs.size();
        actor.pairs.push_back({o, c, (int64_t)consumer.inputs.size(), 0, false});
        consumer.inputs.push_back(slot);
      }
    }
  }

  // Events: as many firings in flight as the deepest regst it touches.
  for (ActorState &actor : actors) {
    int64_t depth = 1;
    for (int64_t r : actor.operandRegsts)
      depth = std::max(depth, regsts[r].spec->count);
    for (int64_t r : actor.resultRegsts)
      depth = std::max(depth, regsts[r].spec->count);
    actor.pending.resize(depth);
    for (Pending &pending : actor.pending) {
      absl::StatusOr<std::unique_ptr<Event>> event = device->createEvent();
      if (!event.ok())
        return event.status();
      pending.event = std::move(*event);
    }
  }

  // Kernels are created as the stream threads will run them.
  absl::StatusOr<std::unique_ptr<ThreadBinding>> binding =
      device->bindThread(nullptr);
  if (!binding.ok())
    return binding.status();
  for (ActorState &actor : actors) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = provider(*actor.spec);
    if (!kernel.ok())
      return absl::Status(kernel.status().code(),
                          "cannot create the kernel of actor '" +
                              actor.spec->op.name + "' (" +
                              actor.spec->op.where() +
                              "): " + std::string(kernel.status().message()));
    actor.kernel = std::move(*kernel);
  }
  return absl::OkStatus();
}

void Engine::Impl::fail(const ActorState &actor, const absl::Status &status,
                        int64_t step) {
  {
    std::lock_guard<std::mutex> lock(errorMutex);
    if (error.ok()) {
      // Kernel messages usually start by naming the op; say it once.
      std::string where = actor.spec->op.where();
      std::string message(status.message());
      if (message.rfind(where + ": ", 0) == 0)
        message = message.substr(where.size() + 2);
      error = absl::Status(status.code(), "actor '" + actor.spec->op.name +
                                              "' (" + where +
                                              ") failed at step " +
                                              std::to_string(firstStep +
                                                             step) +
                                              ": " + message);
    }
  }
  stopped = true;
  for (auto &queue : queues)
    queue->push({Message::Kind::Stop, 0, 0, 0});
}

void Engine::Impl::complete(uint64_t token, absl::Status status) {
  int64_t actor = static_cast<int64_t>(token >> 40);
  int64_t step = static_cast<int64_t>(token & ((uint64_t(1) << 40) - 1));
  if (!status.ok()) {
    fail(actors[actor], status, step);
    return;
  }
  Message message{Message::Kind::Completed, actor, 0, step};
  queues[actors[actor].worker]->push(message);
}

void Engine::Impl::apply(const Message &message) {
  ActorState &actor = actors[message.actor];
  switch (message.kind) {
  case Message::Kind::Ready:
    actor.inputs[message.slot].available =
        std::max(actor.inputs[message.slot].available, message.step + 1);
    break;
  case Message::Kind::Eord:
    actor.inputs[message.slot].eord = true;
    break;
  case Message::Kind::Returned:
    actor.pairs[message.slot].returned =
        std::max(actor.pairs[message.slot].returned, message.step + 1);
    break;
  case Message::Kind::ConsumerEnded:
    actor.pairs[message.slot].ended = true;
    break;
  case Message::Kind::Completed: {
    Pending &pending = actor.pending[message.step % actor.pending.size()];
    pending.completed = true;
    pending.endUs = nowUs();
    finish(message.actor);
    break;
  }
  case Message::Kind::Stop:
    break;
  }
}

bool Engine::Impl::mayFire(const ActorState &actor) const {
  if (actor.inFlight() >= static_cast<int64_t>(actor.pending.size()))
    return false;
  for (const InputSlot &slot : actor.inputs)
    if (slot.available <= actor.step)
      return false;
  for (const OutputPair &pair : actor.pairs) {
    int64_t count = regsts[actor.resultRegsts[pair.output]].spec->count;
    // Buffer step % count is free once this consumer returned step - count.
    if (!pair.ended && pair.returned < actor.step - count + 1)
      return false;
  }
  return true;
}

void Engine::Impl::endActor(int64_t index) {
  ActorState &actor = actors[index];
  if (actor.ended)
    return;
  actor.ended = true;
  for (const OutputPair &pair : actor.pairs)
    send(index, pair.consumer, {Message::Kind::Eord, 0, pair.slot, actor.step});
  for (const InputSlot &slot : actor.inputs)
    send(index, slot.producer, {Message::Kind::ConsumerEnded, 0, slot.pair, 0});
}

/// Announces, in step order, the firings of `index` whose work is done.
void Engine::Impl::finish(int64_t index) {
  ActorState &actor = actors[index];
  while (actor.inFlight() > 0) {
    int64_t done = actor.finished;
    Pending &pending = actor.pending[done % actor.pending.size()];
    if (!pending.completed)
      return;
    pending.completed = false;
    ++actor.finished;
    if (firingsOf)
      firingsOf[actor.worker].push_back(
          {actor.spec->id, done, pending.startUs, pending.endUs});
    for (const OutputPair &pair : actor.pairs)
      if (!pair.ended)
        send(index, pair.consumer,
             {Message::Kind::Ready, 0, pair.slot, done});
    for (const InputSlot &slot : actor.inputs)
      send(index, slot.producer,
           {Message::Kind::Returned, 0, slot.pair, done});
  }
}

absl::Status Engine::Impl::fire(int64_t index) {
  ActorState &actor = actors[index];
  auto buffer = [&](int64_t regst) {
    const RegstState &state = regsts[regst];
    return state.buffers[actor.step % state.spec->count];
  };
  for (size_t i = 0; i < actor.operandRegsts.size(); ++i)
    actor.inputViews[i].data = buffer(actor.operandRegsts[i]);
  for (size_t i = 0; i < actor.resultRegsts.size(); ++i)
    actor.outputViews[i].data = buffer(actor.resultRegsts[i]);
  Stream &stream = *streams[actor.stream];
  Pending &pending = actor.pending[actor.step % actor.pending.size()];
  if (firingsOf)
    pending.startUs = nowUs();
  KernelContext context{firstStep + actor.step, &stream, device.get()};
  OFRT_RETURN_IF_ERROR(
      actor.kernel->compute(context, actor.inputViews, actor.outputViews));
  OFRT_RETURN_IF_ERROR(stream.record(*pending.event));
  int64_t step = actor.step++;
  if (!pending.event->notify(*this, tokenOf(index, step))) {
    pending.completed = true;
    if (firingsOf)
      pending.endUs = nowUs();
    finish(index);
  }
  return absl::OkStatus();
}

bool Engine::Impl::shouldEnd(const ActorState &actor,
                             const RunOptions &options) const {
  // End of data: a source at its step limit or out of data, an input that
  // will not deliver this step, or outputs nobody reads any more.
  for (const InputSlot &slot : actor.inputs)
    if (slot.eord && slot.available <= actor.step)
      return true;
  if (actor.inputs.empty() &&
      (actor.dataEnded ||
       (options.maxSteps >= 0 && actor.step >= options.maxSteps) ||
       (options.stepLimit &&
        options.firstStep + actor.step >= options.stepLimit->load())))
    return true;
  if (actor.pairs.empty())
    return false;
  for (const OutputPair &pair : actor.pairs)
    if (!pair.ended)
      return false;
  return true;
}

bool Engine::Impl::advance(int64_t stream, size_t &position,
                           size_t &endedCount, const RunOptions &options) {
  const std::vector<int64_t> &order = streamOrders[stream];
  bool progressed = false;
  while (!stopped && endedCount < order.size()) {
    int64_t index = order[position];
    ActorState &actor = actors[index];
    if (actor.ended) {
      position = (position + 1) % order.size();
      continue;
    }
    if (shouldEnd(actor, options)) {
      if (actor.inFlight() > 0) // End after the firings in flight.
        return progressed;
      endActor(index);
      ++endedCount;
      position = (position + 1) % order.size();
      progressed = true;
      continue;
    }
    if (!mayFire(actor))
      return progressed;
    absl::Status status = fire(index);
    progressed = true;
    if (absl::IsOutOfRange(status) && actor.inputs.empty()) {
      // A source's kernel reports the end of its data.
      actor.dataEnded = true;
      continue;
    }
    if (!status.ok()) {
      fail(actor, status, actor.step);
      return true;
    }
    position = (position + 1) % order.size();
  }
  return progressed;
}

void Engine::Impl::runWorker(int64_t worker, const RunOptions &options) {
  const std::vector<int64_t> &mine = workers[worker];
  MessageQueue &queue = *queues[worker];
  absl::StatusOr<std::unique_ptr<ThreadBinding>> binding =
      device->bindThread(streams[mine.front()].get());
  if (!binding.ok()) {
    for (int64_t s : mine)
      if (!streamOrders[s].empty()) {
        fail(actors[streamOrders[s].front()], binding.status(), 0);
        break;
      }
    return;
  }
  // Per stream: the position in its order, and how many actors ended.
  std::vector<size_t> positions(mine.size(), 0), ended(mine.size(), 0);
  size_t total = 0, done = 0;
  for (size_t i = 0; i < mine.size(); ++i) {
    total += streamOrders[mine[i]].size();
    for (int64_t a : streamOrders[mine[i]])
      ended[i] += actors[a].ended;
    done += ended[i];
  }
  while (!stopped && done < total) {
    Message message;
    while (queue.tryPop(message))
      apply(message);
    if (stopped)
      return;
    bool progressed = false;
    for (size_t i = 0; i < mine.size() && !stopped; ++i) {
      size_t before = ended[i];
      progressed |= advance(mine[i], positions[i], ended[i], options);
      done += ended[i] - before;
    }
    if (!progressed && !stopped && done < total)
      apply(queue.pop());
  }
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Engine::~Engine() = default;

const RankProgram &Engine::program() const { return impl->program; }
Device &Engine::device() const { return *impl->device; }

const void *Engine::buffer(int64_t regstId, int64_t step) const {
  for (const RegstState &regst : impl->regsts)
    if (regst.spec->id == regstId)
      return regst.buffers[step % regst.spec->count];
  return nullptr;
}

absl::StatusOr<TensorData> Engine::read(int64_t regstId, int64_t step) const {
  const RegstSpec *regst = impl->program.findRegst(regstId);
  if (!regst)
    return absl::NotFoundError("no regst " + std::to_string(regstId));
  TensorData value;
  value.desc = regst->desc;
  value.bytes.resize(regst->desc.bytes());
  const void *data = buffer(regstId, step);
  Device &device = *impl->device;
  if (device.hostAccessible()) {
    std::copy_n(static_cast<const uint8_t *>(data), value.bytes.size(),
                value.bytes.data());
    return value;
  }
  absl::StatusOr<std::unique_ptr<Stream>> stream =
      device.createStream("read");
  if (!stream.ok())
    return stream.status();
  OFRT_RETURN_IF_ERROR(
      device.copyToHost(**stream, value.bytes.data(), data, value.bytes.size()));
  OFRT_RETURN_IF_ERROR((*stream)->synchronize());
  return value;
}

absl::StatusOr<std::unique_ptr<Engine>>
Engine::create(RankProgram program, std::shared_ptr<Device> device,
               const KernelProvider &provider) {
  if (!device)
    return absl::InvalidArgumentError("an engine needs a device");
  if (device->kind() != program.device)
    return absl::InvalidArgumentError(
        std::string("rank ") + std::to_string(program.rank) + " is for " +
        deviceKindName(program.device) + " devices, not " + device->name());
  if (absl::Status status = validateProgram(program); !status.ok())
    return status;
  auto impl = std::make_unique<Impl>();
  impl->device = std::move(device);
  impl->program = std::move(program);
  if (absl::Status status = impl->setUp(provider); !status.ok())
    return status;
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

absl::StatusOr<RunResult> Engine::run(const RunOptions &options) {
  Impl &state = *impl;
  state.firstStep = options.firstStep;
  state.start = std::chrono::steady_clock::now();
  std::vector<std::vector<Firing>> firings(state.workers.size());
  state.firingsOf = options.recordFirings ? firings.data() : nullptr;
  std::vector<std::thread> threads;
  for (size_t w = 0; w < state.workers.size(); ++w)
    threads.emplace_back([&, w] { state.runWorker(w, options); });
  for (std::thread &thread : threads)
    thread.join();
  // Work still on the device (after a failure) finishes before buffers go.
  for (auto &stream : state.streams)
    (void)stream->synchronize();
  state.firingsOf = nullptr;
  if (!state.error.ok())
    return state.error;
  RunResult result;
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - state.start)
                       .count();
  result.steps = -1;
  for (const ActorState &actor : state.actors)
    if (actor.pairs.empty())
      result.steps = result.steps < 0 ? actor.finished
                                      : std::min(result.steps, actor.finished);
  if (result.steps < 0)
    result.steps = 0;
  for (auto &stream : firings)
    result.firings.insert(result.firings.end(), stream.begin(), stream.end());
  return result;
}
