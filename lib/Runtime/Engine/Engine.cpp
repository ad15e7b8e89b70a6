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
// guards actor state. A stream runs its actors in order, step after step,
// when it talks to other ranks (collectives, transfers: every rank must
// issue them in one order) or when the memory plan relies on that order.
// Otherwise (pipeline stages, whose per-micro-batch regsts have buffers of
// their own) a stream never waits on one actor while another could go: a
// free actor (one that fires per micro-batch and shares no memory) fires as
// soon as it can, any other once every firing listed before its own has
// started; among those that can, the first in the order goes. Stages then
// overlap their micro-batches as far as the regsts' buffers allow. An actor
// can fire when every input slot has the step readable, every output has a
// free buffer and it has an event free. With DeviceOptions::
// transferThreads, each transfer that runs per micro-batch gets a stream
// and a thread of its own. A
// worker goes on with whichever of its streams can, and sleeps on its queue
// when none can. Messages between actors of one worker are applied at once.
//
// A firing is done when its event completes. On the CPU that is before
// record() returns, and the engine finishes the firing inline; on an
// asynchronous device the event calls the engine back (on any thread),
// which queues a Completed message for the actor's stream thread. An actor
// finishes its firings in step order even if their completions arrive out
// of order, and ends (EORD) only once none is in flight. On such a device
// most consumers and producers are told of a firing when it is enqueued,
// not when it is done (StreamOrder.cpp).
//
//===----------------------------------------------------------------------===//

#include "EngineState.h"
#include "ofrt/Status.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

using namespace ofrt;
using namespace ofrt::engine;

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
  } else {
    Message message{Message::Kind::Completed, actor, 0, step};
    queues[actors[actor].worker]->push(message);
  }
  // Last: run() waits for this count to reach zero before it returns, so
  // nothing above touches an engine that is gone.
  asyncPending.fetch_sub(1);
}

void Engine::Impl::apply(const Message &message) {
  progress.fetch_add(1, std::memory_order_relaxed);
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
  case Message::Kind::Wake:
    break;
  }
}

bool Engine::Impl::mayFire(const ActorState &actor) const {
  if (actor.inFlight() >= static_cast<int64_t>(actor.pending.size()))
    return false;
  for (const InputSlot &slot : actor.inputs)
    if (slot.available <= actor.step / slot.reads)
      return false;
  int64_t item = actor.step / actor.spec->firingsPerOutput;
  for (const OutputPair &pair : actor.pairs) {
    int64_t count = regsts[actor.resultRegsts[pair.output]].spec->count;
    // Buffer item % count is free once this consumer returned item - count.
    if (!pair.ended && pair.returned < item - count + 1)
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

/// Finishes, in step order, the firings of `index` whose work is done, and
/// tells what waited for that.
void Engine::Impl::finish(int64_t index) {
  ActorState &actor = actors[index];
  while (actor.inFlight() > 0) {
    int64_t done = actor.finished;
    Pending &pending = actor.pending[done % actor.pending.size()];
    if (!pending.completed)
      return;
    pending.completed = false;
    ++actor.finished;
    int64_t rate = actor.spec->firingsPerStep;
    if (firingsOf)
      firingsOf[actor.worker].push_back({actor.spec->id, done / rate,
                                         pending.startUs, pending.endUs,
                                         done % rate, pending.hostWait});
    // Nothing is recorded on a stream here, so nothing can fail.
    (void)announce(index, done, /*atEnqueue=*/false);
  }
}

absl::Status Engine::Impl::fire(int64_t index) {
  ActorState &actor = actors[index];
  auto buffer = [&](int64_t regst, int64_t item) {
    const RegstState &state = regsts[regst];
    return state.buffers[item % state.spec->count];
  };
  for (size_t i = 0; i < actor.operandRegsts.size(); ++i)
    actor.inputViews[i].data =
        buffer(actor.operandRegsts[i], actor.step / actor.operandReads[i]);
  for (size_t i = 0; i < actor.resultRegsts.size(); ++i)
    actor.outputViews[i].data = buffer(
        actor.resultRegsts[i], actor.step / actor.spec->firingsPerOutput);
  Stream &stream = *streams[actor.stream];
  Pending &pending = actor.pending[actor.step % actor.pending.size()];
  if (firingsOf)
    pending.startUs = nowUs();
  int64_t rate = actor.spec->firingsPerStep;
  KernelContext context{firstStep + actor.step / rate, &stream, device.get(),
                        actor.step % rate, rate};
  bool drained = false;
  if (async) {
    OFRT_RETURN_IF_ERROR(orderAcrossStreams(index, actor.step));
    if (actor.drainsStream) {
      OFRT_RETURN_IF_ERROR(stream.synchronize());
      drained = true;
    }
  }
  OFRT_RETURN_IF_ERROR(
      actor.kernel->compute(context, actor.inputViews, actor.outputViews));
  OFRT_RETURN_IF_ERROR(stream.record(*pending.event));
  int64_t step = actor.step++;
  progress.fetch_add(1, std::memory_order_relaxed);
  if (async)
    OFRT_RETURN_IF_ERROR(announce(index, step, /*atEnqueue=*/true));
  pending.hostWait = drained || (async && waitsForHost(actor, step));
  // Counted before notify: the completion may come at once.
  asyncPending.fetch_add(1);
  if (pending.event->notify(*this, tokenOf(index, step))) {
    if (pending.hostWait)
      hostWaits.fetch_add(1, std::memory_order_relaxed);
    return absl::OkStatus();
  }
  asyncPending.fetch_sub(1);
  pending.hostWait = false;
  pending.completed = true;
  if (firingsOf)
    pending.endUs = nowUs();
  finish(index);
  return absl::OkStatus();
}

bool Engine::Impl::shouldEnd(const ActorState &actor,
                             const RunOptions &options) const {
  // End of data: a source at its step limit or out of data, an input that
  // will not deliver this step, or outputs nobody reads any more.
  for (const InputSlot &slot : actor.inputs)
    if (slot.eord && slot.available <= actor.step / slot.reads)
      return true;
  // Sources end at a step boundary.
  int64_t rate = actor.spec->firingsPerStep;
  if (actor.inputs.empty() && actor.step % rate == 0 &&
      (actor.dataEnded ||
       (options.maxSteps >= 0 && actor.step / rate >= options.maxSteps) ||
       (options.gate &&
        options.gate->admit(options.firstStep + actor.step / rate) ==
            StepGate::Verdict::End)))
    return true;
  if (actor.pairs.empty())
    return false;
  for (const OutputPair &pair : actor.pairs)
    if (!pair.ended)
      return false;
  return true;
}

bool Engine::Impl::gated(const ActorState &actor,
                         const RunOptions &options) const {
  int64_t rate = actor.spec->firingsPerStep;
  return options.gate && actor.inputs.empty() && actor.step % rate == 0 &&
         options.gate->admit(options.firstStep + actor.step / rate) ==
             StepGate::Verdict::Wait;
}

bool Engine::Impl::predecessorsFired(const ActorState &actor) const {
  int64_t position = priorityOf(actor);
  int64_t length = streamOrders[actor.stream].size();
  int64_t steps = position / length, within = position % length;
  for (int64_t other : streamActors[actor.stream]) {
    const ActorState &before = actors[other];
    if (&before == &actor || before.ended)
      continue;
    // Its firings listed before `position`.
    int64_t n = before.listed.size();
    int64_t listedBefore =
        std::lower_bound(before.listed.begin(), before.listed.end(), within) -
        before.listed.begin();
    if (before.step < steps * n + listedBefore)
      return false;
  }
  return true;
}

bool Engine::Impl::advanceFree(int64_t stream, size_t &endedCount,
                               const RunOptions &options) {
  std::set<std::pair<int64_t, int64_t>> &queue = byPriority[stream];
  bool progressed = false;
  while (!stopped && !queue.empty()) {
    int64_t chosen = -1;
    for (auto it = queue.begin(); it != queue.end();) {
      int64_t index = it->second;
      ActorState &actor = actors[index];
      if (shouldEnd(actor, options)) {
        if (actor.inFlight() > 0) { // End after the firings in flight.
          ++it;
          continue;
        }
        endActor(index);
        ++endedCount;
        progressed = true;
        it = queue.erase(it);
        continue;
      }
      if (mayFire(actor) && !gated(actor, options) &&
          (actor.free || predecessorsFired(actor))) {
        chosen = index;
        queue.erase(it);
        break;
      }
      ++it;
    }
    if (chosen < 0)
      return progressed;
    ActorState &actor = actors[chosen];
    absl::Status status = fire(chosen);
    progressed = true;
    if (absl::IsOutOfRange(status) && actor.inputs.empty()) {
      // A source's kernel reports the end of its data.
      actor.dataEnded = true;
    } else if (!status.ok()) {
      fail(actor, status, actor.step);
      return true;
    }
    queue.insert({priorityOf(actor), chosen});
  }
  return progressed;
}

bool Engine::Impl::advance(int64_t stream, size_t &position,
                           size_t &endedCount, const RunOptions &options) {
  if (!streamOrdered[stream])
    return advanceFree(stream, endedCount, options);
  const std::vector<int64_t> &order = streamOrders[stream];
  size_t distinct = streamActors[stream].size();
  bool progressed = false;
  while (!stopped && endedCount < distinct) {
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
    if (!mayFire(actor) || gated(actor, options))
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
    total += streamActors[mine[i]].size();
    for (int64_t a : streamActors[mine[i]]) {
      ended[i] += actors[a].ended;
      if (!streamOrdered[mine[i]] && !actors[a].ended)
        byPriority[mine[i]].insert({priorityOf(actors[a]), a});
    }
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
    if (!progressed && !stopped && done < total) {
      idleWorkers.fetch_add(1);
      Message message = queue.pop();
      idleWorkers.fetch_sub(1);
      apply(message);
    }
  }
}

void Engine::Impl::awaitCompletions() {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
  while (asyncPending.load() > 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      std::lock_guard<std::mutex> lock(errorMutex);
      std::string missing = std::to_string(asyncPending.load()) +
                            " completion(s) of the device never came (a "
                            "minute after its streams synchronized)";
      error = error.ok() ? absl::InternalError(missing)
                         : absl::Status(error.code(), std::string(
                                                          error.message()) +
                                                          "; " + missing);
      return;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Engine::~Engine() = default;

const RankProgram &Engine::program() const { return impl->program; }
Device &Engine::device() const { return *impl->device; }

const void *Engine::buffer(int64_t regstId, int64_t step) const {
  for (const RegstState &regst : impl->regsts) {
    if (regst.spec->id != regstId)
      continue;
    // The step's last item.
    const ActorSpec *producer = impl->program.findActor(regst.spec->producer);
    int64_t items = producer ? producer->outputsPerStep() : 1;
    return regst.buffers[((step + 1) * items - 1) % regst.spec->count];
  }
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

absl::StatusOr<RunResult> Engine::run(const RunOptions &options) {
  Impl &state = *impl;
  state.firstStep = options.firstStep;
  state.idleWorkers = 0;
  state.asyncPending = 0;
  state.hostWaits = 0;
  state.start = std::chrono::steady_clock::now();
  state.epoch = options.epoch.value_or(state.start);
  std::vector<std::vector<Firing>> firings(state.workers.size());
  state.byPriority.assign(state.streams.size(), {});
  state.firingsOf = options.recordFirings ? firings.data() : nullptr;
  // A released gate wakes every worker to look at its sources again.
  int64_t wakeId = -1;
  if (options.gate)
    wakeId = options.gate->subscribe([&state] {
      for (auto &queue : state.queues)
        queue->push({Message::Kind::Wake, 0, 0, 0});
    });
  std::vector<std::thread> threads;
  for (size_t w = 0; w < state.workers.size(); ++w)
    threads.emplace_back([&, w] {
      state.runWorker(w, options);
      state.idleWorkers.fetch_add(1); // Finished: it waits on nothing.
    });
  Impl::RunEnd end;
  std::thread watcher([&] { state.watchForStalls(end, options.gate); });
  for (std::thread &thread : threads)
    thread.join();
  if (options.gate)
    options.gate->unsubscribe(wakeId);
  {
    std::lock_guard<std::mutex> lock(end.mutex);
    end.finished = true;
  }
  end.changed.notify_all();
  watcher.join();
  // Work still on the device (after a failure) finishes before buffers go.
  for (auto &stream : state.streams)
    (void)stream->synchronize();
  state.awaitCompletions();
  state.firingsOf = nullptr;
  if (!state.error.ok())
    return state.error;
  RunResult result;
  result.seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - state.start)
                       .count();
  result.steps = -1;
  for (const ActorState &actor : state.actors) {
    int64_t steps = actor.finished / actor.spec->firingsPerStep;
    if (actor.pairs.empty())
      result.steps = result.steps < 0 ? steps : std::min(result.steps, steps);
  }
  if (result.steps < 0)
    result.steps = 0;
  result.threads = static_cast<int64_t>(state.workers.size());
  result.hostWaits = state.hostWaits.load();
  for (auto &stream : firings)
    result.firings.insert(result.firings.end(), stream.begin(), stream.end());
  if (options.recordFirings)
    result.stepLoads = stepLoads(state.program, result.firings, result.steps);
  return result;
}
