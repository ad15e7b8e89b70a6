//===- Kernel.cpp - Kernel registry ---------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Kernel.h"
#include "ofrt/Status.h"

#include <map>

using namespace ofrt;

Kernel::~Kernel() = default;

std::string OpDesc::where() const {
  std::string s = type;
  if (!name.empty())
    s += " '" + name + "'";
  if (!location.empty())
    s += " at " + location;
  return s;
}

bool ofrt::isCollective(OpRole role) {
  switch (role) {
  case OpRole::AllReduce:
  case OpRole::ReduceScatter:
  case OpRole::AllGather:
  case OpRole::AllToAll:
  case OpRole::Transfer:
    return true;
  default:
    return false;
  }
}

bool ofrt::isDataEndpoint(OpRole role) {
  return role == OpRole::Input || role == OpRole::Output ||
         role == OpRole::Variable;
}

OpRole ofrt::roleOfOp(const std::string &type) {
  static const std::map<std::string, OpRole> roles = {
      {"oneflow.input", OpRole::Input},
      {"oneflow.output", OpRole::Output},
      {"oneflow.variable", OpRole::Variable},
      {"oneflow.all_reduce", OpRole::AllReduce},
      {"oneflow.reduce_scatter", OpRole::ReduceScatter},
      {"oneflow.all_gather", OpRole::AllGather},
      {"oneflow.all_to_all", OpRole::AllToAll},
      {"oneflow.transfer", OpRole::Transfer},
      {"oneflow.sgd_update", OpRole::Optimizer},
      {"oneflow.adam_update", OpRole::Optimizer}};
  auto it = roles.find(type);
  return it == roles.end() ? OpRole::Kernel : it->second;
}

void KernelRegistry::add(DeviceKind device, const std::string &opType,
                         KernelFactory factory) {
  factories[{device, opType}] = std::move(factory);
}

bool KernelRegistry::contains(DeviceKind device,
                              const std::string &opType) const {
  return factories.count({device, opType}) != 0;
}

std::vector<std::string> KernelRegistry::opTypes(DeviceKind device) const {
  std::vector<std::string> types;
  for (const auto &[key, factory] : factories)
    if (key.first == device)
      types.push_back(key.second);
  return types;
}

absl::StatusOr<std::unique_ptr<Kernel>>
KernelRegistry::create(DeviceKind device, const OpDesc &op) const {
  auto it = factories.find({device, op.type});
  if (it == factories.end())
    return absl::UnimplementedError(
        "no " + std::string(device == DeviceKind::Cpu ? "CPU" : "CUDA") +
        " kernel for " + op.where());
  return it->second(op);
}

namespace {

/// Host memory for one operand's copy, from the device's allocateHost
/// (pinned on a GPU, so copies run at full speed and truly asynchronously),
/// kept between firings and grown when an operand needs more.
class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  ~HostBuffer() {
    if (data)
      owner->deallocateHost(data);
  }

  absl::StatusOr<void *> get(Device &device, size_t bytes) {
    if (data && owner == &device && bytes <= size)
      return data;
    if (data)
      owner->deallocateHost(data);
    data = nullptr;
    size = 0;
    owner = &device;
    absl::StatusOr<void *> fresh = device.allocateHost(bytes);
    if (!fresh.ok())
      return fresh.status();
    data = *fresh;
    size = bytes;
    return data;
  }

private:
  Device *owner = nullptr;
  void *data = nullptr;
  size_t size = 0;
};

class StagedKernel : public Kernel {
public:
  StagedKernel(std::unique_ptr<Kernel> inner, bool readsResults)
      : inner(std::move(inner)), readsResults(readsResults) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) override {
    Device &device = *context.device;
    Stream &stream = *context.stream;
    std::vector<TensorView> hostIn, hostOut;
    while (staging.size() < inputs.size() + outputs.size())
      staging.push_back(std::make_unique<HostBuffer>());
    size_t k = 0;
    // The host copy of `view` (its bytes copied there when `read`).
    auto stage = [&](const TensorView &view, std::vector<TensorView> &host,
                     bool read) -> absl::Status {
      size_t bytes = view.desc.bytes();
      absl::StatusOr<void *> copy = staging[k++]->get(device, bytes);
      if (!copy.ok())
        return copy.status();
      host.push_back({*copy, view.desc});
      if (!read)
        return absl::OkStatus();
      return device.copyToHost(stream, *copy, view.data, bytes);
    };
    for (const TensorView &in : inputs)
      OFRT_RETURN_IF_ERROR(stage(in, hostIn, /*read=*/true));
    for (const TensorView &out : outputs)
      OFRT_RETURN_IF_ERROR(stage(out, hostOut, readsResults));
    OFRT_RETURN_IF_ERROR(stream.synchronize());
    OFRT_RETURN_IF_ERROR(inner->compute(context, hostIn, hostOut));
    for (size_t i = 0; i < outputs.size(); ++i)
      OFRT_RETURN_IF_ERROR(device.copyToDevice(
          stream, outputs[i].data, hostOut[i].data, outputs[i].desc.bytes()));
    // The staging buffers are reused by the next firing.
    return stream.synchronize();
  }

private:
  std::unique_ptr<Kernel> inner;
  bool readsResults;
  std::vector<std::unique_ptr<HostBuffer>> staging;
};

} // namespace

std::unique_ptr<Kernel> ofrt::stageOnHost(std::unique_ptr<Kernel> inner,
                                          bool readsResults) {
  return std::make_unique<StagedKernel>(std::move(inner), readsResults);
}

bool ofrt::isStaged(const Kernel &kernel) {
  return dynamic_cast<const StagedKernel *>(&kernel) != nullptr;
}
