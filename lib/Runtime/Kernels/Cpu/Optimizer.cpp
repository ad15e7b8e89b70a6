//===- Optimizer.cpp - sgd_update, adam_update, moving_average_update -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Optimizer steps with PyTorch's formulas (torch.optim.SGD, Adam, AdamW),
// written in place into the buffers of their operands: the parameter and the
// optimizer states. The step counter of the kernel context drives the
// learning-rate schedule and Adam's bias correction. Parameters are f32 or
// f64; the arithmetic is in the parameter's type, as in PyTorch. The moving
// average of batch normalization's running statistics is written in place
// the same way.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "KernelUtils.h"

#include "ofrt/Schedule.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// The learning rate and its schedule (the attributes every update op has).
using Schedule = LearningRateSchedule;

/// What both kernels share: the schedule, weight decay and the operand
/// checks.
class UpdateKernel : public CpuKernel {
public:
  UpdateKernel(const OpDesc &op, Schedule schedule, double weightDecay,
               size_t numStates)
      : CpuKernel(op), schedule(schedule), weightDecay(weightDecay),
        numStates(numStates), hasScale(op.inputs.size() == 3 + numStates),
        dtype(op.inputs[0].dtype) {}

protected:
  /// The gradient scale of this step (1 without a scale operand).
  template <typename T> T scaleOf(const std::vector<TensorView> &in) const {
    return hasScale ? *in[2 + numStates].as<T>() : T(1);
  }

  Schedule schedule;
  double weightDecay;
  size_t numStates;
  bool hasScale;
  DType dtype;
};

class SgdKernel : public UpdateKernel {
public:
  SgdKernel(const OpDesc &op, Schedule schedule, double weightDecay,
            double momentum, bool nesterov)
      : UpdateKernel(op, schedule, weightDecay, momentum > 0 ? 1 : 0),
        momentum(momentum), nesterov(nesterov) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &) override {
    if (dtype == DType::F32)
      run<float>(context.step, in);
    else
      run<double>(context.step, in);
    return absl::OkStatus();
  }

private:
  template <typename T>
  void run(int64_t step, const std::vector<TensorView> &in) const {
    T *param = in[0].as<T>();
    const T *grad = in[1].as<T>();
    T *buf = numStates ? in[2].as<T>() : nullptr;
    const T lr = static_cast<T>(schedule.at(step));
    const T wd = static_cast<T>(weightDecay), mu = static_cast<T>(momentum);
    const T scale = scaleOf<T>(in);
    int64_t n = in[0].desc.numel();
    for (int64_t i = 0; i < n; ++i) {
      T g = grad[i] * scale;
      if (wd != 0)
        g += wd * param[i];
      if (buf) {
        buf[i] = mu * buf[i] + g;
        g = nesterov ? g + mu * buf[i] : buf[i];
      }
      param[i] -= lr * g;
    }
  }

  double momentum;
  bool nesterov;
};

class AdamKernel : public UpdateKernel {
public:
  AdamKernel(const OpDesc &op, Schedule schedule, double weightDecay,
             double beta1, double beta2, double epsilon, bool decoupled)
      : UpdateKernel(op, schedule, weightDecay, 2), beta1(beta1), beta2(beta2),
        epsilon(epsilon), decoupled(decoupled) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &) override {
    if (dtype == DType::F32)
      run<float>(context.step, in);
    else
      run<double>(context.step, in);
    return absl::OkStatus();
  }

private:
  template <typename T>
  void run(int64_t step, const std::vector<TensorView> &in) const {
    T *param = in[0].as<T>();
    const T *grad = in[1].as<T>();
    T *m = in[2].as<T>(), *v = in[3].as<T>();
    const double lr = schedule.at(step);
    const double t = static_cast<double>(step + 1);
    const T b1 = static_cast<T>(beta1), b2 = static_cast<T>(beta2);
    const T stepSize = static_cast<T>(lr / (1.0 - std::pow(beta1, t)));
    const T correction2 = static_cast<T>(std::sqrt(1.0 - std::pow(beta2, t)));
    const T eps = static_cast<T>(epsilon), wd = static_cast<T>(weightDecay);
    const T decay = static_cast<T>(1.0 - lr * weightDecay);
    const T scale = scaleOf<T>(in);
    int64_t n = in[0].desc.numel();
    for (int64_t i = 0; i < n; ++i) {
      T g = grad[i] * scale;
      if (decoupled)
        param[i] *= decay;
      else if (wd != 0)
        g += wd * param[i];
      m[i] = b1 * m[i] + (T(1) - b1) * g;
      v[i] = b2 * v[i] + (T(1) - b2) * g * g;
      T denom = std::sqrt(v[i]) / correction2 + eps;
      param[i] -= stepSize * m[i] / denom;
    }
  }

  double beta1, beta2, epsilon;
  bool decoupled;
};

/// moving = momentum * moving + (1 - momentum) * value, in place.
class MovingAverageKernel : public CpuKernel {
public:
  MovingAverageKernel(const OpDesc &op, double momentum)
      : CpuKernel(op), momentum(momentum), dtype(op.inputs[0].dtype) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &) override {
    if (dtype == DType::F32)
      run<float>(in);
    else
      run<double>(in);
    return absl::OkStatus();
  }

private:
  template <typename T> void run(const std::vector<TensorView> &in) const {
    T *moving = in[0].as<T>();
    const T *value = in[1].as<T>();
    const T keep = static_cast<T>(momentum), take = T(1) - keep;
    int64_t n = in[0].desc.numel();
    for (int64_t i = 0; i < n; ++i)
      moving[i] = keep * moving[i] + take * value[i];
  }

  double momentum;
  DType dtype;
};

/// Reads the schedule and weight decay, and checks the operands: `numStates`
/// states and an optional rank-0 scale, all of the parameter's type, and no
/// results.
absl::Status readCommon(const OpDesc &op, size_t numStates,
                        Schedule &schedule, double &weightDecay) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2 + numStates, 3 + numStates, 0));
  const TensorDesc &param = op.inputs[0];
  if (param.dtype != DType::F32 && param.dtype != DType::F64)
    return opError(op, "updates f32 and f64 parameters, not " +
                           std::string(dtypeName(param.dtype)));
  for (size_t i = 1; i < 2 + numStates; ++i)
    if (op.inputs[i] != param)
      return opError(op, "operand #" + std::to_string(i) + " of type " +
                             op.inputs[i].str() +
                             " does not match the parameter's " + param.str());
  if (op.inputs.size() == 3 + numStates) {
    const TensorDesc &scale = op.inputs.back();
    if (scale.dtype != param.dtype || scale.numel() != 1)
      return opError(op, "scale of type " + scale.str() +
                             " is not one element of the parameter's type");
  }
  OFRT_RETURN_IF_ERROR(readAttr(op, "lr", schedule.lr));
  OFRT_RETURN_IF_ERROR(readAttr(op, "min_lr", schedule.minLr, {0.0}));
  OFRT_RETURN_IF_ERROR(
      readAttr(op, "warmup_steps", schedule.warmupSteps, {int64_t(0)}));
  OFRT_RETURN_IF_ERROR(
      readAttr(op, "total_steps", schedule.totalSteps, {int64_t(0)}));
  OFRT_RETURN_IF_ERROR(readAttr(op, "weight_decay", weightDecay, {0.0}));
  if (schedule.warmupSteps < 0 || schedule.totalSteps < 0 ||
      (schedule.totalSteps > 0 && schedule.totalSteps <= schedule.warmupSteps))
    return opError(op, "bad schedule: warmup_steps " +
                           std::to_string(schedule.warmupSteps) +
                           ", total_steps " +
                           std::to_string(schedule.totalSteps));
  return absl::OkStatus();
}

KernelOr createSgd(const OpDesc &op) {
  double momentum = 0;
  bool nesterov = false;
  OFRT_RETURN_IF_ERROR(readAttr(op, "momentum", momentum, {0.0}));
  OFRT_RETURN_IF_ERROR(readAttr(op, "nesterov", nesterov, {false}));
  if (!(momentum >= 0 && momentum < 1))
    return opError(op, "momentum " + std::to_string(momentum) +
                           " is not in [0, 1)");
  Schedule schedule;
  double weightDecay = 0;
  OFRT_RETURN_IF_ERROR(
      readCommon(op, momentum > 0 ? 1 : 0, schedule, weightDecay));
  return std::make_unique<SgdKernel>(op, schedule, weightDecay, momentum,
                                     nesterov);
}

KernelOr createAdam(const OpDesc &op) {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  bool decoupled = false;
  OFRT_RETURN_IF_ERROR(readAttr(op, "beta1", beta1, {0.9}));
  OFRT_RETURN_IF_ERROR(readAttr(op, "beta2", beta2, {0.999}));
  OFRT_RETURN_IF_ERROR(readAttr(op, "epsilon", epsilon, {1e-8}));
  OFRT_RETURN_IF_ERROR(readAttr(op, "decoupled", decoupled, {false}));
  Schedule schedule;
  double weightDecay = 0;
  OFRT_RETURN_IF_ERROR(readCommon(op, 2, schedule, weightDecay));
  return std::make_unique<AdamKernel>(op, schedule, weightDecay, beta1, beta2,
                                      epsilon, decoupled);
}

KernelOr createMovingAverage(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 2, 0));
  const TensorDesc &moving = op.inputs[0];
  if (moving.dtype != DType::F32 && moving.dtype != DType::F64)
    return opError(op, "updates f32 and f64 averages, not " +
                           std::string(dtypeName(moving.dtype)));
  if (op.inputs[1] != moving)
    return opError(op, "value of type " + op.inputs[1].str() +
                           " does not match the moving average's " +
                           moving.str());
  double momentum = 0;
  OFRT_RETURN_IF_ERROR(readAttr(op, "momentum", momentum));
  if (!(momentum >= 0 && momentum <= 1))
    return opError(op, "momentum " + std::to_string(momentum) +
                           " is not in [0, 1]");
  return std::make_unique<MovingAverageKernel>(op, momentum);
}

} // namespace

void cpu::registerOptimizerKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.sgd_update", createSgd);
  addKernel(registry, "oneflow.adam_update", createAdam);
  addKernel(registry, "oneflow.moving_average_update", createMovingAverage);
}
