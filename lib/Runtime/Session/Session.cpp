//===- Session.cpp - Running a program with data in and out ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/KernelParams.h"
#include "ofrt/Session.h"

#include "DataKernels.h"

#include "ofrt/Backend.h"
#include "ofrt/CollectiveKernels.h"
#include "ofrt/Pieces.h"

#include <set>

using namespace ofrt;

static uint64_t hashName(const std::string &name) {
  uint64_t h = 1469598103934665603ull; // FNV-1a
  for (unsigned char c : name)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

/// Another regst whose arena memory overlaps `regst`'s, or null when
/// `regst`'s buffers are its own (a regst with its own allocation, offset
/// -1, always is).
static const RegstSpec *sharedWith(const RankProgram &program,
                                   const RegstSpec &regst) {
  if (regst.offset < 0)
    return nullptr;
  int64_t begin = regst.offset,
          end = begin + regst.count * alignedBytes(regst.desc);
  for (const RegstSpec &other : program.regsts) {
    if (other.id == regst.id || other.offset < 0)
      continue;
    int64_t b = other.offset, e = b + other.count * alignedBytes(other.desc);
    if (b < end && begin < e)
      return &other;
  }
  return nullptr;
}

/// Outputs are read from their regst after the run, and variables write
/// each of their buffers once: that memory must be the regst's own
/// (oneflow-plan-memory never shares it). Checked after the kernels exist,
/// which name a regst whose type no longer fits its ops (an edited plan)
/// better than the overlap it causes would.
static absl::Status checkOwnMemory(const Engine &engine) {
  const RankProgram &program = engine.program();
  for (const ActorSpec &actor : program.actors) {
    const RegstSpec *own = nullptr;
    if (actor.op.role == OpRole::Output && !actor.inputs.empty())
      own = program.findRegst(actor.inputs[0]);
    else if (actor.op.role == OpRole::Variable && !actor.outputs.empty())
      own = program.findRegst(actor.outputs[0]);
    if (!own)
      continue;
    if (const RegstSpec *other = sharedWith(program, *own))
      return absl::InvalidArgumentError(
          "regst " + std::to_string(own->id) + " of " + actor.op.where() +
          " shares memory with regst " + std::to_string(other->id) +
          "; variables and outputs need their own memory");
  }
  return absl::OkStatus();
}

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
    used[name] = options.planInputs.count(name) != 0;
  for (const ActorSpec &actor : program.actors) {
    if (actor.op.role == OpRole::Output)
      impl->outputs[ofrt::userName(actor.op)];
    if (actor.op.role == OpRole::Input)
      used[ofrt::userName(actor.op)] = true;
  }
  for (const auto &[name, isUsed] : used)
    if (!isUsed)
      return absl::InvalidArgumentError("the program has no input named '" +
                                        name + "'");
  // Collective and transfer kernels pack and unpack pieces with host code
  // (copyBox, memset), which cannot touch a GPU's memory: refused on CUDA
  // ranks until that packing runs on the device.
  if (program.device == DeviceKind::Cuda)
    for (const ActorSpec &actor : program.actors)
      if (isCollective(actor.op.role))
        return absl::UnimplementedError(
            "rank " + std::to_string(program.rank) + ": " + actor.op.where() +
            " talks to other ranks, which CUDA ranks cannot do yet: the "
            "collective and transfer kernels pack pieces with host code that "
            "cannot touch GPU memory (run on one GPU, cuda:1, or on CPU "
            "ranks)");
  // Regsts whose memory no other regst shares (the engine takes `program`).
  std::set<int64_t> ownMemory;
  for (const RegstSpec &regst : program.regsts)
    if (!sharedWith(program, regst))
      ownMemory.insert(regst.id);
  absl::StatusOr<std::unique_ptr<Device>> device = createDevice(
      program.device,
      options.deviceOrdinal >= 0 ? options.deviceOrdinal : program.deviceOrdinal,
      options.device);
  if (!device.ok())
    return absl::Status(device.status().code(),
                        "rank " + std::to_string(program.rank) + ": " +
                            std::string(device.status().message()));
  std::shared_ptr<Device> shared = std::move(*device);
  Impl *state = impl.get();
  int64_t rank = program.rank;
  KernelProvider provider =
      [&](const ActorSpec &actor) -> absl::StatusOr<std::unique_ptr<Kernel>> {
    const OpDesc &op = actor.op;
    if (op.role == OpRole::Input) {
      std::string name = ofrt::userName(op);
      InputSource source;
      auto it = options.inputs.find(name);
      if (it != options.inputs.end()) {
        source = it->second;
      } else if (!isFloat(op.outputs[0].dtype)) {
        source.high = 2;
      }
      source.seed = options.seed ^ hashName(name);
      absl::StatusOr<std::unique_ptr<Kernel>> kernel =
          session::createInputKernel(
              op, source,
              actor.outputs.size() == 1 && ownMemory.count(actor.outputs[0]));
      if (!kernel.ok())
        return kernel;
      return session::onHost(std::move(*kernel), *shared);
    }
    if (op.role == OpRole::Output) {
      Impl::Sink &sink = state->sinks[actor.id];
      sink.name = ofrt::userName(op);
      sink.regst = actor.inputs.at(0);
      absl::StatusOr<OutputPiece> piece = readOutputPiece(op, rank);
      if (!piece.ok())
        return piece.status();
      bool whole = !piece->partial && piece->layout.whole(op.inputs[0].shape);
      return session::createOutputKernel(&sink.lastStep, options.onOutput,
                                         rank, sink.name, whole);
    }
    if (isCollective(op.role)) {
      if (!options.communicators)
        return absl::FailedPreconditionError(
            op.where() + " talks to other ranks but the session has no "
                         "communicators (run the plan on all its ranks)");
      return createCollectiveKernel(op, *options.communicators);
    }
    if (op.role == OpRole::Variable)
      return session::createVariableKernel(op, shared->kind(), options.restore,
                                           options.onVariable, rank);
    return KernelRegistry::global().create(shared->kind(), op);
  };
  absl::StatusOr<std::unique_ptr<Engine>> engine =
      Engine::create(std::move(program), shared, provider);
  if (!engine.ok())
    return engine.status();
  impl->engine = std::move(*engine);
  if (absl::Status status = checkOwnMemory(*impl->engine); !status.ok())
    return status;
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

absl::StatusOr<RunResult> Session::run(const RunOptions &options) {
  absl::StatusOr<RunResult> result = impl->engine->run(options);
  if (!result.ok())
    return result;
  for (const auto &[actor, sink] : impl->sinks) {
    if (sink.lastStep < 0)
      continue;
    absl::StatusOr<TensorData> value =
        impl->engine->read(sink.regst, sink.lastStep);
    if (!value.ok())
      return value.status();
    impl->outputs[sink.name] = std::move(*value);
  }
  return result;
}

const std::map<std::string, TensorData> &Session::outputs() const {
  return impl->outputs;
}

absl::StatusOr<TensorData> Session::regstValue(int64_t regstId,
                                               int64_t step) const {
  return impl->engine->read(regstId, step);
}

const RankProgram &Session::program() const { return impl->engine->program(); }
