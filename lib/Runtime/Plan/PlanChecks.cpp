//===- PlanChecks.cpp - Checks across the ranks of a plan -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Every rank of a plan is checked alone when it loads (validateProgram);
// what only the ranks together can get wrong is checked here: the members of
// a group must issue the same collectives in one order, or a collective
// library waits for a peer that never comes (a hang until the timeout) or
// combines different calls (wrong numbers, as when one rank reduces with
// max where the others sum).
//
//===----------------------------------------------------------------------===//

#include "ofrt/Plan.h"

#include <algorithm>
#include <cstdio>
#include <map>

using namespace ofrt;

namespace {

/// What the members of a group must agree on for one call.
std::string describe(const ActorSpec &actor) {
  const CollectiveLayout *layout = actor.op.layoutAs<CollectiveLayout>();
  std::string what = actor.op.type.substr(actor.op.type.find('.') + 1);
  if (layout && (actor.op.role == OpRole::AllReduce ||
                 actor.op.role == OpRole::ReduceScatter))
    what += layout->reduce == ReduceOp::Max   ? " (max)"
            : layout->reduce == ReduceOp::Min ? " (min)"
                                              : " (sum)";
  const TensorDesc &in = actor.op.inputs.empty() ? TensorDesc{}
                                                 : actor.op.inputs[0];
  what += std::string(" of ") + dtypeName(in.dtype);
  if (actor.op.role == OpRole::AllReduce)
    what += " x" + std::to_string(in.numel());
  return what;
}

std::string groupName(const std::vector<int64_t> &group) {
  std::string s = "[";
  for (size_t i = 0; i < group.size(); ++i)
    s += (i ? ", " : "") + std::to_string(group[i]);
  return s + "]";
}

/// The collectives of `program` (not transfers, which pair by tags) with
/// their layouts, in its streams' orders, once per firing.
std::vector<std::pair<const ActorSpec *, const CollectiveLayout *>>
collectiveCalls(const RankProgram &program) {
  std::vector<std::pair<const ActorSpec *, const CollectiveLayout *>> calls;
  for (const StreamSpec &stream : program.streams)
    for (int64_t id : stream.actors) {
      const ActorSpec *actor = program.findActor(id);
      if (actor && isCollective(actor->op.role) &&
          actor->op.role != OpRole::Transfer)
        calls.emplace_back(actor, actor->op.layoutAs<CollectiveLayout>());
    }
  return calls;
}

} // namespace

absl::Status ofrt::checkCollectivesAgree(const std::vector<RankProgram> &ranks) {
  // Per group, per rank, the calls in stream order (one per firing).
  std::map<std::vector<int64_t>, std::map<int64_t, std::vector<const ActorSpec *>>>
      calls;
  for (const RankProgram &program : ranks)
    for (auto [actor, layout] : collectiveCalls(program))
      if (layout && layout->group.size() > 1)
        calls[layout->group][program.rank].push_back(actor);
  for (auto &[group, byRank] : calls) {
    // The first member the plan has is the reference.
    auto reference = byRank.end();
    for (int64_t member : group)
      if ((reference = byRank.find(member)) != byRank.end())
        break;
    for (int64_t member : group) {
      bool inPlan = false;
      for (const RankProgram &program : ranks)
        inPlan |= program.rank == member;
      if (!inPlan || member == reference->first)
        continue;
      const std::vector<const ActorSpec *> &theirs = byRank[member];
      const std::vector<const ActorSpec *> &ours = reference->second;
      std::string prefix = "the ranks of group " + groupName(group) +
                           " disagree on their collectives: ";
      for (size_t k = 0; k < std::min(ours.size(), theirs.size()); ++k) {
        std::string a = describe(*ours[k]), b = describe(*theirs[k]);
        if (a != b)
          return absl::InvalidArgumentError(
              prefix + "call #" + std::to_string(k) + " is " + a + " on rank " +
              std::to_string(reference->first) + " (" +
              ours[k]->op.where() + ") but " + b + " on rank " +
              std::to_string(member) + " (" + theirs[k]->op.where() +
              "); the plan was edited, corrupted or put together from "
              "different programs");
      }
      if (ours.size() != theirs.size())
        return absl::InvalidArgumentError(
            prefix + "rank " + std::to_string(reference->first) + " issues " +
            std::to_string(ours.size()) + " per step, rank " +
            std::to_string(member) + " " + std::to_string(theirs.size()) +
            " (a peer would wait for a call that never comes); the plan was "
            "edited, corrupted or put together from different programs");
    }
  }
  return absl::OkStatus();
}

namespace {

/// FNV-1a, 64 bits, continued from `hash`.
uint64_t fnv1a(const std::string &bytes,
               uint64_t hash = 1469598103934665603ull) {
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

} // namespace

uint64_t ofrt::planChecksum(const std::string &serialized) {
  return fnv1a(serialized);
}

std::string ofrt::collectivesDigest(const std::vector<RankProgram> &ranks) {
  // Over each rank's calls: group, what must agree, operand type.
  uint64_t hash = fnv1a("");
  auto mix = [&](const std::string &text) { hash = fnv1a(text + ';', hash); };
  for (const RankProgram &program : ranks) {
    mix("rank " + std::to_string(program.rank));
    for (auto [actor, layout] : collectiveCalls(program))
      mix(groupName(layout ? layout->group : std::vector<int64_t>{}) + " " +
          describe(*actor) + " " +
          (actor->op.inputs.empty() ? "" : actor->op.inputs[0].str()));
  }
  char digits[17];
  std::snprintf(digits, sizeof(digits), "%016llx",
                static_cast<unsigned long long>(hash));
  return digits;
}
