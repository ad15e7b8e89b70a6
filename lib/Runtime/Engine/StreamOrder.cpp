//===- StreamOrder.cpp - Firings ordered by streams, not by the host ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// On an asynchronous device (a GPU) a kernel's work runs on its stream after
// compute() returns. The engine does not wait for the host to see it finish
// before the actors around it go on, where stream order keeps the data
// safe, as OneFlow's actors do:
// - a consumer on the producer's stream is told the item is readable as
//   soon as the producer's firing is enqueued (its kernels come later in
//   stream order), and the producer that its buffer is free as soon as the
//   consumer's firing is enqueued;
// - a consumer on another stream is told the same, and its stream waits
//   for the producer's event of the buffer (recorded after the write)
//   before its first read; a producer's stream waits for the consumer's
//   event of the buffer (recorded after its last read) before it writes
//   there again. An event is recorded again only after every stream that
//   waits for it has enqueued its wait: a buffer's producer writes it
//   again only once its consumers returned it, after they read it; a
//   consumer reads it again only once the producer wrote it again;
// - where one side runs on the host (Kernel::runsOnHost), what it reads
//   waits for the host to see the other's firing finish (a host wait);
//   what it wrote on the host, or read there, is done when compute()
//   returns. A kernel on the host that writes memory the memory plan
//   shares between regsts of its stream first waits for the stream's
//   work, which may still use that memory (a host wait too).
// On the CPU every firing is done before it is announced, as before.
//
//===----------------------------------------------------------------------===//

#include "EngineState.h"
#include "ofrt/Status.h"

using namespace ofrt;
using namespace ofrt::engine;

absl::Status Engine::Impl::setUpOrdering() {
  async = device->asynchronous();
  for (ActorState &actor : actors) {
    actor.onHost = !async || actor.kernel->runsOnHost();
    for (int64_t r : actor.resultRegsts)
      actor.drainsStream |= async && actor.onHost && regsts[r].shared;
  }
  auto events = [&](std::vector<std::unique_ptr<Event>> &list,
                    int64_t count) -> absl::Status {
    while (static_cast<int64_t>(list.size()) < count) {
      absl::StatusOr<std::unique_ptr<Event>> event = device->createEvent();
      if (!event.ok())
        return event.status();
      list.push_back(std::move(*event));
    }
    return absl::OkStatus();
  };
  for (ActorState &producer : actors)
    for (OutputPair &pair : producer.pairs) {
      ActorState &consumer = actors[pair.consumer];
      // On the CPU both are told once the firing is done, which it is
      // before they could be told anything.
      pair.readyAtEnqueue = async && (producer.onHost || !consumer.onHost);
      pair.returnAtEnqueue = async && (consumer.onHost || !producer.onHost);
      pair.orderedAcross = async && !producer.onHost && !consumer.onHost &&
                           producer.stream != consumer.stream;
      producer.hostWaits |= !pair.readyAtEnqueue;
      consumer.hostWaits |= !pair.returnAtEnqueue;
      if (!pair.orderedAcross)
        continue;
      RegstState &regst = regsts[producer.resultRegsts[pair.output]];
      OFRT_RETURN_IF_ERROR(events(regst.written, regst.spec->count));
      OFRT_RETURN_IF_ERROR(
          events(consumer.inputs[pair.slot].read, regst.spec->count));
    }
  return absl::OkStatus();
}

absl::Status Engine::Impl::orderAcrossStreams(int64_t index,
                                              int64_t firing) {
  ActorState &actor = actors[index];
  Stream &stream = *streams[actor.stream];
  for (const InputSlot &slot : actor.inputs) {
    const OutputPair &pair = actors[slot.producer].pairs[slot.pair];
    if (!pair.orderedAcross || firing % slot.reads != 0)
      continue;
    // The first read of the item: later ones follow it on this stream.
    const RegstState &regst = regsts[slot.regst];
    int64_t item = firing / slot.reads;
    OFRT_RETURN_IF_ERROR(
        stream.waitFor(*regst.written[item % regst.spec->count]));
  }
  int64_t perOutput = actor.spec->firingsPerOutput;
  if (firing % perOutput != 0)
    return absl::OkStatus();
  int64_t item = firing / perOutput;
  for (const OutputPair &pair : actor.pairs) {
    int64_t count = regsts[actor.resultRegsts[pair.output]].spec->count;
    if (!pair.orderedAcross || item < count)
      continue;
    // The consumer's last read of what the buffer held before.
    OFRT_RETURN_IF_ERROR(stream.waitFor(
        *actors[pair.consumer].inputs[pair.slot].read[item % count]));
  }
  return absl::OkStatus();
}

absl::Status Engine::Impl::announce(int64_t index, int64_t firing,
                                    bool atEnqueue) {
  ActorState &actor = actors[index];
  Stream &stream = *streams[actor.stream];
  // An output item is ready after its last firing; an input item goes
  // back after the last firing that reads it.
  int64_t perOutput = actor.spec->firingsPerOutput;
  if ((firing + 1) % perOutput == 0)
    for (const OutputPair &pair : actor.pairs) {
      if (pair.ended || pair.readyAtEnqueue != atEnqueue)
        continue;
      int64_t item = firing / perOutput;
      if (pair.orderedAcross) {
        RegstState &regst = regsts[actor.resultRegsts[pair.output]];
        OFRT_RETURN_IF_ERROR(
            stream.record(*regst.written[item % regst.spec->count]));
      }
      send(index, pair.consumer, {Message::Kind::Ready, 0, pair.slot, item});
    }
  for (InputSlot &slot : actor.inputs) {
    const OutputPair &pair = actors[slot.producer].pairs[slot.pair];
    if ((firing + 1) % slot.reads != 0 || pair.returnAtEnqueue != atEnqueue)
      continue;
    int64_t item = firing / slot.reads;
    if (pair.orderedAcross)
      OFRT_RETURN_IF_ERROR(
          stream.record(*slot.read[item % regsts[slot.regst].spec->count]));
    send(index, slot.producer, {Message::Kind::Returned, 0, slot.pair, item});
  }
  return absl::OkStatus();
}

bool Engine::Impl::waitsForHost(const ActorState &actor,
                                int64_t firing) const {
  if (!actor.hostWaits)
    return false;
  if ((firing + 1) % actor.spec->firingsPerOutput == 0)
    for (const OutputPair &pair : actor.pairs)
      if (!pair.ended && !pair.readyAtEnqueue)
        return true;
  for (const InputSlot &slot : actor.inputs)
    if ((firing + 1) % slot.reads == 0 &&
        !actors[slot.producer].pairs[slot.pair].returnAtEnqueue)
      return true;
  return false;
}
