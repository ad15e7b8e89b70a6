//===- HostDevice.h - Functions both the host and a GPU run -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// OFRT_HD marks a function that CUDA kernels call as well as host code:
// `__host__ __device__` under nvcc, nothing otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_HOSTDEVICE_H
#define OFRT_HOSTDEVICE_H

#ifdef __CUDACC__
#define OFRT_HD __host__ __device__
#else
#define OFRT_HD
#endif

#endif // OFRT_HOSTDEVICE_H
