//===- Kernel.cpp - Kernel registry ---------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Kernel.h"

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
