//===- Registration.cpp - The CPU kernels ---------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"

void ofrt::registerCpuKernels(KernelRegistry &registry) {
  using namespace ofrt::cpu;
  registerMatmulKernels(registry);
  registerBinaryKernels(registry);
  registerUnaryKernels(registry);
  registerSelectKernels(registry);
  registerSoftmaxKernels(registry);
  registerNormalizationKernels(registry);
  registerConvKernels(registry);
  registerConvGradKernels(registry);
  registerConvBnKernels(registry);
  registerPoolingKernels(registry);
  registerResampleKernels(registry);
  registerRecurrentKernels(registry);
  registerBitShiftKernels(registry);
  registerReductionKernels(registry);
  registerLayoutKernels(registry);
  registerIndexingKernels(registry);
  registerSourceKernels(registry);
  registerDropoutKernels(registry);
  registerLocalBoxingKernels(registry);
  registerOptimizerKernels(registry);
}
