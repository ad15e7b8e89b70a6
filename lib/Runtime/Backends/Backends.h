//===- Backends.h - Each built-in backend's description ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to the runtime: one function per backend, listed by Backends.cpp.
// A new backend adds its function here and one line there.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_BACKENDS_BACKENDS_H
#define OFRT_LIB_RUNTIME_BACKENDS_BACKENDS_H

#include "ofrt/Backend.h"

namespace ofrt {

/// Host memory, oneDNN kernels, inproc/gloo/mpi collectives.
Backend cpuBackend();

#if OFRT_HAVE_CUDA
/// NVIDIA GPUs: stream-ordered device memory, CUDA streams and events,
/// cuBLASLt and CUDA C++ kernels.
Backend cudaBackend();
#endif

} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_BACKENDS_BACKENDS_H
