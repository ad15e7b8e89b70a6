//===- Session.cpp - Running a program with data in and out ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/Session.h"

#include "OneFlowDialect/Runtime/Checkpoint.h"
#include "OneFlowDialect/Runtime/CollectiveKernels.h"
#include "OneFlowDialect/Runtime/Npy.h"
#include "OneFlowDialect/Runtime/Pieces.h"
#include "OneFlowDialect/Runtime/Random.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <mutex>

using namespace ofrt;

//===----------------------------------------------------------------------===//
// Utilities
//===----------------------------------------------------------------------===//

/// Stores `value` as element `index` of a tensor of `dtype` (integer types
/// truncate; half types are not data-source types).
static void storeElement(DType dtype, void *data, int64_t index, double value) {
  switch (dtype) {
  case DType::F32:
    static_cast<float *>(data)[index] = static_cast<float>(value);
    return;
  case DType::F64:
    static_cast<double *>(data)[index] = value;
    return;
  case DType::I8:
    static_cast<int8_t *>(data)[index] = static_cast<int8_t>(value);
    return;
  case DType::I32:
    static_cast<int32_t *>(data)[index] = static_cast<int32_t>(value);
    return;
  case DType::I64:
    static_cast<int64_t *>(data)[index] = static_cast<int64_t>(value);
    return;
  case DType::Bool:
    static_cast<uint8_t *>(data)[index] = value != 0;
    return;
  case DType::F16:
  case DType::BF16:
    return;
  }
}

static uint64_t hashName(const std::string &name) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : name)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

static bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

absl::StatusOr<InputSource> ofrt::parseInputSource(const std::string &spec) {
  InputSource source;
  auto number = [&](const std::string &text,
                    double &out) -> absl::Status {
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0')
      return absl::InvalidArgumentError("'" + text + "' in input source '" +
                                        spec + "' is not a number");
    return absl::OkStatus();
  };
  if (!spec.empty() && spec[0] == '@') {
    source.kind = InputSource::Kind::File;
    source.path = spec.substr(1);
    constexpr const char kLoop[] = ":loop";
    if (source.path.size() > 5 &&
        source.path.compare(source.path.size() - 5, 5, kLoop) == 0) {
      source.loop = true;
      source.path.resize(source.path.size() - 5);
    }
    return source;
  }
  if (spec.rfind("fill:", 0) == 0) {
    source.kind = InputSource::Kind::Fill;
    if (absl::Status s = number(spec.substr(5), source.value); !s.ok())
      return s;
    return source;
  }
  if (spec == "random")
    return source;
  if (spec.rfind("random:", 0) == 0) {
    std::string rest = spec.substr(7);
    size_t colon = rest.find(':');
    if (colon == std::string::npos)
      return absl::InvalidArgumentError("input source '" + spec +
                                        "' needs random:LOW:HIGH");
    if (absl::Status s = number(rest.substr(0, colon), source.low); !s.ok())
      return s;
    if (absl::Status s = number(rest.substr(colon + 1), source.high); !s.ok())
      return s;
    if (!(source.low < source.high))
      return absl::InvalidArgumentError("input source '" + spec +
                                        "' needs LOW below HIGH");
    return source;
  }
  return absl::InvalidArgumentError(
      "unknown input source '" + spec +
      "'; use random, random:LOW:HIGH, fill:VALUE, @FILE or @FILE:loop");
}

//===----------------------------------------------------------------------===//
// Data kernels
//===----------------------------------------------------------------------===//

namespace {

/// `oneflow.input`: one batch per step from its source; on several ranks,
/// this rank's piece of the logical batch.
class InputKernel : public Kernel {
public:
  InputKernel(InputSource source, TensorDesc desc, PieceLayout layout,
              std::string name)
      : source(std::move(source)), desc(std::move(desc)),
        layout(std::move(layout)), name(std::move(name)),
        logical{this->desc.dtype, this->layout.logicalShape} {}

  absl::Status open() {
    if (source.kind == InputSource::Kind::Fill || layout.zero) {
      // The same batch every step: build it once.
      filled.resize(desc.bytes());
      for (int64_t i = 0; !layout.zero && i < desc.numel(); ++i)
        storeElement(desc.dtype, filled.data(), i, source.value);
    }
    if (source.kind != InputSource::Kind::File)
      return absl::OkStatus();
    file.open(source.path, std::ios::binary);
    if (!file)
      return absl::NotFoundError("cannot open data file '" + source.path +
                                 "' for input '" + name +
                                 "': " + std::strerror(errno));
    file.seekg(0, std::ios::end);
    int64_t size = file.tellg();
    file.seekg(0);
    if (endsWith(source.path, ".npy")) {
      // Batches are runs of rows of the array; rows left over after the
      // last whole batch are not used. A scalar input reads a 0-d array,
      // one batch.
      absl::StatusOr<NpyHeader> header = readNpyHeader(file, source.path);
      if (!header.ok())
        return header.status();
      const TensorDesc &array = header->desc;
      std::vector<int64_t> rowShape(logical.shape.begin() +
                                        std::min<size_t>(1, logical.rank()),
                                    logical.shape.end());
      bool scalar = logical.rank() == 0;
      if (array.dtype != logical.dtype || array.rank() != logical.rank() ||
          (!scalar &&
           (std::vector<int64_t>(array.shape.begin() + 1, array.shape.end()) !=
                rowShape ||
            array.shape[0] < logical.shape[0])) ||
          size < header->dataOffset + static_cast<int64_t>(array.bytes()))
        return absl::InvalidArgumentError(
            "data file '" + source.path + "' for input '" + name + "' holds " +
            array.str() + ", which has no whole " + logical.str() +
            " batch (or is cut short)");
      dataOffset = header->dataOffset;
      // A scalar or empty batch is the whole (0-d or empty) array.
      batches = scalar || logical.shape[0] == 0
                    ? 1
                    : array.shape[0] / logical.shape[0];
    } else {
      if (size == 0 || size % logical.bytes() != 0)
        return absl::InvalidArgumentError(
            "data file '" + source.path + "' for input '" + name + "' holds " +
            std::to_string(size) + " bytes, not a whole number of " +
            logical.str() + " batches (" + std::to_string(logical.bytes()) +
            " bytes each)");
      batches = size / logical.bytes();
    }
    if (!layout.whole(desc.shape))
      batch.resize(logical.bytes());
    return absl::OkStatus();
  }

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &,
                       const std::vector<TensorView> &outputs) override {
    const TensorView &out = outputs[0];
    if (source.kind == InputSource::Kind::File) {
      // Every rank reads each logical batch, so all end together.
      char *target = batch.empty() ? static_cast<char *>(out.data)
                                   : reinterpret_cast<char *>(batch.data());
      // Batch number = step, so that a resumed run reads on where the
      // checkpointed one stopped; with `loop`, epoch after epoch.
      int64_t batchIndex = context.step;
      if (batchIndex >= batches) {
        if (!source.loop)
          return absl::OutOfRangeError("end of data");
        batchIndex %= batches;
      }
      file.seekg(dataOffset + batchIndex * logical.bytes());
      if (!file.read(target, logical.bytes()))
        return absl::DataLossError("data file '" + source.path +
                                   "' for input '" + name +
                                   "' could not be read");
      if (layout.zero)
        std::memset(out.data, 0, desc.bytes());
      else if (!batch.empty())
        copyBox({batch.data(), logical}, layout.begin, out,
                std::vector<int64_t>(desc.shape.size(), 0), desc.shape);
      return absl::OkStatus();
    }
    if (!filled.empty() || desc.numel() == 0) {
      std::memcpy(out.data, filled.data(), filled.size());
      return absl::OkStatus();
    }
    forEachLogicalIndex(
        desc.shape, layout.begin, layout.logicalShape,
        [&](int64_t local, int64_t index) {
          double u = randomUniform(source.seed, context.step, index);
          double v = source.low + u * (source.high - source.low);
          storeElement(desc.dtype, out.data, local,
                       isFloat(desc.dtype) ? v : std::floor(v));
        });
    return absl::OkStatus();
  }

private:
  InputSource source;
  TensorDesc desc;
  PieceLayout layout;
  std::string name;
  TensorDesc logical;
  std::ifstream file;
  int64_t dataOffset = 0, batches = 0;
  std::vector<uint8_t> filled;
  std::vector<uint8_t> batch; ///< One logical batch, when this is a piece.
};

/// `oneflow.output`: notes the last step it read; the session copies that
/// step's value out of the regst after the run (regsts read by outputs keep
/// their own memory), so outputs cost nothing per step.
class OutputKernel : public Kernel {
public:
  OutputKernel(int64_t *lastStep, OutputObserver observer, int64_t rank,
               std::string name, bool whole)
      : lastStep(lastStep), observer(std::move(observer)), rank(rank),
        name(std::move(name)), whole(whole) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &) override {
    *lastStep = context.step;
    if (observer)
      observer(rank, name, context.step, inputs[0], whole);
    return absl::OkStatus();
  }

private:
  int64_t *lastStep; ///< Written by the output's stream thread only.
  OutputObserver observer;
  int64_t rank;
  std::string name;
  bool whole; ///< The value is the logical tensor, not a piece of it.
};

/// A variable's kernel, showing its value to an observer each time it
/// fires after the first step of the run: every consumer has returned the
/// previous step (its regst has one buffer), so the value is the one after
/// that many steps, and no op has read it for this step yet.
class ObservedVariableKernel : public Kernel {
public:
  ObservedVariableKernel(std::unique_ptr<Kernel> inner,
                         VariableObserver observer, int64_t rank,
                         std::string name)
      : inner(std::move(inner)), observer(std::move(observer)), rank(rank),
        name(std::move(name)) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    if (absl::Status status = inner->compute(context, inputs, outputs);
        !status.ok())
      return status;
    if (!first)
      observer(rank, name, context.step, outputs[0]);
    first = false;
    return absl::OkStatus();
  }

private:
  std::unique_ptr<Kernel> inner;
  VariableObserver observer;
  int64_t rank;
  std::string name;
  bool first = true;
};

/// Creates a variable's kernel, with its piece of the checkpoint's value
/// when `restore` holds the variable.
absl::StatusOr<std::unique_ptr<Kernel>>
createVariableKernel(const OpDesc &op, CheckpointReader *restore) {
  std::string name = op.get<std::string>("name", op.name);
  if (!restore || !restore->tensors().count(name) || op.outputs.size() != 1)
    return KernelRegistry::global().create(DeviceKind::Cpu, op);
  absl::StatusOr<PieceLayout> layout = readPieceLayout(op, op.outputs[0].shape);
  if (!layout.ok())
    return layout.status();
  if (layout->zero) // This rank holds zeros, whatever the value.
    return KernelRegistry::global().create(DeviceKind::Cpu, op);
  absl::StatusOr<TensorData> piece =
      restore->readBox(name, layout->begin, op.outputs[0].shape);
  if (!piece.ok())
    return piece.status();
  OpDesc loaded = op;
  loaded.attrs.erase("init");
  loaded.attrs.erase("init_args");
  loaded.attrs["value"] = std::move(*piece);
  return KernelRegistry::global().create(DeviceKind::Cpu, loaded);
}

} // namespace

//===----------------------------------------------------------------------===//
// Session
//===----------------------------------------------------------------------===//

struct Session::Impl {
  std::unique_ptr<Engine> engine;
  std::map<std::string, TensorData> outputs;
  /// Per output actor: its name, input regst and the last step it read.
  struct Sink {
    std::string name;
    int64_t regst = 0;
    int64_t lastStep = -1;
  };
  std::map<int64_t, Sink> sinks;
};

Session::Session(std::unique_ptr<Impl> impl) : impl(std::move(impl)) {}
Session::~Session() = default;

absl::StatusOr<std::unique_ptr<Session>>
Session::create(RankProgram program, const SessionOptions &options) {
  auto impl = std::make_unique<Impl>();
  std::map<std::string, bool> used;
  for (const auto &[name, source] : options.inputs)
    used[name] = false;
  for (const ActorSpec &actor : program.actors) {
    if (actor.op.type == "oneflow.output")
      impl->outputs[actor.op.get<std::string>("name", actor.op.name)];
    if (actor.op.type == "oneflow.input")
      used[actor.op.get<std::string>("name", actor.op.name)] = true;
  }
  // Outputs are read from their regst after the run, and variables write
  // each of their buffers once: that memory must be the regst's own
  // (oneflow-plan-memory never shares it).
  for (const ActorSpec &actor : program.actors) {
    const RegstSpec *own = nullptr;
    if (actor.op.type == "oneflow.output" && !actor.inputs.empty())
      own = program.findRegst(actor.inputs[0]);
    else if (actor.op.type == "oneflow.variable" && !actor.outputs.empty())
      own = program.findRegst(actor.outputs[0]);
    if (!own || own->offset < 0)
      continue;
    int64_t begin = own->offset,
            end = begin + own->count * alignedBytes(own->desc);
    for (const RegstSpec &other : program.regsts) {
      if (other.id == own->id || other.offset < 0)
        continue;
      int64_t b = other.offset, e = b + other.count * alignedBytes(other.desc);
      if (b < end && begin < e)
        return absl::InvalidArgumentError(
            "regst " + std::to_string(own->id) + " of " + actor.op.where() +
            " shares memory with regst " + std::to_string(other.id) +
            "; variables and outputs need their own memory");
    }
  }
  for (const auto &[name, isUsed] : used)
    if (!isUsed)
      return absl::InvalidArgumentError("the program has no input named '" +
                                        name + "'");
  Impl *state = impl.get();
  int64_t rank = program.rank;
  KernelProvider provider =
      [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    const OpDesc &op = actor.op;
    if (op.type == "oneflow.input") {
      std::string name = op.get<std::string>("name", op.name);
      InputSource source;
      auto it = options.inputs.find(name);
      if (it != options.inputs.end()) {
        source = it->second;
      } else if (!isFloat(op.outputs[0].dtype)) {
        source.high = 2;
      }
      source.seed = options.seed ^ hashName(name);
      absl::StatusOr<PieceLayout> layout =
          readPieceLayout(op, op.outputs[0].shape);
      if (!layout.ok())
        return layout.status();
      auto kernel = std::make_unique<InputKernel>(source, op.outputs[0],
                                                  std::move(*layout), name);
      if (absl::Status status = kernel->open(); !status.ok())
        return status;
      return std::unique_ptr<Kernel>(std::move(kernel));
    }
    if (op.type == "oneflow.output") {
      Impl::Sink &sink = state->sinks[actor.id];
      sink.name = op.get<std::string>("name", op.name);
      sink.regst = actor.inputs.at(0);
      absl::StatusOr<OutputPiece> piece = readOutputPiece(op, rank);
      if (!piece.ok())
        return piece.status();
      bool whole = !piece->partial && piece->layout.whole(op.inputs[0].shape);
      return std::unique_ptr<Kernel>(std::make_unique<OutputKernel>(
          &sink.lastStep, options.onOutput, rank, sink.name, whole));
    }
    if (isCollectiveOp(op.type)) {
      if (!options.communicators)
        return absl::FailedPreconditionError(
            op.where() + " talks to other ranks but the session has no "
                         "communicators (run the plan on all its ranks)");
      return createCollectiveKernel(op, *options.communicators);
    }
    if (op.type == "oneflow.variable") {
      absl::StatusOr<std::unique_ptr<Kernel>> kernel =
          createVariableKernel(op, options.restore);
      if (!kernel.ok() || !options.onVariable)
        return kernel;
      return std::unique_ptr<Kernel>(std::make_unique<ObservedVariableKernel>(
          std::move(*kernel), options.onVariable, rank,
          op.get<std::string>("name", op.name)));
    }
    return KernelRegistry::global().create(DeviceKind::Cpu, op);
  };
  absl::StatusOr<std::unique_ptr<Engine>> engine =
      Engine::create(std::move(program), provider);
  if (!engine.ok())
    return engine.status();
  impl->engine = std::move(*engine);
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

absl::StatusOr<RunResult> Session::run(const RunOptions &options) {
  absl::StatusOr<RunResult> result = impl->engine->run(options);
  if (!result.ok())
    return result;
  for (const auto &[actor, sink] : impl->sinks) {
    if (sink.lastStep < 0)
      continue;
    const RegstSpec *regst = impl->engine->program().findRegst(sink.regst);
    const auto *data = static_cast<const uint8_t *>(
        impl->engine->buffer(sink.regst, sink.lastStep));
    TensorData &value = impl->outputs[sink.name];
    value.desc = regst->desc;
    value.bytes.assign(data, data + regst->desc.bytes());
  }
  return result;
}

const std::map<std::string, TensorData> &Session::outputs() const {
  return impl->outputs;
}

TensorData Session::regstValue(int64_t regstId, int64_t step) const {
  TensorData value;
  const RegstSpec *regst = impl->engine->program().findRegst(regstId);
  if (!regst)
    return value;
  const auto *data =
      static_cast<const uint8_t *>(impl->engine->buffer(regstId, step));
  value.desc = regst->desc;
  value.bytes.assign(data, data + regst->desc.bytes());
  return value;
}

const RankProgram &Session::program() const { return impl->engine->program(); }
