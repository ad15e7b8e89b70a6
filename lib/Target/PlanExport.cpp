//===- PlanExport.cpp - Rank plans to the runtime's plan ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Writes oneflow_actor rank plans as ofrt.proto.Plan. An actor's typed
// layout (ActorLayouts.td, docs/multi-rank-plans.md) becomes the plan's
// layout message of the same kind; every attribute of an actor's op keeps
// its name, and its value becomes
//
//   IntegerAttr -> i            FloatAttr -> f          BoolAttr, UnitAttr -> b
//   StringAttr -> s             DenseI64ArrayAttr -> ints
//   DenseF64ArrayAttr -> floats ElementsAttr -> tensor (little-endian,
//                               row-major; i1 as one byte per element)
//   ArrayAttr of StringAttr -> strings
//   #oneflow.init<kind(args)> named N -> N = s kind, N_args = floats args
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Target/PlanExport.h"
#include "OneFlowDialect/Actor/ActorOps.h"
#include "OneFlowDialect/IR/OneFlowAttrs.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/IR/OneFlowOps.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"

#include "ofrt/Plan.h"
#include "plan.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

using namespace mlir;
using namespace mlir::oneflow;
using namespace mlir::oneflow::actor;
namespace proto = ofrt::proto;

/// `value` as printed, for messages.
template <typename T> static std::string printed(const T &value) {
  std::string s;
  llvm::raw_string_ostream(s) << value;
  return s;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

/// The plan dtype of `type`, or nothing if plans cannot hold it.
static std::optional<proto::DType> toDType(Type type) {
  if (type.isF32())
    return proto::F32;
  if (type.isF64())
    return proto::F64;
  if (type.isF16())
    return proto::F16;
  if (type.isBF16())
    return proto::BF16;
  if (type.isSignlessInteger(1))
    return proto::BOOL;
  if (type.isSignlessInteger(8))
    return proto::I8;
  if (type.isSignlessInteger(32))
    return proto::I32;
  if (type.isSignlessInteger(64))
    return proto::I64;
  if (type.isSignlessInteger(16))
    return proto::I16;
  if (type.isUnsignedInteger(8))
    return proto::U8;
  if (type.isUnsignedInteger(16))
    return proto::U16;
  if (type.isUnsignedInteger(32))
    return proto::U32;
  if (type.isUnsignedInteger(64))
    return proto::U64;
  return std::nullopt;
}

/// Bytes of one element in a plan tensor (i1: one byte).
static int64_t elementBytes(Type type) {
  return llvm::divideCeil(type.getIntOrFloatBitWidth(), 8);
}

/// Fills `desc` from `type`; fails if plans cannot hold its element type.
static LogicalResult fillDesc(ShapedType type, proto::TensorDesc &desc) {
  std::optional<proto::DType> dtype = toDType(type.getElementType());
  if (!dtype)
    return failure();
  desc.set_dtype(*dtype);
  for (int64_t dim : type.getShape())
    desc.add_shape(dim);
  return success();
}

/// Appends the low `bytes` bytes of `bits`, least significant first.
static void appendLittleEndian(std::string &data, uint64_t bits,
                               int64_t bytes) {
  for (int64_t i = 0; i < bytes; ++i)
    data.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

/// Converts `elements`; on failure, returns why.
static FailureOr<proto::Tensor> convertElements(ElementsAttr elements,
                                                std::string &why) {
  proto::Tensor tensor;
  auto type = cast<ShapedType>(elements.getType());
  Type elementType = type.getElementType();
  if (failed(fillDesc(type, *tensor.mutable_desc()))) {
    why = "plans cannot hold elements of type " + printed(elementType);
    return failure();
  }
  int64_t bytes = elementBytes(elementType);
  std::string &data = *tensor.mutable_data();
  data.reserve(type.getNumElements() * bytes);

  // Resource blobs hold the host's (little-endian) bytes, one per i1.
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(elements)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob) {
      why = "its resource holds no data";
      return failure();
    }
    ArrayRef<char> raw = blob->getData();
    if (static_cast<int64_t>(raw.size()) != type.getNumElements() * bytes) {
      why = "its resource holds " + std::to_string(raw.size()) +
            " bytes, not " + std::to_string(type.getNumElements() * bytes);
      return failure();
    }
    data.assign(raw.begin(), raw.end());
    return tensor;
  }
  if (isa<FloatType>(elementType)) {
    if (auto values = elements.tryGetValues<APFloat>()) {
      for (const APFloat &value : *values)
        appendLittleEndian(data, value.bitcastToAPInt().getZExtValue(), bytes);
      return tensor;
    }
  } else {
    if (auto values = elements.tryGetValues<APInt>()) {
      for (const APInt &value : *values)
        appendLittleEndian(data, value.getZExtValue(), bytes);
      return tensor;
    }
  }
  why = "its elements cannot be read";
  return failure();
}

//===----------------------------------------------------------------------===//
// Attributes
//===----------------------------------------------------------------------===//

/// Adds `attr`, named `name`, to `attrs`; on failure, returns why.
static LogicalResult
convertAttr(StringRef name, Attribute attr,
            google::protobuf::Map<std::string, proto::AttrValue> &attrs,
            std::string &why) {
  proto::AttrValue &value = attrs[name.str()];
  if (auto boolAttr = dyn_cast<BoolAttr>(attr)) {
    value.set_b(boolAttr.getValue());
  } else if (auto intAttr = dyn_cast<IntegerAttr>(attr)) {
    APInt bits = intAttr.getValue();
    bool isUnsigned = intAttr.getType().isUnsignedInteger();
    if (isUnsigned ? bits.getActiveBits() > 63
                   : bits.getSignificantBits() > 64) {
      why = "its value does not fit in 64 bits";
      return failure();
    }
    value.set_i(isUnsigned ? bits.getZExtValue() : bits.getSExtValue());
  } else if (auto floatAttr = dyn_cast<FloatAttr>(attr)) {
    value.set_f(floatAttr.getValueAsDouble());
  } else if (isa<UnitAttr>(attr)) {
    value.set_b(true);
  } else if (auto str = dyn_cast<StringAttr>(attr)) {
    // The plan's strings are protobuf strings, which must be UTF-8.
    if (!llvm::json::isUTF8(str.getValue())) {
      why = "it is not valid UTF-8";
      return failure();
    }
    value.set_s(str.str());
  } else if (auto ints = dyn_cast<DenseI64ArrayAttr>(attr)) {
    // Set even when empty: an empty list is a value.
    proto::Ints &list = *value.mutable_ints();
    for (int64_t i : ints.asArrayRef())
      list.add_values(i);
  } else if (auto floats = dyn_cast<DenseF64ArrayAttr>(attr)) {
    proto::Floats &list = *value.mutable_floats();
    for (double f : floats.asArrayRef())
      list.add_values(f);
  } else if (auto array = dyn_cast<ArrayAttr>(attr);
             array && llvm::all_of(array, llvm::IsaPred<StringAttr>)) {
    proto::Strings &list = *value.mutable_strings();
    for (StringAttr str : array.getAsRange<StringAttr>()) {
      if (!llvm::json::isUTF8(str.getValue())) {
        why = "a string of it is not valid UTF-8";
        return failure();
      }
      list.add_values(str.str());
    }
  } else if (auto elements = dyn_cast<ElementsAttr>(attr)) {
    FailureOr<proto::Tensor> tensor = convertElements(elements, why);
    if (failed(tensor))
      return failure();
    *value.mutable_tensor() = std::move(*tensor);
  } else if (auto init = dyn_cast<InitializerAttr>(attr)) {
    value.set_s(stringifyInitKind(init.getKind()).str());
    proto::Floats &args = *attrs[(name + "_args").str()].mutable_floats();
    for (const APFloat &arg : init.getArgs())
      args.add_values(arg.convertToDouble());
  } else {
    why = "plans have no value for " + printed(attr);
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Rank plans
//===----------------------------------------------------------------------===//

/// `loc` as "file:line:col" when it holds a file location.
static std::string locationString(Location loc) {
  if (auto file = loc->findInstanceOf<FileLineColLoc>())
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (isa<UnknownLoc>(loc))
    return "";
  return printed(loc);
}

//===----------------------------------------------------------------------===//
// Layouts: the typed layout the per-rank lowering put on the actor
//===----------------------------------------------------------------------===//

template <typename Repeated>
static void addInts(Repeated &out, DenseI64ArrayAttr values) {
  if (values)
    for (int64_t value : values.asArrayRef())
      out.Add(value);
}

static void fillPiece(PieceLayoutAttr layout, proto::Piece &piece) {
  addInts(*piece.mutable_logical_shape(), layout.getLogicalShape());
  addInts(*piece.mutable_begin(), layout.getBegin());
  addInts(*piece.mutable_micro_stride(), layout.getMicroStride());
  piece.set_zero(layout.getZero());
}

/// Transfer records [peer, tag, begin x rank, size x rank], flat.
static LogicalResult fillRecords(ActorOp actor, ArrayRef<int64_t> flat,
                                 int64_t rank, StringRef name,
                                 google::protobuf::RepeatedPtrField<
                                     proto::PointToPoint> &records) {
  size_t width = 2 + 2 * rank;
  if (flat.size() % width != 0)
    return emitError(actor.getLoc())
           << "'" << name << "' of @" << actor.getSymName() << " has "
           << flat.size() << " values, not records of " << width;
  for (size_t at = 0; at < flat.size(); at += width) {
    proto::PointToPoint &record = *records.Add();
    record.set_peer(flat[at]);
    record.set_tag(static_cast<uint32_t>(flat[at + 1]));
    for (int64_t d = 0; d < rank; ++d) {
      record.add_begin(flat[at + 2 + d]);
      record.add_size(flat[at + 2 + rank + d]);
    }
  }
  return success();
}

/// The rank of the tensor in regst `value`.
static int64_t regstRank(Value value) {
  return value.getDefiningOp<RegstOp>().getBufferType().getRank();
}

static LogicalResult fillTransfer(ActorOp actor, TransferLayoutAttr layout,
                                  proto::Transfer &transfer) {
  addInts(*transfer.mutable_group(), layout.getGroup());
  transfer.set_reduce(layout.getReduce());
  ArrayRef<int64_t> sends = layout.getSends().asArrayRef(),
                    recvs = layout.getRecvs().asArrayRef();
  if (!sends.empty() &&
      failed(fillRecords(actor, sends, regstRank(actor.getInputs()[0]),
                         "sends", *transfer.mutable_sends())))
    return failure();
  if (!recvs.empty() &&
      failed(fillRecords(actor, recvs, regstRank(actor.getOutputs()[0]),
                         "recvs", *transfer.mutable_recvs())))
    return failure();
  return success();
}

static proto::Reduction toProto(PartialReduction reduction) {
  switch (reduction) {
  case PartialReduction::max:
    return proto::REDUCTION_MAX;
  case PartialReduction::min:
    return proto::REDUCTION_MIN;
  case PartialReduction::sum:
    break;
  }
  return proto::REDUCTION_SUM;
}

/// Writes the actor's layout as the plan's message of the same kind.
static LogicalResult fillLayout(ActorOp actor, proto::Actor &out) {
  Attribute layout = actor.getLayoutAttr();
  if (!layout)
    return success();
  return TypeSwitch<Attribute, LogicalResult>(layout)
      .Case([&](PieceLayoutAttr piece) {
        fillPiece(piece, *out.mutable_piece());
        return success();
      })
      .Case([&](SinkLayoutAttr sink) {
        proto::Sink &to = *out.mutable_sink();
        fillPiece(sink.getPiece(), *to.mutable_piece());
        to.set_partial(sink.getPartial());
        to.set_primary(sink.getPrimary());
        return success();
      })
      .Case([&](CollectiveLayoutAttr collective) {
        proto::Collective &to = *out.mutable_collective();
        addInts(*to.mutable_group(), collective.getGroup());
        to.set_axis(collective.getAxis());
        to.set_in_axis(collective.getInAxis());
        to.set_out_axis(collective.getOutAxis());
        to.set_reduction(toProto(collective.getReduction()));
        return success();
      })
      .Case([&](TransferLayoutAttr transfer) {
        return fillTransfer(actor, transfer, *out.mutable_transfer());
      })
      .Case([&](LocalBoxingLayoutAttr box) {
        proto::LocalBoxing &to = *out.mutable_local_boxing();
        addInts(*to.mutable_begin(), box.getBegin());
        addInts(*to.mutable_micro_stride(), box.getMicroStride());
        to.set_keep(box.getKeep());
        return success();
      })
      .Case([&](IndexRangeLayoutAttr range) {
        out.mutable_index_range()->set_begin(range.getBegin());
        out.mutable_index_range()->set_limit(range.getLimit());
        return success();
      })
      .Case([&](DivisorLayoutAttr divisor) {
        out.mutable_divisor()->set_divisor(divisor.getDivisor());
        return success();
      })
      .Default([&](Attribute) {
        // The verifier admits only the layouts above.
        return emitError(actor.getLoc())
               << "@" << actor.getSymName() << " has layout " << layout
               << ", which the plan has no message for";
      });
}

/// What the runtime makes of an actor of `opName` (plan.proto's Role): the
/// ops it runs itself, by their classes' names; every other op is a kernel
/// it finds by name.
static proto::Role roleOf(StringRef opName) {
  return llvm::StringSwitch<proto::Role>(opName)
      .Case(InputOp::getOperationName(), proto::ROLE_INPUT)
      .Case(OutputOp::getOperationName(), proto::ROLE_OUTPUT)
      .Case(VariableOp::getOperationName(), proto::ROLE_VARIABLE)
      .Case(AllReduceOp::getOperationName(), proto::ROLE_ALL_REDUCE)
      .Case(ReduceScatterOp::getOperationName(), proto::ROLE_REDUCE_SCATTER)
      .Case(AllGatherOp::getOperationName(), proto::ROLE_ALL_GATHER)
      .Case(AllToAllOp::getOperationName(), proto::ROLE_ALL_TO_ALL)
      .Case(TransferOp::getOperationName(), proto::ROLE_TRANSFER)
      .Cases(
          {SgdUpdateOp::getOperationName(), AdamUpdateOp::getOperationName()},
          proto::ROLE_OPTIMIZER)
      .Default(proto::ROLE_KERNEL);
}

static LogicalResult convertActor(ActorOp actor, proto::Actor &out) {
  out.set_id(actor.getId());
  out.set_op(actor.getOpName().str());
  out.set_role(roleOf(actor.getOpName()));
  out.set_name(llvm::json::fixUTF8(actor.getSymName()));
  out.set_location(llvm::json::fixUTF8(locationString(actor.getLoc())));
  out.set_stream(llvm::json::fixUTF8(actor.getStream()));
  out.set_firings_per_step(actor.getFirings());
  if (actor.getFiringsPerValue() > 1)
    out.set_firings_per_output(actor.getFiringsPerValue());
  if (failed(fillLayout(actor, out)))
    return failure();
  if (DictionaryAttr attrs = actor.getOpAttrsAttr()) {
    for (NamedAttribute attr : attrs) {
      std::string why;
      if (failed(convertAttr(attr.getName(), attr.getValue(),
                             *out.mutable_attrs(), why)))
        return emitError(actor.getLoc())
               << "cannot export attribute '" << attr.getName().getValue()
               << "' of @" << actor.getSymName() << " (" << actor.getOpName()
               << "): " << why;
    }
  }
  for (Value input : actor.getInputs())
    out.add_inputs(input.getDefiningOp<RegstOp>().getId());
  for (Value output : actor.getOutputs())
    out.add_outputs(output.getDefiningOp<RegstOp>().getId());
  return success();
}

static LogicalResult convertRegst(RegstOp regst, proto::Regst &out) {
  out.set_id(regst.getId());
  if (failed(fillDesc(regst.getBufferType(), *out.mutable_desc())))
    return regst.emitOpError()
           << "element type " << regst.getBufferType().getElementType()
           << " of regst " << regst.getId() << " has no plan dtype";
  out.set_count(regst.getCount());
  out.set_producer(regst.getProducer().getId());
  for (ActorOp consumer : regst.getConsumers())
    out.add_consumers(consumer.getId());
  IntegerAttr offset = regst.getOffsetAttr();
  out.set_offset(offset ? offset.getInt() : -1);
  return success();
}

static LogicalResult convertRankPlan(RankPlanOp plan, proto::RankPlan &out) {
  out.set_rank(plan.getRank());
  proto::Device &device = *out.mutable_device();
  switch (plan.getDevice()) {
  case DeviceKind::cpu:
    device.set_kind(proto::CPU);
    break;
  case DeviceKind::cuda:
    device.set_kind(proto::CUDA);
    break;
  }
  device.set_ordinal(0);
  for (ActorOp actor : plan.getActors())
    if (failed(convertActor(actor, *out.add_actors())))
      return failure();
  for (RegstOp regst : plan.getRegsts())
    if (failed(convertRegst(regst, *out.add_regsts())))
      return failure();
  SymbolTable actors(plan);
  for (StreamOp stream : plan.getStreams()) {
    proto::Stream &streamOut = *out.add_streams();
    streamOut.set_name(llvm::json::fixUTF8(stream.getName()));
    for (auto ref : stream.getActors().getAsRange<FlatSymbolRefAttr>())
      streamOut.add_actors(actors.lookup<ActorOp>(ref.getValue()).getId());
  }
  IntegerAttr arena = plan.getArenaBytesAttr();
  IntegerAttr unplanned = plan.getUnplannedBytesAttr();
  out.set_arena_bytes(arena ? arena.getInt() : 0);
  out.set_unplanned_bytes(unplanned ? unplanned.getInt() : 0);
  return success();
}

//===----------------------------------------------------------------------===//
// Plan
//===----------------------------------------------------------------------===//

LogicalResult mlir::oneflow::writePlan(Operation *root, llvm::raw_ostream &os,
                                       PlanFormat format) {
  SmallVector<RankPlanOp> plans;
  root->walk([&](RankPlanOp plan) { plans.push_back(plan); });
  if (plans.empty())
    return emitError(root->getLoc())
           << "found no oneflow_actor.rank_plan to export; run "
              "oneflow-lower-to-actor-graph first";

  // One rank plan per rank of the world, written in rank order.
  int64_t worldSize = plans.size();
  SmallVector<RankPlanOp> byRank(worldSize);
  for (RankPlanOp plan : plans) {
    int64_t rank = plan.getRankAttr().getInt();
    if (rank >= worldSize)
      return plan.emitOpError()
             << "rank " << rank << " is out of range for a world of "
             << worldSize << " rank plans";
    if (byRank[rank])
      return plan.emitOpError() << "is a second plan for rank " << rank;
    byRank[rank] = plan;
  }

  proto::Plan plan;
  plan.set_version(proto::CURRENT);
  plan.set_world_size(worldSize);
  if (auto file = root->getLoc()->findInstanceOf<FileLineColLoc>())
    plan.set_source(llvm::json::fixUTF8(file.getFilename()));
  for (RankPlanOp rankPlan : byRank)
    if (failed(convertRankPlan(rankPlan, *plan.add_ranks())))
      return failure();

  std::string bytes;
  bool written;
  if (format == PlanFormat::Text) {
    written = google::protobuf::TextFormat::PrintToString(plan, &bytes);
  } else {
    // Deterministic: attribute maps in key order, so that one program
    // gives one plan, byte for byte, whatever built its attributes. Twice:
    // the second time with the checksum of the first.
    auto serialize = [&]() {
      std::string out;
      {
        google::protobuf::io::StringOutputStream stream(&out);
        google::protobuf::io::CodedOutputStream coded(&stream);
        coded.SetSerializationDeterministic(true);
        written = plan.SerializeToCodedStream(&coded);
      }
      return out;
    };
    plan.set_checksum(ofrt::planChecksum(serialize()));
    bytes = serialize();
  }
  if (!written)
    return emitError(root->getLoc()) << "cannot serialize the plan";
  if (format == PlanFormat::Dot) {
    // Drawn from the plan the runtime would load.
    absl::StatusOr<ofrt::LoadedPlan> loaded =
        ofrt::parsePlan(bytes, /*text=*/false, plan.source());
    if (!loaded.ok())
      return emitError(root->getLoc())
             << "the plan does not load: " << loaded.status().message();
    os << ofrt::planToDot(*loaded);
    return success();
  }
  os << bytes;
  return success();
}

void mlir::oneflow::registerPlanExportTranslations() {
  auto dialects = [](DialectRegistry &registry) {
    registry.insert<OneFlowDialect, OneFlowActorDialect, func::FuncDialect>();
  };
  TranslateFromMLIRRegistration binary(
      "export-plan", "write oneflow_actor rank plans as a binary plan",
      [](Operation *op, raw_ostream &os) {
        return writePlan(op, os, PlanFormat::Binary);
      },
      dialects);
  TranslateFromMLIRRegistration dot(
      "export-plan-dot",
      "write oneflow_actor rank plans as a Graphviz graph (DOT): ranks, "
      "streams, actors and regsts with their buffer counts",
      [](Operation *op, raw_ostream &os) {
        return writePlan(op, os, PlanFormat::Dot);
      },
      dialects);
  TranslateFromMLIRRegistration text(
      "export-plan-text",
      "write oneflow_actor rank plans as a plan in protobuf text format",
      [](Operation *op, raw_ostream &os) {
        return writePlan(op, os, PlanFormat::Text);
      },
      dialects);
}
