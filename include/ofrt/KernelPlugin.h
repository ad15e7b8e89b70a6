//===- KernelPlugin.h - Kernels from shared libraries -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A kernel plugin is a shared library that adds kernels for ops the
// built-in backends do not know (a research plugin's custom op) to the
// global registry. It exports
//
//   extern "C" void ofrtRegisterKernels(ofrt::KernelRegistry &registry);
//
// and is built against this runtime's headers; the runner that loads it
// (of-run, of-run-plan) exports the runtime's symbols, so the plugin links
// none of the runtime's libraries.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_KERNELPLUGIN_H
#define OFRT_KERNELPLUGIN_H

#include "ofrt/Kernel.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <string>

namespace ofrt {

/// The symbol a kernel plugin exports.
inline constexpr const char *kKernelPluginEntry = "ofrtRegisterKernels";

/// The entry point's type.
using KernelPluginEntry = void (*)(KernelRegistry &);

/// Loads the shared library at `path` and runs its entry point on the
/// global registry. Call it before any session creates kernels. A library
/// that cannot be opened or lacks the entry point is an error naming it.
absl::Status loadKernelPlugin(const std::string &path);

/// Whether the shared library at `path` exports the entry point; an error
/// naming it when it cannot be opened.
absl::StatusOr<bool> isKernelPlugin(const std::string &path);

} // namespace ofrt

#endif // OFRT_KERNELPLUGIN_H
