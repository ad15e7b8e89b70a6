//===- Trace.cpp - Chrome trace of actor firings, and their steps' load ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Device.h"
#include "ofrt/Engine.h"

#include "trace.pb.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>

using namespace ofrt;

namespace {

/// Appends `program`'s streams and `firings` as process `program.rank`.
void addRank(proto::Trace &trace, const RankProgram &program,
             const std::vector<Firing> &firings) {
  std::map<int64_t, const ActorSpec *> actors;
  std::map<std::string, int> streamIds;
  proto::TraceEvent *process = trace.add_traceevents();
  process->set_name("process_name");
  process->set_ph("M");
  process->set_pid(program.rank);
  (*process->mutable_args())["name"] =
      "rank " + std::to_string(program.rank) + " (" +
      deviceKindName(program.device) + ":" +
      std::to_string(program.deviceOrdinal) + ")";
  for (const StreamSpec &stream : program.streams) {
    int tid = streamIds.size();
    streamIds[stream.name] = tid;
    proto::TraceEvent *meta = trace.add_traceevents();
    meta->set_name("thread_name");
    meta->set_ph("M");
    meta->set_pid(program.rank);
    meta->set_tid(tid);
    (*meta->mutable_args())["name"] = stream.name;
  }
  for (const ActorSpec &actor : program.actors)
    actors[actor.id] = &actor;
  for (const Firing &firing : firings) {
    const ActorSpec &actor = *actors.at(firing.actor);
    proto::TraceEvent *event = trace.add_traceevents();
    event->set_name(actor.op.name.empty() ? actor.op.type : actor.op.name);
    event->set_cat(actor.op.type);
    event->set_ph("X");
    event->set_ts(firing.startUs);
    event->set_dur(firing.endUs - firing.startUs);
    event->set_pid(program.rank);
    event->set_tid(streamIds[actor.stream]);
    (*event->mutable_args())["step"] = std::to_string(firing.step);
    if (actor.firingsPerStep > 1)
      (*event->mutable_args())["micro_batch"] = std::to_string(firing.micro);
    if (!actor.op.location.empty())
      (*event->mutable_args())["location"] = actor.op.location;
    if (firing.hostWait)
      (*event->mutable_args())["host_wait"] = "true";
  }
}

absl::Status writeTrace(const proto::Trace &trace, const std::string &path) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  // Rank 0's and stream 0's events need their pid and tid written out.
  options.always_print_primitive_fields = true;
  std::string json;
  if (auto status =
          google::protobuf::util::MessageToJsonString(trace, &json, options);
      !status.ok())
    return absl::InternalError("cannot write the trace as JSON: " +
                               status.ToString());
  // Write to a temporary file first, so a failure never leaves half a trace.
  std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out)
      return absl::NotFoundError("cannot open trace file '" + path +
                                 "' for writing");
    out << json << "\n";
    if (!out.flush())
      return absl::DataLossError("cannot write trace file '" + path + "'");
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0)
    return absl::DataLossError("cannot move the trace into '" + path + "'");
  return absl::OkStatus();
}

} // namespace

absl::Status ofrt::writeChromeTrace(const RankProgram &program,
                                    const std::vector<Firing> &firings,
                                    const std::string &path) {
  proto::Trace trace;
  addRank(trace, program, firings);
  return writeTrace(trace, path);
}

absl::Status
ofrt::writeChromeTrace(const std::vector<RankProgram> &programs,
                       const std::vector<std::vector<Firing>> &firings,
                       const std::string &path) {
  proto::Trace trace;
  for (size_t r = 0; r < programs.size() && r < firings.size(); ++r)
    addRank(trace, programs[r], firings[r]);
  return writeTrace(trace, path);
}

std::vector<StepLoad> ofrt::stepLoads(const RankProgram &program,
                                      const std::vector<Firing> &firings,
                                      int64_t steps) {
  std::set<int64_t> compute;
  for (const ActorSpec &actor : program.actors)
    if (actor.stream == "compute")
      compute.insert(actor.id);
  std::vector<StepLoad> loads(std::max<int64_t>(steps, 0));
  for (const Firing &f : firings) {
    if (f.step < 0 || f.step >= steps)
      continue;
    StepLoad &load = loads[f.step];
    load.endUs = std::max(load.endUs, f.endUs);
    if (compute.count(f.actor))
      load.computeUs += f.endUs - f.startUs;
  }
  return loads;
}
