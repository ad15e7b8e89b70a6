//===- Optimizer.cpp - sgd_update, adam_update, moving_average_update -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// In place on the GPU, with the CPU kernels' parameters (Cpu/OpParams.h):
// the step's learning rate and Adam's corrections are computed on the host
// each firing and passed to one element-wise kernel per tensor, which reads
// the skip flag on the device. find_nonfinite clears its flag and sets it
// from one element-wise kernel per checked tensor.
//
//===----------------------------------------------------------------------===//

#include "Kernels/Cpu/OpParams.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "ofrt/KernelParams.h"
#include "Kernels/Cuda/Launch.h"

#include <algorithm>
#include <numeric>

using namespace ofrt;
using namespace ofrt::cuda;

namespace {

class SgdKernel : public CudaKernel {
public:
  SgdKernel(const OpDesc &op, cpu::SgdParams params)
      : CudaKernel(op), p(params) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &) override {
    const void *scale = p.hasScale ? in[2 + p.numStates].data : nullptr;
    const void *skip = p.hasSkip ? in[p.skipIndex()].data : nullptr;
    return check(launchSgd(in[0].desc.dtype, in[0].data, in[1].data,
                           p.numStates ? in[2].data : nullptr, scale, skip,
                           in[0].desc.numel(), p.schedule.at(context.step),
                           p.weightDecay, p.momentum, p.nesterov,
                           stream.handle()),
                 "the SGD kernel");
  }

private:
  cpu::SgdParams p;
};

class AdamKernel : public CudaKernel {
public:
  AdamKernel(const OpDesc &op, cpu::AdamParams params)
      : CudaKernel(op), p(params) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &) override {
    cpu::AdamParams::Step at = p.at(context.step);
    const void *scale = p.hasScale ? in[4].data : nullptr;
    const void *skip = p.hasSkip ? in[p.skipIndex()].data : nullptr;
    return check(launchAdam(in[0].desc.dtype, in[0].data, in[1].data,
                            in[2].data, in[3].data, scale, skip,
                            in[0].desc.numel(),
                            at.stepSize, at.correction2, p.beta1, p.beta2,
                            p.epsilon, p.weightDecay, at.decay, p.decoupled,
                            stream.handle()),
                 "the Adam kernel");
  }

private:
  cpu::AdamParams p;
};

class MovingAverageKernel : public CudaKernel {
public:
  MovingAverageKernel(const OpDesc &op, double momentum)
      : CudaKernel(op), momentum(momentum) {}

  absl::Status run(CudaStream &stream, const KernelContext &context,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &) override {
    return check(launchMovingAverage(in[0].desc.dtype, in[0].data, in[1].data,
                                     in[0].desc.numel(), momentum,
                                     stream.handle()),
                 "the moving-average kernel");
  }

private:
  double momentum;
};

/// Clears the flag, then checks the tensors in increasing order of code:
/// stream order leaves the largest code of those that are not finite.
class FindNonfiniteKernel : public CudaKernel {
public:
  FindNonfiniteKernel(const OpDesc &op, std::vector<float> codes)
      : CudaKernel(op), codes(std::move(codes)) {
    order.resize(this->codes.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return this->codes[a] < this->codes[b];
    });
  }

  absl::Status run(CudaStream &stream, const KernelContext &,
                   const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) override {
    OFRT_RETURN_IF_ERROR(check(
        cudaMemsetAsync(out[0].data, 0, sizeof(float), stream.handle()),
        "cudaMemsetAsync"));
    for (size_t i : order)
      OFRT_RETURN_IF_ERROR(check(
          launchFindNonfinite(in[i].desc.dtype, in[i].data, in[i].desc.numel(),
                              codes[i], out[0].data, stream.handle()),
          "the find_nonfinite kernel"));
    return absl::OkStatus();
  }

private:
  std::vector<float> codes;
  std::vector<size_t> order; // Indices of `codes`, by increasing code.
};

template <typename K, typename Params>
absl::StatusOr<std::unique_ptr<Kernel>> make(const OpDesc &op,
                                             absl::StatusOr<Params> params) {
  if (!params.ok())
    return params.status();
  return std::unique_ptr<Kernel>(new K(op, *params));
}

} // namespace

void cuda::registerOptimizerKernels(KernelRegistry &registry) {
  registry.add(DeviceKind::Cuda, params::SgdUpdateOp::kOpName, [](const OpDesc &op) {
    return make<SgdKernel>(op, cpu::readSgdParams(op));
  });
  registry.add(DeviceKind::Cuda, params::AdamUpdateOp::kOpName, [](const OpDesc &op) {
    return make<AdamKernel>(op, cpu::readAdamParams(op));
  });
  registry.add(DeviceKind::Cuda, params::FindNonfiniteOp::kOpName,
               [](const OpDesc &op) {
                 return make<FindNonfiniteKernel>(op,
                                                  cpu::readNonfiniteCodes(op));
               });
  registry.add(DeviceKind::Cuda, params::MovingAverageUpdateOp::kOpName,
               [](const OpDesc &op) {
                 return make<MovingAverageKernel>(
                     op, cpu::readMovingAverageMomentum(op));
               });
}
