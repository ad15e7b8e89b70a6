//===- Registry.cpp - The kernels built into this runtime -----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/Kernel.h"

using namespace ofrt;

const KernelRegistry &KernelRegistry::global() {
  static const KernelRegistry registry = [] {
    KernelRegistry r;
    registerCpuKernels(r);
    return r;
  }();
  return registry;
}
