//===- Program.cpp - Checking a rank program before it runs ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/KernelParams.h"
#include "ofrt/Program.h"

#include <algorithm>
#include <map>
#include <set>

using namespace ofrt;

const ActorSpec *RankProgram::findActor(int64_t id) const {
  for (const ActorSpec &actor : actors)
    if (actor.id == id)
      return &actor;
  return nullptr;
}

const RegstSpec *RankProgram::findRegst(int64_t id) const {
  for (const RegstSpec &regst : regsts)
    if (regst.id == id)
      return &regst;
  return nullptr;
}

int64_t ofrt::alignedBytes(const TensorDesc &desc) {
  int64_t bytes = desc.bytes();
  return (bytes + 63) / 64 * 64;
}

static std::string actorName(const ActorSpec &actor) {
  return "actor " + std::to_string(actor.id) + " (" + actor.op.where() + ")";
}

/// Kahn's algorithm over data edges and stream-order edges.
static absl::Status checkAcyclic(const RankProgram &program,
                                 const std::map<int64_t, size_t> &actorIndex) {
  size_t n = program.actors.size();
  std::vector<std::vector<size_t>> succ(n);
  std::vector<int> indegree(n, 0);
  auto addEdge = [&](size_t from, size_t to) {
    succ[from].push_back(to);
    ++indegree[to];
  };
  for (const RegstSpec &regst : program.regsts)
    for (int64_t consumer : regst.consumers)
      addEdge(actorIndex.at(regst.producer), actorIndex.at(consumer));
  // Stream order between first firings (an actor may be listed again).
  for (const StreamSpec &stream : program.streams) {
    std::vector<int64_t> firsts;
    std::set<int64_t> seen;
    for (int64_t id : stream.actors)
      if (seen.insert(id).second)
        firsts.push_back(id);
    for (size_t i = 1; i < firsts.size(); ++i)
      addEdge(actorIndex.at(firsts[i - 1]), actorIndex.at(firsts[i]));
  }
  std::vector<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0)
      ready.push_back(i);
  size_t visited = 0;
  while (!ready.empty()) {
    size_t i = ready.back();
    ready.pop_back();
    ++visited;
    for (size_t j : succ[i])
      if (--indegree[j] == 0)
        ready.push_back(j);
  }
  if (visited == n)
    return absl::OkStatus();
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] > 0)
      return absl::InvalidArgumentError(
          actorName(program.actors[i]) +
          " is on a cycle of data and stream-order dependencies (the plan "
          "would deadlock)");
  return absl::InvalidArgumentError("the plan has a dependency cycle");
}

namespace {

absl::Status invalid(const std::string &message) {
  return absl::InvalidArgumentError(message);
}

/// An actor's firing counts, and that the pieces and boxes of its last
/// micro-batch fit.
absl::Status checkActorFirings(const ActorSpec &actor) {
  if (actor.firingsPerStep < 1)
    return invalid(actorName(actor) + " fires " +
                   std::to_string(actor.firingsPerStep) +
                   " times per step; it needs at least 1");
  if (actor.firingsPerOutput < 1 ||
      actor.firingsPerStep % actor.firingsPerOutput != 0)
    return invalid(actorName(actor) + " writes an output every " +
                   std::to_string(actor.firingsPerOutput) +
                   " firings, which does not divide its " +
                   std::to_string(actor.firingsPerStep) + " firings per step");
  if (const SinkLayout *sink = actor.op.layoutAs<SinkLayout>();
      sink && !sink->piece.microStride.empty())
    return invalid(actorName(actor) +
                   " is an output whose piece moves "
                   "with the micro-batch; outputs read a whole step");
  if (const PieceLayout *piece = actor.op.layoutAs<PieceLayout>();
      piece && !piece->microStride.empty() && !actor.op.outputs.empty()) {
    const std::vector<int64_t> &local = actor.op.outputs[0].shape;
    std::vector<int64_t> last = piece->beginAt(actor.firingsPerStep - 1);
    bool fits = piece->microStride.size() == local.size() &&
                piece->logicalShape.size() == local.size();
    for (size_t d = 0; fits && d < local.size(); ++d)
      fits = last[d] >= 0 && last[d] + local[d] <= piece->logicalShape[d];
    if (!fits)
      return invalid(actorName(actor) + "'s piece of its last micro-batch "
                                        "does not fit in its logical shape");
  }
  if (const LocalBoxingLayout *box = actor.op.layoutAs<LocalBoxingLayout>();
      box && !box->microStride.empty() && actor.op.inputs.size() == 1 &&
      actor.op.outputs.size() == 1) {
    const std::vector<int64_t> &in = actor.op.inputs[0].shape;
    const std::vector<int64_t> &out = actor.op.outputs[0].shape;
    bool fits = box->microStride.size() == in.size() &&
                box->begin.size() == in.size() && out.size() == in.size();
    for (size_t d = 0; fits && d < in.size(); ++d) {
      int64_t last =
          box->begin[d] + (actor.firingsPerStep - 1) * box->microStride[d];
      fits = last >= 0 && last + out[d] <= in[d];
    }
    if (!fits)
      return invalid(actorName(actor) + "'s box of its last micro-batch "
                                        "does not fit in its operand");
  }
  return absl::OkStatus();
}

/// A regst's count, shape, size, place in the arena, and that its producer
/// and consumers exist and list it.
absl::Status checkRegst(const RegstSpec &regst, const RankProgram &program,
                        const std::map<int64_t, size_t> &actorIndex) {
  std::string name = "regst " + std::to_string(regst.id);
  if (regst.count < 1 || regst.count > kMaxRegstCount)
    return invalid(name + " has count " + std::to_string(regst.count) +
                   "; it needs 1 to " + std::to_string(kMaxRegstCount) +
                   " buffers");
  for (int64_t dim : regst.desc.shape)
    if (dim < 0)
      return invalid(name + " has a negative dimension");
  if (!actorIndex.count(regst.producer))
    return invalid(name + " names producer " + std::to_string(regst.producer) +
                   ", which is no actor");
  const ActorSpec &producer = program.actors[actorIndex.at(regst.producer)];
  if (std::find(producer.outputs.begin(), producer.outputs.end(), regst.id) ==
      producer.outputs.end())
    return invalid(name + " names producer " + actorName(producer) +
                   ", which does not list it as an output");
  for (int64_t consumer : regst.consumers) {
    if (!actorIndex.count(consumer))
      return invalid(name + " names consumer " + std::to_string(consumer) +
                     ", which is no actor");
    const ActorSpec &actor = program.actors[actorIndex.at(consumer)];
    if (std::find(actor.inputs.begin(), actor.inputs.end(), regst.id) ==
        actor.inputs.end())
      return invalid(name + " names consumer " + actorName(actor) +
                     ", which does not list it as an input");
  }
  int64_t bytes = regst.desc.checkedBytes();
  if (bytes < 0)
    return invalid(name + " of " + regst.desc.str() +
                   " holds more than 2^48 bytes (256 TiB)");
  // Both factors are bounded, so this cannot overflow.
  if (regst.offset >= 0 &&
      (regst.offset > kMaxTensorBytes * kMaxRegstCount ||
       regst.offset + regst.count * alignedBytes(regst.desc) >
           program.arenaBytes))
    return invalid(name + " does not fit the " +
                   std::to_string(program.arenaBytes) + "-byte arena");
  return absl::OkStatus();
}

/// Each actor is on exactly one stream, listed once per firing.
absl::Status checkStreams(const RankProgram &program,
                          const std::map<int64_t, size_t> &actorIndex) {
  std::map<int64_t, int> onStreams;
  std::map<int64_t, int64_t> listings;
  for (const StreamSpec &stream : program.streams) {
    std::set<int64_t> here;
    for (int64_t id : stream.actors) {
      if (!actorIndex.count(id))
        return invalid("stream '" + stream.name + "' lists actor " +
                       std::to_string(id) + ", which does not exist");
      if (here.insert(id).second)
        ++onStreams[id];
      ++listings[id];
    }
  }
  for (const ActorSpec &actor : program.actors) {
    if (onStreams[actor.id] != 1)
      return invalid(actorName(actor) + " is on " +
                     std::to_string(onStreams[actor.id]) +
                     " streams; it must be on exactly one");
    if (listings[actor.id] != actor.firingsPerStep)
      return invalid(actorName(actor) + " fires " +
                     std::to_string(actor.firingsPerStep) +
                     " times per step but its stream lists it " +
                     std::to_string(listings[actor.id]) + " times");
  }
  return absl::OkStatus();
}

/// The regsts an actor reads and writes: declared, of its op's types,
/// listing it, and (inputs) giving it a whole number of reads per value.
absl::Status
checkActorRegsts(const ActorSpec &actor, const RankProgram &program,
                 const std::map<int64_t, const RegstSpec *> &regsts,
                 const std::map<int64_t, size_t> &actorIndex) {
  auto checkRegsts = [&](const std::vector<int64_t> &ids, bool isInput,
                         const std::vector<TensorDesc> &descs) {
    if (ids.size() != descs.size())
      return invalid(actorName(actor) + " has " + std::to_string(ids.size()) +
                     (isInput ? " input" : " output") + " regsts but its op " +
                     "describes " + std::to_string(descs.size()));
    for (size_t i = 0; i < ids.size(); ++i) {
      auto it = regsts.find(ids[i]);
      if (it == regsts.end())
        return invalid(actorName(actor) + " uses regst " +
                       std::to_string(ids[i]) + ", which is not declared");
      const RegstSpec &regst = *it->second;
      if (regst.desc != descs[i])
        return invalid(actorName(actor) + " expects " + descs[i].str() +
                       " but regst " + std::to_string(regst.id) + " holds " +
                       regst.desc.str());
      bool listed = isInput ? std::count(regst.consumers.begin(),
                                         regst.consumers.end(), actor.id) == 1
                            : regst.producer == actor.id;
      if (isInput) {
        const ActorSpec &producer =
            program.actors[actorIndex.at(regst.producer)];
        if (actor.firingsPerStep % producer.outputsPerStep() != 0)
          return invalid(actorName(actor) + " fires " +
                         std::to_string(actor.firingsPerStep) +
                         " times per step but reads regst " +
                         std::to_string(regst.id) + ", which gets " +
                         std::to_string(producer.outputsPerStep()) +
                         " values per step; it must read each value the "
                         "same number of times");
      }
      if (!listed)
        return invalid("regst " + std::to_string(regst.id) + " does not list " +
                       actorName(actor) + " as its " +
                       (isInput ? "consumer" : "producer"));
    }
    return absl::OkStatus();
  };
  if (absl::Status s = checkRegsts(actor.inputs, true, actor.op.inputs);
      !s.ok())
    return s;
  if (absl::Status s = checkRegsts(actor.outputs, false, actor.op.outputs);
      !s.ok())
    return s;
  return absl::OkStatus();
}

} // namespace

absl::Status ofrt::validateProgram(const RankProgram &program) {
  std::map<int64_t, size_t> actorIndex;
  // Inputs, outputs and variables are found by name (feeds, fetches,
  // checkpoints): each needs one of its own.
  std::set<std::pair<std::string, std::string>> names;
  for (size_t i = 0; i < program.actors.size(); ++i) {
    const ActorSpec &actor = program.actors[i];
    if (!actorIndex.emplace(actor.id, i).second)
      return invalid("actor id " + std::to_string(actor.id) + " is used twice");
    const std::string &type = actor.op.type;
    if (isDataEndpoint(actor.op.role)) {
      std::string name = ofrt::userName(actor.op);
      if (name.empty())
        return invalid(actorName(actor) + " has no name (" + type +
                       " actors are found by name)");
      if (!names.insert({type, name}).second)
        return invalid(actorName(actor) + " has the name '" + name +
                       "' of an earlier " + type);
    }
    if (absl::Status s = checkActorFirings(actor); !s.ok())
      return s;
  }
  std::map<int64_t, const RegstSpec *> regsts;
  for (const RegstSpec &regst : program.regsts) {
    if (!regsts.emplace(regst.id, &regst).second)
      return invalid("regst " + std::to_string(regst.id) +
                     " is declared twice");
    if (absl::Status s = checkRegst(regst, program, actorIndex); !s.ok())
      return s;
  }
  if (absl::Status s = checkStreams(program, actorIndex); !s.ok())
    return s;
  for (const ActorSpec &actor : program.actors)
    if (absl::Status s = checkActorRegsts(actor, program, regsts, actorIndex);
        !s.ok())
      return s;
  return checkAcyclic(program, actorIndex);
}
