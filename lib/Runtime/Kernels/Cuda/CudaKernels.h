//===- CudaKernels.h - The CUDA backend's kernels ----------------*- C++
//-*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Kernels that enqueue their work on the CUDA stream of their context:
// cuBLASLt for matmuls, CUDA C++ for element-wise ops and optimizer updates
// (Elementwise.cu), strided copies, selects and reductions (Layout.cu),
// cuDNN for softmax, and sources whose value the CPU kernel computes once. An
// op with a CPU kernel and no CUDA kernel yet runs its CPU kernel on staged
// host copies (stageOnHost): correct, slow, and listed by cudaStagedOpTypes()
// so that of-run can say which ops do. Checks and parameters come from the
// CPU's readers (Cpu/OpParams.h), so both backends accept the same ops.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_KERNELS_CUDA_CUDAKERNELS_H
#define OFRT_LIB_RUNTIME_KERNELS_CUDA_CUDAKERNELS_H

#include "Backends/Cuda/CudaDevice.h"
#include "ofrt/Kernel.h"
#include "ofrt/Status.h"

#include <optional>
#include <set>
#include <string>

namespace ofrt {
namespace cuda {

/// A kernel that keeps its op's description for messages and runs on its
/// context's CUDA stream.
class CudaKernel : public Kernel {
public:
  explicit CudaKernel(const OpDesc &op) : where(op.where()) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &inputs,
                       const std::vector<TensorView> &outputs) final {
    absl::StatusOr<CudaStream *> stream = streamOf(context, where);
    if (!stream.ok())
      return stream.status();
    // A launch reports cudaGetLastError(): clear what an earlier call on
    // this thread left (a failed allocation, say) so it is not taken for
    // this kernel's.
    (void)cudaGetLastError();
    return run(**stream, context, inputs, outputs);
  }

protected:
  /// Enqueues the op's work on `stream`.
  virtual absl::Status run(CudaStream &stream, const KernelContext &context,
                           const std::vector<TensorView> &in,
                           const std::vector<TensorView> &out) = 0;

  /// An error naming the op when a launch (or any CUDA call) failed.
  absl::Status check(cudaError_t error, const char *what) const {
    if (error == cudaSuccess)
      return absl::OkStatus();
    return cudaFailure(where, what, error);
  }

  std::string where;
};

/// The device record of the kernels that check indices (Launch.h): armed
/// before a launch, read back after it (which synchronizes the stream).
class IndexCheck {
public:
  ~IndexCheck();
  /// Resets the record on `stream`; returns the pointer to launch with.
  absl::StatusOr<int64_t *> arm(CudaStream &stream, const std::string &where);
  /// The first bad position and the index there (read from `indices` of
  /// `indexType`, i32 or i64), or nullopt when every index was in range.
  absl::StatusOr<std::optional<std::pair<int64_t, int64_t>>>
  firstBad(CudaStream &stream, const std::string &where, const void *indices,
           DType indexType);

private:
  int64_t *record = nullptr;
};

/// The CPU kernel of `op` run on staged host copies (stageOnHost), for ops
/// or element types without a CUDA kernel.
absl::StatusOr<std::unique_ptr<Kernel>> stagedCpuKernel(const OpDesc &op);

void registerMatmulKernels(KernelRegistry &registry);
void registerElementwiseKernels(KernelRegistry &registry);
void registerOptimizerKernels(KernelRegistry &registry);
void registerSourceKernels(KernelRegistry &registry);
void registerLayoutKernels(KernelRegistry &registry);
void registerSelectKernels(KernelRegistry &registry);
void registerSoftmaxKernels(KernelRegistry &registry);
void registerIndexingKernels(KernelRegistry &registry);
void registerConvKernels(KernelRegistry &registry);
void registerPoolingKernels(KernelRegistry &registry);
void registerBatchNormKernels(KernelRegistry &registry);

} // namespace cuda

/// Every CUDA kernel, and staged CPU kernels for the other ops.
void registerCudaKernels(KernelRegistry &registry);

/// The op types that run staged on the host on a CUDA device.
std::set<std::string> cudaStagedOpTypes();

} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_KERNELS_CUDA_CUDAKERNELS_H
