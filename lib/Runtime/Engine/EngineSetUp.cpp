//===- EngineSetUp.cpp - An engine built from a rank's program ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Streams and the workers that drive them, regst buffers (in the planned
// arena or one allocation each), the protocol slots between producers and
// consumers, an event per firing that may be in flight, and the kernels,
// created under the device's thread binding as the workers will run them.
//
//===----------------------------------------------------------------------===//

#include "EngineState.h"
#include "ofrt/Status.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace ofrt;
using namespace ofrt::engine;

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
  OFRT_RETURN_IF_ERROR(setUpStreams(actorIndex));
  OFRT_RETURN_IF_ERROR(setUpBuffers());
  setUpSlots(actorIndex, regstIndex);
  OFRT_RETURN_IF_ERROR(setUpEvents());
  OFRT_RETURN_IF_ERROR(createKernels(provider));
  return setUpOrdering();
}

absl::Status
Engine::Impl::setUpStreams(const std::map<int64_t, int64_t> &actorIndex) {
  // Regsts whose buffers overlap another's in the arena.
  std::set<int64_t> sharing;
  {
    std::vector<std::tuple<int64_t, int64_t, int64_t>> placed;
    for (const RegstSpec &spec : program.regsts)
      if (spec.offset >= 0)
        placed.push_back({spec.offset,
                          spec.offset + alignedBytes(spec.desc) * spec.count,
                          spec.id});
    std::sort(placed.begin(), placed.end());
    int64_t reach = -1, reacher = -1;
    for (const auto &[begin, end, id] : placed) {
      if (begin < reach) {
        sharing.insert(id);
        sharing.insert(reacher);
      }
      if (end > reach) {
        reach = end;
        reacher = id;
      }
    }
  }
  for (RegstState &regst : regsts)
    regst.shared = sharing.count(regst.spec->id) != 0;
  auto isFree = [&](const ActorSpec &spec) {
    if (spec.firingsPerStep < 2)
      return false;
    for (const std::vector<int64_t> *ids : {&spec.inputs, &spec.outputs})
      for (int64_t id : *ids)
        if (sharing.count(id))
          return false;
    return true;
  };
  auto addStream = [&](const std::string &name,
                       const std::vector<int64_t> &order) -> absl::Status {
    std::vector<int64_t> distinct;
    bool collective = false, anyFree = false;
    for (size_t i = 0; i < order.size(); ++i) {
      ActorState &actor = actors[order[i]];
      actor.stream = streamOrders.size();
      actor.listed.push_back(i);
      actor.free = isFree(*actor.spec);
      anyFree |= actor.free;
      collective |= isCollective(actor.spec->op.role);
      if (std::find(distinct.begin(), distinct.end(), order[i]) ==
          distinct.end())
        distinct.push_back(order[i]);
    }
    streamOrders.push_back(order);
    streamActors.push_back(std::move(distinct));
    streamOrdered.push_back(collective || !anyFree);
    absl::StatusOr<std::unique_ptr<Stream>> created =
        device->createStream(name);
    if (!created.ok())
      return absl::Status(created.status().code(),
                          "cannot create stream '" + name + "' on " +
                              device->name() + ": " +
                              std::string(created.status().message()));
    streams.push_back(std::move(*created));
    return absl::OkStatus();
  };
  // A transfer that runs per micro-batch (between pipeline stages) may get
  // a stream, and so a thread, of its own: its tags are its own, and a
  // stage must not wait for one micro-batch's gradient before it sends the
  // next micro-batch.
  bool ownTransfers = device->transferThreads() && !device->oneStreamThread();
  for (const StreamSpec &stream : program.streams) {
    std::vector<int64_t> order;
    std::map<int64_t, std::vector<int64_t>> alone;
    for (int64_t id : stream.actors) {
      int64_t a = actorIndex.at(id);
      const ActorSpec &spec = *actors[a].spec;
      if (ownTransfers && spec.op.role == OpRole::Transfer &&
          spec.firingsPerStep > 1)
        alone[a].push_back(a);
      else
        order.push_back(a);
    }
    if (absl::Status status = addStream(stream.name, order); !status.ok())
      return status;
    for (const auto &[a, listing] : alone)
      if (absl::Status status =
              addStream(stream.name + "." + actors[a].spec->op.name, listing);
          !status.ok())
        return status;
  }

  // Workers: a thread per stream, or one for them all.
  for (size_t s = 0; s < streamOrders.size(); ++s) {
    if (workers.empty() || !device->oneStreamThread())
      workers.emplace_back();
    workers.back().push_back(s);
    for (int64_t a : streamActors[s])
      actors[a].worker = workers.size() - 1;
  }
  for (size_t w = 0; w < workers.size(); ++w)
    queues.push_back(std::make_unique<MessageQueue>());

  return absl::OkStatus();
}

absl::Status Engine::Impl::setUpBuffers() {
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
    absl::StatusOr<char *> block =
        allocate(program.arenaBytes,
                 "the " + std::to_string(program.arenaBytes) + "-byte arena");
    if (!block.ok())
      return block.status();
    arena = *block;
  }
  for (RegstState &regst : regsts) {
    int64_t size = alignedBytes(regst.spec->desc);
    char *base = arena ? arena + regst.spec->offset : nullptr;
    if (regst.spec->offset < 0) {
      absl::StatusOr<char *> block = allocate(
          size * regst.spec->count, "regst " + std::to_string(regst.spec->id));
      if (!block.ok())
        return block.status();
      base = *block;
    }
    for (int64_t i = 0; i < regst.spec->count; ++i)
      regst.buffers.push_back(base + i * size);
  }

  return absl::OkStatus();
}

void Engine::Impl::setUpSlots(const std::map<int64_t, int64_t> &actorIndex,
                              const std::map<int64_t, int64_t> &regstIndex) {
  // Protocol slots: distinct input regsts, and (output, consumer) pairs.
  for (ActorState &actor : actors) {
    for (int64_t id : actor.spec->inputs) {
      actor.operandRegsts.push_back(regstIndex.at(id));
      actor.inputViews.push_back(
          {nullptr, regsts[regstIndex.at(id)].spec->desc});
    }
    for (int64_t id : actor.spec->outputs) {
      actor.resultRegsts.push_back(regstIndex.at(id));
      actor.outputViews.push_back(
          {nullptr, regsts[regstIndex.at(id)].spec->desc});
    }
  }
  for (int64_t a = 0; a < static_cast<int64_t>(actors.size()); ++a) {
    ActorState &actor = actors[a];
    for (int64_t o = 0; o < static_cast<int64_t>(actor.resultRegsts.size());
         ++o) {
      const RegstSpec &regst = *regsts[actor.resultRegsts[o]].spec;
      for (int64_t consumerId : regst.consumers) {
        int64_t c = actorIndex.at(consumerId);
        ActorState &consumer = actors[c];
        InputSlot slot;
        slot.regst = actor.resultRegsts[o];
        slot.producer = a;
        slot.pair = actor.pairs.size();
        slot.reads =
            consumer.spec->firingsPerStep / actor.spec->outputsPerStep();
        actor.pairs.push_back(
            {o, c, (int64_t)consumer.inputs.size(), 0, false});
        consumer.inputs.push_back(std::move(slot));
      }
    }
  }

  for (ActorState &actor : actors)
    for (int64_t r : actor.operandRegsts)
      for (const InputSlot &slot : actor.inputs)
        if (slot.regst == r) {
          actor.operandReads.push_back(slot.reads);
          break;
        }
}

absl::Status Engine::Impl::setUpEvents() {
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

  return absl::OkStatus();
}

absl::Status Engine::Impl::createKernels(const KernelProvider &provider) {
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
