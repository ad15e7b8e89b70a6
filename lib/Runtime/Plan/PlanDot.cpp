//===- PlanDot.cpp - A plan as a Graphviz graph ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One cluster per rank and, inside it, per stream; an actor is a node
// (name, op, firings per step), a regst an edge from its producer to each
// consumer labelled with its id, type and buffer count. Collectives are
// filled orange, transfers blue; a transfer's send is joined to the
// matching receive on the peer rank by a dashed edge.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Device.h"
#include "ofrt/Plan.h"

#include <map>
#include <sstream>
#include <tuple>

using namespace ofrt;

namespace {

/// `text` as a DOT string literal's contents.
std::string escape(const std::string &text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out;
}

std::string node(int64_t rank, int64_t actor) {
  return "r" + std::to_string(rank) + "_a" + std::to_string(actor);
}

std::string style(const ActorSpec &actor) {
  if (actor.op.role == OpRole::Transfer)
    return ", style=filled, fillcolor=\"#b3d9ff\"";
  if (isCollective(actor.op.role))
    return ", style=filled, fillcolor=\"#ffcc80\"";
  if (isDataEndpoint(actor.op.role))
    return ", style=rounded";
  return "";
}

} // namespace

std::string ofrt::planToDot(const LoadedPlan &plan) {
  std::ostringstream out;
  out << "digraph plan {\n  rankdir=TB;\n  newrank=true;\n"
      << "  node [shape=box, fontname=\"Helvetica\", fontsize=10];\n"
      << "  edge [fontname=\"Helvetica\", fontsize=8];\n";
  // (rank, peer rank, tag) of each send, to join it to its receive.
  std::map<std::tuple<int64_t, int64_t, uint32_t>, std::string> sends;
  std::vector<std::pair<std::tuple<int64_t, int64_t, uint32_t>, std::string>>
      recvs;
  for (const RankProgram &rank : plan.ranks) {
    std::map<int64_t, const ActorSpec *> byId;
    for (const ActorSpec &actor : rank.actors)
      byId[actor.id] = &actor;
    out << "  subgraph cluster_rank" << rank.rank << " {\n    label=\"rank "
        << rank.rank << " (" << deviceKindName(rank.device) << ":"
        << rank.deviceOrdinal << ")\";\n";
    for (const StreamSpec &stream : rank.streams) {
      out << "    subgraph cluster_rank" << rank.rank << "_"
          << escape(stream.name) << " {\n      label=\"stream "
          << escape(stream.name) << "\"; style=dashed;\n";
      std::map<int64_t, bool> listed;
      for (int64_t id : stream.actors) {
        if (listed[id] || !byId.count(id))
          continue;
        listed[id] = true;
        const ActorSpec &actor = *byId[id];
        out << "      " << node(rank.rank, id) << " [label=\""
            << escape(actor.op.name) << "\\n"
            << escape(actor.op.type);
        if (actor.firingsPerStep > 1)
          out << "\\nx" << actor.firingsPerStep << " per step";
        out << "\"" << style(actor) << "];\n";
      }
      out << "    }\n";
    }
    out << "  }\n";
    for (const RegstSpec &regst : rank.regsts)
      for (int64_t consumer : regst.consumers)
        out << "  " << node(rank.rank, regst.producer) << " -> "
            << node(rank.rank, consumer) << " [label=\"r" << regst.id << " "
            << regst.desc.str() << " x" << regst.count << "\"];\n";
    for (const ActorSpec &actor : rank.actors)
      if (const TransferLayout *transfer =
              actor.op.layoutAs<TransferLayout>()) {
        auto global = [&](int64_t peer) {
          return peer >= 0 &&
                         peer < static_cast<int64_t>(transfer->group.size())
                     ? transfer->group[peer]
                     : peer;
        };
        for (const PointToPoint &send : transfer->sends)
          sends[{rank.rank, global(send.peer), send.tag}] =
              node(rank.rank, actor.id);
        for (const PointToPoint &recv : transfer->recvs)
          recvs.push_back({{global(recv.peer), rank.rank, recv.tag},
                           node(rank.rank, actor.id)});
      }
  }
  for (const auto &[key, receiver] : recvs) {
    auto it = sends.find(key);
    if (it != sends.end() && it->second != receiver)
      out << "  " << it->second << " -> " << receiver
          << " [style=dashed, color=\"#1f77b4\", constraint=false];\n";
  }
  out << "}\n";
  return out.str();
}
