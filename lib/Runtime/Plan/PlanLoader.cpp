//===- PlanLoader.cpp - Loading compiled plans ----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Plan.h"

#include "plan.pb.h"

#include "absl/strings/match.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
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
  case proto::U8:
    return DType::U8;
  case proto::I16:
    return DType::I16;
  case proto::U16:
    return DType::U16;
  case proto::U32:
    return DType::U32;
  case proto::U64:
    return DType::U64;
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
  if (out.checkedBytes() < 0)
    return absl::InvalidArgumentError(
        "tensor of " + out.str() +
        " holds more than 2^48 bytes (256 TiB), more than any device's "
        "memory");
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
  case proto::AttrValue::kStrings:
    return AttrValue(std::vector<std::string>(attr.strings().values().begin(),
                                              attr.strings().values().end()));
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

static std::vector<int64_t>
ints(const google::protobuf::RepeatedField<int64_t> &values) {
  return std::vector<int64_t>(values.begin(), values.end());
}

static PieceLayout convertPiece(const proto::Piece &piece) {
  return {ints(piece.logical_shape()), ints(piece.begin()), piece.zero(),
          ints(piece.micro_stride())};
}

static std::vector<PointToPoint>
convertRecords(const google::protobuf::RepeatedPtrField<proto::PointToPoint>
                   &records) {
  std::vector<PointToPoint> out;
  for (const proto::PointToPoint &record : records)
    out.push_back({record.peer(), record.tag(), ints(record.begin()),
                   ints(record.size())});
  return out;
}

/// The actor's typed layout message as the runtime's ActorLayout.
static ActorLayout convertLayout(const proto::Actor &actor) {
  switch (actor.layout_case()) {
  case proto::Actor::kPiece:
    return convertPiece(actor.piece());
  case proto::Actor::kSink:
    return SinkLayout{convertPiece(actor.sink().piece()),
                      actor.sink().partial(), actor.sink().primary()};
  case proto::Actor::kCollective: {
    const proto::Collective &c = actor.collective();
    ReduceOp reduce = c.reduction() == proto::REDUCTION_MAX   ? ReduceOp::Max
                      : c.reduction() == proto::REDUCTION_MIN ? ReduceOp::Min
                                                              : ReduceOp::Sum;
    return CollectiveLayout{ints(c.group()), c.axis(), c.in_axis(),
                            c.out_axis(), reduce};
  }
  case proto::Actor::kTransfer: {
    const proto::Transfer &t = actor.transfer();
    return TransferLayout{ints(t.group()), convertRecords(t.sends()),
                          convertRecords(t.recvs()), t.reduce()};
  }
  case proto::Actor::kLocalBoxing:
    return LocalBoxingLayout{ints(actor.local_boxing().begin()),
                             actor.local_boxing().keep(),
                             ints(actor.local_boxing().micro_stride())};
  case proto::Actor::kIndexRange:
    return IndexRange{actor.index_range().begin(), actor.index_range().limit()};
  case proto::Actor::kDivisor:
    return MeanDivisor{actor.divisor().divisor()};
  case proto::Actor::LAYOUT_NOT_SET:
    break;
  }
  return std::monostate();
}

/// The actor's role; one that does not fit the op, a reduction the runtime
/// does not know, or a layout that only another role reads is an error (an
/// edited plan).
static absl::StatusOr<OpRole> convertRole(const proto::Actor &actor,
                                          const OpDesc &op) {
  static const std::map<proto::Role, OpRole> roles = {
      {proto::ROLE_KERNEL, OpRole::Kernel},
      {proto::ROLE_INPUT, OpRole::Input},
      {proto::ROLE_OUTPUT, OpRole::Output},
      {proto::ROLE_VARIABLE, OpRole::Variable},
      {proto::ROLE_ALL_REDUCE, OpRole::AllReduce},
      {proto::ROLE_REDUCE_SCATTER, OpRole::ReduceScatter},
      {proto::ROLE_ALL_GATHER, OpRole::AllGather},
      {proto::ROLE_ALL_TO_ALL, OpRole::AllToAll},
      {proto::ROLE_TRANSFER, OpRole::Transfer},
      {proto::ROLE_OPTIMIZER, OpRole::Optimizer}};
  auto known = roles.find(actor.role());
  if (known == roles.end())
    return absl::InvalidArgumentError(op.where() + " has role " +
                                      std::to_string(actor.role()) +
                                      ", which this runtime does not know");
  OpRole role = known->second;
  // The role follows from the op (roleOfOp, as the plan export gives it).
  proto::Role expected = proto::ROLE_KERNEL;
  for (const auto &[protoRole, opRole] : roles)
    if (opRole == roleOfOp(op.type))
      expected = protoRole;
  if (actor.role() != expected)
    return absl::InvalidArgumentError(
        op.where() + " has role " + proto::Role_Name(actor.role()) +
        ", but an actor of " + op.type + " has role " +
        proto::Role_Name(expected));
  if (actor.layout_case() == proto::Actor::kCollective &&
      !proto::Reduction_IsValid(actor.collective().reduction()))
    return absl::InvalidArgumentError(
        op.where() + " reduces with reduction " +
        std::to_string(actor.collective().reduction()) +
        ", which this runtime does not know (sum, max or min)");
  bool fits = true;
  switch (actor.layout_case()) {
  case proto::Actor::kSink:
    fits = role == OpRole::Output;
    break;
  case proto::Actor::kCollective:
    fits = isCollective(role) && role != OpRole::Transfer;
    break;
  case proto::Actor::kTransfer:
    fits = role == OpRole::Transfer;
    break;
  default:
    break;
  }
  if (!fits)
    return absl::InvalidArgumentError(op.where() + " has role " +
                                      proto::Role_Name(actor.role()) +
                                      " but a layout only another role reads");
  return role;
}

static absl::StatusOr<RankProgram> convertRank(const proto::RankPlan &rank) {
  RankProgram program;
  program.rank = rank.rank();
  switch (rank.device().kind()) {
  case proto::CPU:
    program.device = DeviceKind::Cpu;
    break;
  case proto::CUDA:
    program.device = DeviceKind::Cuda;
    break;
  default:
    return absl::InvalidArgumentError(
        "rank " + std::to_string(rank.rank()) + " has no device kind (" +
        proto::DeviceKind_Name(rank.device().kind()) + ")");
  }
  if (rank.device().ordinal() < 0)
    return absl::InvalidArgumentError(
        "rank " + std::to_string(rank.rank()) + " has device ordinal " +
        std::to_string(rank.device().ordinal()));
  program.deviceOrdinal = rank.device().ordinal();
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
    spec.firingsPerStep = a.firings_per_step();
    spec.firingsPerOutput = std::max<int64_t>(1, a.firings_per_output());
    spec.op.layout = convertLayout(a);
    absl::StatusOr<OpRole> role = convertRole(a, spec.op);
    if (!role.ok())
      return absl::InvalidArgumentError("rank " + std::to_string(rank.rank()) +
                                        ": " +
                                        std::string(role.status().message()));
    spec.op.role = *role;
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

/// Parses text format; `lenient` skips fields this schema does not have
/// (those of other versions), so that the version can be read first. The
/// first error, "line:column: message", goes to `error`.
static bool parseText(const std::string &bytes, proto::Plan &plan,
                      bool lenient, std::string &error) {
  class Collector : public google::protobuf::io::ErrorCollector {
  public:
    explicit Collector(std::string &first) : first(first) {}
    void AddError(int line, int column, const std::string &message) override {
      if (first.empty())
        first = std::to_string(line + 1) + ":" + std::to_string(column + 1) +
                ": " + message;
    }
    void AddWarning(int, int, const std::string &) override {}

  private:
    std::string &first;
  };
  Collector collector(error);
  google::protobuf::TextFormat::Parser parser;
  parser.AllowUnknownField(lenient);
  parser.RecordErrorsTo(&collector);
  return parser.ParseFromString(bytes, &plan);
}

/// The plan's bytes with attribute maps in key order, as the compiler
/// writes them (PlanExport.cpp).
static std::string serializeDeterministic(const proto::Plan &plan) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  {
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    plan.SerializeToCodedStream(&coded);
  }
  return bytes;
}

absl::StatusOr<std::string> ofrt::planToText(const std::string &bytes,
                                             const std::string &what) {
  if (absl::StatusOr<LoadedPlan> loaded = parsePlan(bytes, false, what);
      !loaded.ok())
    return loaded.status();
  proto::Plan plan;
  plan.ParseFromString(bytes);
  plan.clear_checksum();
  std::string text;
  if (!google::protobuf::TextFormat::PrintToString(plan, &text))
    return absl::InternalError("cannot print plan '" + what + "' as text");
  return text;
}

absl::StatusOr<std::string> ofrt::planFromText(const std::string &text,
                                               const std::string &what) {
  if (absl::StatusOr<LoadedPlan> loaded = parsePlan(text, true, what);
      !loaded.ok())
    return loaded.status();
  proto::Plan plan;
  std::string error;
  parseText(text, plan, /*lenient=*/false, error);
  plan.clear_checksum();
  plan.set_checksum(planChecksum(serializeDeterministic(plan)));
  return serializeDeterministic(plan);
}

absl::StatusOr<LoadedPlan> ofrt::parsePlan(const std::string &bytes, bool text,
                                           const std::string &what) {
  proto::Plan plan;
  // A corrupt plan's errors are ours to report (protobuf would also log,
  // e.g., strings that are not UTF-8, on stderr).
  google::protobuf::LogSilencer quiet;
  // The version first (a plan of another version may not parse strictly),
  // then the whole plan.
  std::string error;
  bool parsed = text ? parseText(bytes, plan, /*lenient=*/true, error)
                     : plan.ParseFromString(bytes);
  if (!parsed && text) {
    // A plan of another version may not parse at all (version 1's device
    // was a string): its version line still says which it is.
    size_t at = bytes.find("version:");
    if (at != std::string::npos) {
      std::string word;
      for (size_t i = at + 8; i < bytes.size(); ++i) {
        char ch = bytes[i];
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')
          word += ch;
        else if (!word.empty())
          break;
      }
      proto::Version version;
      if (proto::Version_Parse(word, &version) && version != proto::CURRENT)
        plan.set_version(version), parsed = true;
    }
  }
  if (bytes.empty())
    return absl::InvalidArgumentError("plan '" + what +
                                      "' is empty (0 bytes); it is no plan");
  if (!parsed)
    return absl::InvalidArgumentError(
        "cannot read plan '" + what + "': not a valid plan in " +
        (text ? "text" : "binary") + " format (" +
        (error.empty() ? "corrupt or not a plan" : error) + ")");
  if (plan.version() == proto::VERSION_UNSPECIFIED)
    return absl::InvalidArgumentError(
        "'" + what +
        "' has no schema version: it is not a plan, or one older than "
        "version 1 (compile the model with of-translate --export-plan or "
        "of-run --emit-plan)");
  if (plan.version() != proto::CURRENT)
    return absl::FailedPreconditionError(
        "plan '" + what + "' has schema version " +
        std::to_string(plan.version()) + " but this runtime reads version " +
        std::to_string(proto::CURRENT) + "; recompile the model");
  if (text && !parseText(bytes, plan, /*lenient=*/false, error))
    return absl::InvalidArgumentError("cannot read plan '" + what +
                                      "': not a valid version " +
                                      std::to_string(proto::CURRENT) +
                                      " plan in text format (" + error + ")");
  if (plan.checksum() != 0) {
    proto::Plan unsummed = plan;
    unsummed.clear_checksum();
    if (planChecksum(serializeDeterministic(unsummed)) != plan.checksum())
      return absl::DataLossError(
          "plan '" + what + "' does not match its checksum: it was "
          "corrupted after it was written (recompile the model)");
  }
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
  // Test hook: load a plan whose ranks disagree, to test what the
  // collective libraries do with a peer that never comes.
  if (std::getenv("OFRT_TEST_UNCHECKED_COLLECTIVES"))
    return loaded;
  if (absl::Status status = checkCollectivesAgree(loaded.ranks); !status.ok())
    return absl::InvalidArgumentError("plan '" + what + "': " +
                                      std::string(status.message()));
  return loaded;
}

absl::StatusOr<LoadedPlan> ofrt::loadPlanFile(const std::string &path) {
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored))
    return absl::InvalidArgumentError("'" + path +
                                      "' is a directory, not a plan file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError("cannot open plan file '" + path +
                               "': " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  bool text = absl::EndsWith(path, ".plantxt") ||
              absl::EndsWith(path, ".pbtxt") || absl::EndsWith(path, ".txtpb");
  return parsePlan(buffer.str(), text, path);
}
