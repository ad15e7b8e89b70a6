//===- PlanLoader.cpp - Loading compiled plans ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Plan.h"

#include "plan.pb.h"

#include <google/protobuf/text_format.h>

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

using namespace ofrt;

int64_t ofrt::currentPlanVersion() { return proto::CURRENT; }

static absl::StatusOr<DType> convertDType(proto::DType dtype) {
  switch (dtype) {
  case proto::F32:
    return DType::F32;
  case proto::F64:
    return DType::F64;
  case proto::F16:
    return DType::F16;
  case proto::BF16:
    return DType::BF16;
  case proto::I8:
    return DType::I8;
  case proto::I32:
    return DType::I32;
  case proto::I64:
    return DType::I64;
  case proto::BOOL:
    return DType::Bool;
  default:
    return absl::InvalidArgumentError("unknown element type " +
                                      std::to_string(dtype));
  }
}

static absl::StatusOr<TensorDesc> convertDesc(const proto::TensorDesc &desc) {
  absl::StatusOr<DType> dtype = convertDType(desc.dtype());
  if (!dtype.ok())
    return dtype.status();
  TensorDesc out{*dtype, {}};
  for (int64_t dim : desc.shape()) {
    if (dim < 0)
      return absl::InvalidArgumentError("negative dimension " +
                                        std::to_string(dim));
    out.shape.push_back(dim);
  }
  return out;
}

static absl::StatusOr<AttrValue> convertAttr(const proto::AttrValue &attr) {
  switch (attr.value_case()) {
  case proto::AttrValue::kI:
    return AttrValue(attr.i());
  case proto::AttrValue::kF:
    return AttrValue(attr.f());
  case proto::AttrValue::kB:
    return AttrValue(attr.b());
  case proto::AttrValue::kS:
    return AttrValue(attr.s());
  case proto::AttrValue::kInts:
    return AttrValue(std::vector<int64_t>(attr.ints().values().begin(),
                                          attr.ints().values().end()));
  case proto::AttrValue::kFloats:
    return AttrValue(std::vector<double>(attr.floats().values().begin(),
                                         attr.floats().values().end()));
  case proto::AttrValue::kTensor: {
    absl::StatusOr<TensorDesc> desc = convertDesc(attr.tensor().desc());
    if (!desc.ok())
      return desc.status();
    const std::string &data = attr.tensor().data();
    if (data.size() != desc->bytes())
      return absl::InvalidArgumentError(
          "tensor of " + desc->str() + " needs " +
          std::to_string(desc->bytes()) + " bytes but holds " +
          std::to_string(data.size()));
    TensorData tensor{*desc, std::vector<uint8_t>(data.begin(), data.end())};
    return AttrValue(std::move(tensor));
  }
  case proto::AttrValue::VALUE_NOT_SET:
    break;
  }
  return absl::InvalidArgumentError("attribute has no value");
}

static absl::StatusOr<RankProgram> convertRank(const proto::RankPlan &rank) {
  RankProgram program;
  program.rank = rank.rank();
  if (rank.device() == "cpu")
    program.device = DeviceKind::Cpu;
  else if (rank.device() == "cuda")
    program.device = DeviceKind::Cuda;
  else
    return absl::InvalidArgumentError("rank " + std::to_string(rank.rank()) +
                                      " has unknown device '" + rank.device() +
                                      "'");
  program.arenaBytes = rank.arena_bytes();
  std::map<int64_t, TensorDesc> descs;
  for (const proto::Regst &r : rank.regsts()) {
    absl::StatusOr<TensorDesc> desc = convertDesc(r.desc());
    if (!desc.ok())
      return absl::InvalidArgumentError("regst " + std::to_string(r.id()) +
                                        ": " +
                                        std::string(desc.status().message()));
    RegstSpec spec;
    spec.id = r.id();
    spec.desc = *desc;
    spec.count = r.count();
    spec.producer = r.producer();
    spec.consumers.assign(r.consumers().begin(), r.consumers().end());
    spec.offset = r.offset();
    descs[spec.id] = spec.desc;
    program.regsts.push_back(std::move(spec));
  }
  for (const proto::Actor &a : rank.actors()) {
    ActorSpec spec;
    spec.id = a.id();
    spec.op.type = a.op();
    spec.op.name = a.name();
    spec.op.location = a.location();
    spec.stream = a.stream();
    spec.inputs.assign(a.inputs().begin(), a.inputs().end());
    spec.outputs.assign(a.outputs().begin(), a.outputs().end());
    for (const auto &[name, value] : a.attrs()) {
      absl::StatusOr<AttrValue> attr = convertAttr(value);
      if (!attr.ok())
        return absl::InvalidArgumentError(
            "attribute '" + name + "' of " + spec.op.where() + ": " +
            std::string(attr.status().message()));
      spec.op.attrs[name] = std::move(*attr);
    }
    // Descs of unknown regsts stay empty; validation names the regst.
    for (int64_t id : spec.inputs)
      spec.op.inputs.push_back(descs.count(id) ? descs[id] : TensorDesc{});
    for (int64_t id : spec.outputs)
      spec.op.outputs.push_back(descs.count(id) ? descs[id] : TensorDesc{});
    program.actors.push_back(std::move(spec));
  }
  for (const proto::Stream &s : rank.streams())
    program.streams.push_back(
        {s.name(), std::vector<int64_t>(s.actors().begin(), s.actors().end())});
  if (absl::Status status = validateProgram(program); !status.ok())
    return absl::InvalidArgumentError("rank " + std::to_string(rank.rank()) +
                                      ": " + std::string(status.message()));
  return program;
}

absl::StatusOr<LoadedPlan> ofrt::parsePlan(const std::string &bytes, bool text,
                                           const std::string &what) {
  proto::Plan plan;
  bool parsed = text ? google::protobuf::TextFormat::ParseFromString(bytes, &plan)
                     : plan.ParseFromString(bytes);
  if (!parsed)
    return absl::InvalidArgumentError(
        "cannot read plan '" + what + "': not a valid plan in " +
        (text ? "text" : "binary") + " format (corrupt or not a plan)");
  if (plan.version() != proto::CURRENT)
    return absl::FailedPreconditionError(
        "plan '" + what + "' has schema version " +
        std::to_string(plan.version()) + " but this runtime reads version " +
        std::to_string(proto::CURRENT) + "; recompile the model");
  if (plan.ranks().empty())
    return absl::InvalidArgumentError("plan '" + what + "' has no ranks");
  LoadedPlan loaded;
  loaded.worldSize = plan.world_size();
  loaded.source = plan.source();
  for (const proto::RankPlan &rank : plan.ranks()) {
    absl::StatusOr<RankProgram> program = convertRank(rank);
    if (!program.ok())
      return absl::InvalidArgumentError("plan '" + what + "', " +
                                        std::string(program.status().message()));
    loaded.ranks.push_back(std::move(*program));
  }
  return loaded;
}

absl::StatusOr<LoadedPlan> ofrt::loadPlanFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError("cannot open plan file '" + path +
                               "': " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  auto endsWith = [&](const std::string &suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) ==
               0;
  };
  bool text = endsWith(".plantxt") || endsWith(".pbtxt") || endsWith(".txtpb");
  return parsePlan(buffer.str(), text, path);
}
