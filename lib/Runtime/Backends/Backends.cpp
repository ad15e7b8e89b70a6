//===- Backends.cpp - The backends built into this runtime ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The one place that lists backends; the kernel and collective registries
// are filled from them, and kernel plugins add to the first.
//
//===----------------------------------------------------------------------===//

#include "Backends/Backends.h"

#include "ofrt/KernelPlugin.h"

#include <dlfcn.h>

using namespace ofrt;

const std::vector<Backend> &ofrt::builtinBackends() {
  static const std::vector<Backend> backends = {
    cpuBackend(),
#if OFRT_HAVE_CUDA
    cudaBackend(),
#endif
  };
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

/// The registry of every built-in kernel, and of those plugins add.
static KernelRegistry &globalKernels() {
  static KernelRegistry registry = [] {
    KernelRegistry r;
    for (const Backend &backend : builtinBackends())
      backend.registerKernels(r);
    return r;
  }();
  return registry;
}

const KernelRegistry &KernelRegistry::global() { return globalKernels(); }

absl::StatusOr<bool> ofrt::isKernelPlugin(const std::string &path) {
  void *library = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (!library)
    return absl::InvalidArgumentError("cannot load plugin '" + path +
                                      "': " + dlerror());
  bool found = dlsym(library, kKernelPluginEntry) != nullptr;
  dlclose(library);
  return found;
}

absl::Status ofrt::loadKernelPlugin(const std::string &path) {
  // Never closed: the kernels' code lives in it.
  void *library = dlopen(path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (!library)
    return absl::InvalidArgumentError("cannot load kernel plugin '" + path +
                                      "': " + dlerror());
  auto entry =
      reinterpret_cast<KernelPluginEntry>(dlsym(library, kKernelPluginEntry));
  if (!entry)
    return absl::InvalidArgumentError(
        "'" + path + "' is not a kernel plugin: it exports no " +
        kKernelPluginEntry);
  entry(globalKernels());
  return absl::OkStatus();
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
