//===- Backends.cpp - The backends built into this runtime -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The one place that lists backends; the kernel and collective registries
// are filled from them.
//
//===----------------------------------------------------------------------===//

#include "Backends/Backends.h"

using namespace ofrt;

const std::vector<Backend> &ofrt::builtinBackends() {
  static const std::vector<Backend> backends = {cpuBackend()};
  return backends;
}

absl::StatusOr<const Backend *> ofrt::findBackend(DeviceKind kind) {
  for (const Backend &backend : builtinBackends())
    if (backend.kind == kind)
      return &backend;
  return absl::UnimplementedError(
      std::string("this runtime has no ") + deviceKindName(kind) +
      " backend; plans for " + deviceKindName(kind) +
      " devices cannot run here");
}

absl::StatusOr<std::unique_ptr<Device>>
ofrt::createDevice(DeviceKind kind, int ordinal, const DeviceOptions &options) {
  absl::StatusOr<const Backend *> backend = findBackend(kind);
  if (!backend.ok())
    return backend.status();
  return (*backend)->createDevice(ordinal, options);
}

const KernelRegistry &KernelRegistry::global() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    for (const Backend &backend : builtinBackends())
      backend.registerKernels(r);
    return r;
  }();
  return registry;
}

CollectivesRegistry &CollectivesRegistry::global() {
  static CollectivesRegistry registry = [] {
    CollectivesRegistry r;
    for (const Backend &backend : builtinBackends())
      backend.registerCollectives(r);
    return r;
  }();
  return registry;
}
