//===- OpParams.h - What kernels read from their ops ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The checks and attribute reading of ops whose kernels exist on several
// backends, so that a CUDA kernel accepts exactly what the CPU kernel does
// and computes with the same parameters. Each returns an error naming the
// op for what the CPU kernel refuses.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_KERNELS_CPU_OPPARAMS_H
#define OFRT_LIB_RUNTIME_KERNELS_CPU_OPPARAMS_H

#include "Kernels/Common/ElementwiseFunctions.h"
#include "ofrt/Kernel.h"
#include "ofrt/Schedule.h"

#include "absl/status/statusor.h"

#include <cstdint>
#include <vector>

namespace ofrt {
namespace cpu {

/// sgd_update and adam_update: the schedule, weight decay, and the states.
struct UpdateParams {
  LearningRateSchedule schedule;
  double weightDecay = 0;
  size_t numStates = 0;
  /// The operand after the states is a one-element gradient scale.
  bool hasScale = false;
  /// The operand after the scale is a one-element f32 flag: not 0, the
  /// update changes nothing (a gradient of the step was not finite).
  bool hasSkip = false;
  /// The index of the skip flag among the inputs.
  size_t skipIndex() const { return 3 + numStates; }
};

struct SgdParams : UpdateParams {
  double momentum = 0;
  bool nesterov = false;
};
absl::StatusOr<SgdParams> readSgdParams(const OpDesc &op);

struct AdamParams : UpdateParams {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  bool decoupled = false;
  /// PyTorch's step size lr / (1 - beta1^t), sqrt(1 - beta2^t), and the
  /// decoupled decay 1 - lr * weight_decay, at `step` (t = step + 1).
  struct Step {
    double lr, stepSize, correction2, decay;
  };
  Step at(int64_t step) const;
};
absl::StatusOr<AdamParams> readAdamParams(const OpDesc &op);

/// moving_average_update's momentum.
absl::StatusOr<double> readMovingAverageMomentum(const OpDesc &op);

/// find_nonfinite's codes, one per checked tensor: its first operands, float
/// tensors, then as many `like` operands or none (they only chose the
/// layouts); its result one f32.
absl::StatusOr<std::vector<float>> readNonfiniteCodes(const OpDesc &op);

/// A unary op's parameters: the scalar (or first parameter) and the second.
struct UnaryParams {
  double s = 0, q = 0;
};
absl::StatusOr<UnaryParams> readUnaryParams(const OpDesc &op,
                                            const elementwise::FnInfo &info);

/// A binary op's checks; returns the broadcast result shape.
absl::StatusOr<std::vector<int64_t>>
readBinaryShape(const OpDesc &op, const elementwise::OpInfo &info);

/// matmul and batch_matmul: C[batch..., m, n] = op(A) op(B).
struct MatmulParams {
  bool transposeA = false, transposeB = false;
  /// matmul_bias: a third operand of n values is added to every row.
  bool bias = false;
  /// batch_matmul: every product times alpha.
  double alpha = 1.0;
  int64_t m = 0, n = 0, k = 0;
  /// The result's batch axes (broadcast from both operands').
  std::vector<int64_t> batch;
};
absl::StatusOr<MatmulParams> readMatmulParams(const OpDesc &op, bool batched);

/// transpose's permutation.
absl::StatusOr<std::vector<int64_t>> readTransposePerm(const OpDesc &op);

/// concat's axis (normalized).
absl::StatusOr<int64_t> readConcatAxis(const OpDesc &op);

/// slice as a strided view of its operand: the result's shape, and the
/// operand's element offset and strides (in elements) for it.
struct SliceParams {
  std::vector<int64_t> shape;
  int64_t base = 0;
  std::vector<int64_t> strides;
};
absl::StatusOr<SliceParams> readSliceParams(const OpDesc &op);

/// max_pool2d, avg_pool2d and their gradients: the window (dilations 1 and
/// includePad false where the op has none), checked.
struct PoolWindow {
  std::vector<int64_t> kernel, strides, pads, dilations = {1, 1};
  bool ceilMode = false, includePad = false;
};
absl::StatusOr<PoolWindow> readPoolWindow(const OpDesc &op);

} // namespace cpu
} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_KERNELS_CPU_OPPARAMS_H
