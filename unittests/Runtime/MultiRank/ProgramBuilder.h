//===- ProgramBuilder.h - Hand-built rank programs for tests ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Builds a RankProgram actor by actor, in program order: each actor's
// results become fresh regsts (two buffers each), consumers are filled in,
// collective and transfer actors go on the "collective" stream and the rest
// on "compute", as docs/multi-rank-plans.md lays plans out.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_MULTIRANK_PROGRAMBUILDER_H
#define ONEFLOW_UNITTESTS_RUNTIME_MULTIRANK_PROGRAMBUILDER_H

#include "../TestRoles.h"
#include "ofrt/CollectiveKernels.h"
#include "ofrt/Program.h"

namespace oftest {

class ProgramBuilder {
public:
  explicit ProgramBuilder(int64_t rank) { program.rank = rank; }

  /// Adds an actor reading regsts `inputs`; returns its result regsts.
  std::vector<int64_t> add(const std::string &type, const std::string &name,
                           std::map<std::string, ofrt::AttrValue> attrs,
                           const std::vector<int64_t> &inputs,
                           const std::vector<ofrt::TensorDesc> &results,
                           ofrt::ActorLayout layout = {}) {
    ofrt::ActorSpec actor;
    actor.id = program.actors.size();
    actor.op.type = type;
    actor.op.role = roleOf(type);
    actor.op.name = name;
    actor.op.attrs = std::move(attrs);
    // A variable's name is an attribute its op declares (ODS requires it).
    if (actor.op.role == ofrt::OpRole::Variable)
      actor.op.attrs.emplace("name", name);
    actor.op.layout = std::move(layout);
    actor.stream = ofrt::isCollective(actor.op.role) ? "collective" : "compute";
    actor.inputs = inputs;
    for (int64_t id : inputs) {
      ofrt::RegstSpec &regst = program.regsts[id];
      regst.consumers.push_back(actor.id);
      actor.op.inputs.push_back(regst.desc);
    }
    for (const ofrt::TensorDesc &desc : results) {
      ofrt::RegstSpec regst;
      regst.id = program.regsts.size();
      regst.desc = desc;
      regst.count = 2;
      regst.producer = actor.id;
      program.regsts.push_back(regst);
      actor.outputs.push_back(regst.id);
      actor.op.outputs.push_back(desc);
    }
    program.actors.push_back(std::move(actor));
    return program.actors.back().outputs;
  }

  /// The program, with one stream per kind of actor in program order.
  ofrt::RankProgram finish() {
    ofrt::RankProgram result = program;
    std::map<std::string, std::vector<int64_t>> streams;
    for (const ofrt::ActorSpec &actor : result.actors)
      streams[actor.stream].push_back(actor.id);
    for (auto &[name, actors] : streams)
      result.streams.push_back({name, actors});
    return result;
  }

private:
  ofrt::RankProgram program;
};

} // namespace oftest

#endif // ONEFLOW_UNITTESTS_RUNTIME_MULTIRANK_PROGRAMBUILDER_H
