//===- CpuKernels.h - Registration of each CPU kernel family ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_LIB_RUNTIME_KERNELS_CPU_CPUKERNELS_H
#define ONEFLOW_LIB_RUNTIME_KERNELS_CPU_CPUKERNELS_H

#include "ofrt/Kernel.h"

namespace ofrt {
namespace cpu {

void registerMatmulKernels(KernelRegistry &registry);
void registerBinaryKernels(KernelRegistry &registry);
void registerUnaryKernels(KernelRegistry &registry);
void registerSelectKernels(KernelRegistry &registry);
void registerSoftmaxKernels(KernelRegistry &registry);
void registerNormalizationKernels(KernelRegistry &registry);
void registerConvKernels(KernelRegistry &registry);
/// conv2d_backward_data and conv2d_backward_filter.
void registerConvGradKernels(KernelRegistry &registry);
void registerConvBnKernels(KernelRegistry &registry);
void registerPoolingKernels(KernelRegistry &registry);
/// resample and resample_grad (oneDNN's linear resampling).
void registerResampleKernels(KernelRegistry &registry);
/// bit_shift (plain code).
void registerBitShiftKernels(KernelRegistry &registry);
/// rnn and rnn_grad (oneDNN's RNN primitives).
void registerRecurrentKernels(KernelRegistry &registry);
void registerReductionKernels(KernelRegistry &registry);
void registerLayoutKernels(KernelRegistry &registry);
void registerIndexingKernels(KernelRegistry &registry);
void registerSourceKernels(KernelRegistry &registry);
void registerDropoutKernels(KernelRegistry &registry);
/// local_slice and to_partial: the boxing steps that stay on one rank.
void registerLocalBoxingKernels(KernelRegistry &registry);
/// sgd_update, adam_update and moving_average_update, in place.
void registerOptimizerKernels(KernelRegistry &registry);

} // namespace cpu

/// Adds every CPU kernel (oneDNN, and plain code where oneDNN has nothing).
void registerCpuKernels(KernelRegistry &registry);

/// OK when oneDNN has matmul kernels for `dtype` (bf16, f16) on this
/// processor (bf16 needs AVX-512; ONEDNN_MAX_CPU_ISA can lower what oneDNN
/// uses); else an error naming the ISA oneDNN found.
absl::Status checkCpuPrecision(DType dtype);

/// What the CPU kernels compute with here, for --list-devices: "oneDNN
/// with AVX2, f32 GEMM on OpenBLAS 0.3.21 (OpenMP)", or the error of a bad
/// OF_CPU_GEMM.
std::string describeCpuLibraries();

} // namespace ofrt

#endif // ONEFLOW_LIB_RUNTIME_KERNELS_CPU_CPUKERNELS_H
