//===- Stalls.cpp - Runs that can never finish, found and explained ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A plan whose stream orders and buffer counts deadlock leaves every worker
// asleep on an empty queue with nothing running on the device. A watcher
// thread notices that state lasting a second and ends the run with an
// error that names the actors that wait and what for.
//
//===----------------------------------------------------------------------===//

#include "EngineState.h"

#include <algorithm>
#include <optional>

using namespace ofrt;
using namespace ofrt::engine;

std::string Engine::Impl::whyWaiting(const ActorState &actor) const {
  std::string text = "actor '" + actor.spec->op.name + "' (" +
                     actor.spec->op.where() + ") at firing " +
                     std::to_string(actor.step);
  if (actor.inFlight() >= static_cast<int64_t>(actor.pending.size()))
    return text + " has every firing in flight";
  for (const InputSlot &slot : actor.inputs)
    if (slot.available <= actor.step / slot.reads)
      return text + " waits for item " +
             std::to_string(actor.step / slot.reads) + " of regst " +
             std::to_string(regsts[slot.regst].spec->id) + " from '" +
             actors[slot.producer].spec->op.name + "'";
  int64_t item = actor.step / actor.spec->firingsPerOutput;
  for (const OutputPair &pair : actor.pairs) {
    const RegstSpec &regst = *regsts[actor.resultRegsts[pair.output]].spec;
    if (!pair.ended && pair.returned < item - regst.count + 1)
      return text + " waits for '" + actors[pair.consumer].spec->op.name +
             "' to return item " + std::to_string(item - regst.count) +
             " of regst " + std::to_string(regst.id) + " (" +
             std::to_string(regst.count) + " buffers)";
  }
  return text + " could fire but its stream's order puts another first";
}

void Engine::Impl::watchForStalls(RunEnd &end, const StepGate *gate) {
  using Clock = std::chrono::steady_clock;
  constexpr auto kPoll = std::chrono::milliseconds(20);
  constexpr auto kStall = std::chrono::milliseconds(1000);
  std::optional<Clock::time_point> since;
  uint64_t seen = 0;
  int64_t workerCount = static_cast<int64_t>(workers.size());
  while (!stopped) {
    {
      std::unique_lock<std::mutex> lock(end.mutex);
      if (end.changed.wait_for(lock, kPoll, [&] { return end.finished; }))
        return;
    }
    // Sources held at a gate wait for the job to agree where to stop.
    bool quiet = idleWorkers.load() == workerCount &&
                 asyncPending.load() == 0 && !(gate && gate->holding());
    for (size_t w = 0; quiet && w < queues.size(); ++w)
      quiet = queues[w]->empty();
    uint64_t now = progress.load();
    if (!quiet || (since && now != seen)) {
      since.reset();
      continue;
    }
    if (!since) {
      since = Clock::now();
      seen = now;
      continue;
    }
    if (Clock::now() - *since < kStall)
      continue;
    // Every worker sleeps on an empty queue (their last changes were made
    // before they took their queue's lock, which empty() took since).
    std::vector<const ActorState *> waiting;
    for (const ActorState &actor : actors)
      if (!actor.ended)
        waiting.push_back(&actor);
    std::stable_sort(waiting.begin(), waiting.end(),
                     [](const ActorState *a, const ActorState *b) {
                       return a->step < b->step;
                     });
    std::string message = "rank " + std::to_string(program.rank) +
                          ": no actor can fire any more (a deadlock of the "
                          "plan's stream orders and buffer counts); waiting: ";
    for (size_t i = 0; i < waiting.size() && i < 6; ++i)
      message += (i ? "; " : "") + whyWaiting(*waiting[i]);
    if (waiting.size() > 6)
      message += "; and " + std::to_string(waiting.size() - 6) + " more";
    {
      std::lock_guard<std::mutex> lock(errorMutex);
      if (error.ok())
        error = absl::InternalError(message);
    }
    stopped = true;
    for (auto &queue : queues)
      queue->push({Message::Kind::Stop, 0, 0, 0});
    return;
  }
}
