//===- Registration.cpp - The CPU kernels ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/Kernel.h"

void ofrt::registerCpuKernels(KernelRegistry &registry) {}
