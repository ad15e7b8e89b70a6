//===- Optimizer.cpp - sgd_update, adam_update, moving_average_update -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Optimizer steps with PyTorch's formulas (torch.optim.SGD, Adam, AdamW),
// written in place into the buffers of their operands: the parameter and the
// optimizer states; a step whose skip flag is set changes nothing. The step
// counter of the kernel context drives the learning-rate schedule and Adam's
// bias correction. Parameters are f32 or f64; the arithmetic is in the
// parameter's type, as in PyTorch. The moving average of batch
// normalization's running statistics is written in place the same way.
// find_nonfinite checks tensors for NaN and infinity.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "KernelUtils.h"
#include "OpParams.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Schedule.h"

#include <cmath>
#include <cstring>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// The learning rate and its schedule (the attributes every update op has).
using Schedule = LearningRateSchedule;

/// Whether the update's skip flag is set.
bool skips(const UpdateParams &p, const std::vector<TensorView> &in) {
  return p.hasSkip && *in[p.skipIndex()].as<float>() != 0.0f;
}

class SgdKernel : public CpuKernel {
public:
  SgdKernel(const OpDesc &op, SgdParams params)
      : CpuKernel(op), p(params), dtype(op.inputs[0].dtype) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &) override {
    if (skips(p, in))
      return absl::OkStatus();
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
    T *buf = p.numStates ? in[2].as<T>() : nullptr;
    const T lr = static_cast<T>(p.schedule.at(step));
    const T wd = static_cast<T>(p.weightDecay), mu = static_cast<T>(p.momentum);
    const T scale = p.hasScale ? *in[2 + p.numStates].as<T>() : T(1);
    int64_t n = in[0].desc.numel();
    for (int64_t i = 0; i < n; ++i)
      elementwise::sgdElement(param[i], grad[i] * scale,
                              buf ? &buf[i] : nullptr, lr, wd, mu, p.nesterov);
  }

  SgdParams p;
  DType dtype;
};

class AdamKernel : public CpuKernel {
public:
  AdamKernel(const OpDesc &op, AdamParams params)
      : CpuKernel(op), p(params), dtype(op.inputs[0].dtype) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &) override {
    if (skips(p, in))
      return absl::OkStatus();
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
    AdamParams::Step at = p.at(step);
    const T b1 = static_cast<T>(p.beta1), b2 = static_cast<T>(p.beta2);
    const T stepSize = static_cast<T>(at.stepSize);
    const T correction2 = static_cast<T>(at.correction2);
    const T eps = static_cast<T>(p.epsilon), wd = static_cast<T>(p.weightDecay);
    const T decay = static_cast<T>(at.decay);
    const T scale = p.hasScale ? *in[4].as<T>() : T(1);
    int64_t n = in[0].desc.numel();
    for (int64_t i = 0; i < n; ++i)
      elementwise::adamElement(param[i], grad[i] * scale, m[i], v[i], stepSize,
                               correction2, b1, b2, eps, wd, decay,
                               p.decoupled);
  }

  AdamParams p;
  DType dtype;
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

/// Takes the schedule and weight decay that every update op declares
/// (`declared`), and checks the operands: `numStates` states and an
/// optional rank-0 scale, all of the parameter's type, and no results.
template <typename Declared>
absl::Status readCommon(const OpDesc &op, const Declared &declared,
                        size_t numStates, UpdateParams &params) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2 + numStates, 4 + numStates, 0));
  const TensorDesc &param = op.inputs[0];
  if (param.dtype != DType::F32 && param.dtype != DType::F64)
    return opError(op, "updates f32 and f64 parameters, not " +
                           std::string(dtypeName(param.dtype)));
  for (size_t i = 1; i < 2 + numStates; ++i)
    if (op.inputs[i] != param)
      return opError(op, "operand #" + std::to_string(i) + " of type " +
                             op.inputs[i].str() +
                             " does not match the parameter's " + param.str());
  params.numStates = numStates;
  params.hasScale = op.inputs.size() >= 3 + numStates;
  params.hasSkip = op.inputs.size() == 4 + numStates;
  if (params.hasScale) {
    const TensorDesc &scale = op.inputs[2 + numStates];
    if (scale.dtype != param.dtype || scale.numel() != 1)
      return opError(op, "scale of type " + scale.str() +
                             " is not one element of the parameter's type");
  }
  if (params.hasSkip) {
    const TensorDesc &skip = op.inputs[params.skipIndex()];
    if (skip.dtype != DType::F32 || skip.numel() != 1)
      return opError(op, "skip flag of type " + skip.str() +
                             " is not one f32 element");
  }
  Schedule &schedule = params.schedule;
  schedule.lr = declared.lr;
  schedule.minLr = declared.min_lr;
  schedule.warmupSteps = declared.warmup_steps;
  schedule.totalSteps = declared.total_steps;
  params.weightDecay = declared.weight_decay;
  if (schedule.warmupSteps < 0 || schedule.totalSteps < 0 ||
      (schedule.totalSteps > 0 && schedule.totalSteps <= schedule.warmupSteps))
    return opError(op, "bad schedule: warmup_steps " +
                           std::to_string(schedule.warmupSteps) +
                           ", total_steps " +
                           std::to_string(schedule.totalSteps));
  return absl::OkStatus();
}

/// Whether any of `n` elements of `data`, IEEE numbers of `Bits` bits, has
/// all exponent bits set (a NaN or an infinity); integer operations only,
/// so the loop vectorizes.
template <typename Bits>
bool anyNonfinite(const void *data, int64_t n, Bits exponent) {
  const Bits *bits = static_cast<const Bits *>(data);
  Bits found = 0;
  for (int64_t i = 0; i < n; ++i)
    found |= static_cast<Bits>((bits[i] & exponent) == exponent);
  return found != 0;
}

/// Whether `x` holds a NaN or an infinity (a float tensor).
bool anyNonfinite(const TensorView &x) {
  int64_t n = x.desc.numel();
  switch (x.desc.dtype) {
  case DType::F32:
    return anyNonfinite<uint32_t>(x.data, n, 0x7f800000u);
  case DType::F64:
    return anyNonfinite<uint64_t>(x.data, n, 0x7ff0000000000000ull);
  case DType::BF16:
    return anyNonfinite<uint16_t>(x.data, n, 0x7f80u);
  default: // F16, checked at creation.
    return anyNonfinite<uint16_t>(x.data, n, 0x7c00u);
  }
}

/// The largest code of the tensors that hold a NaN or an infinity, else 0
/// (an f32).
class FindNonfiniteKernel : public CpuKernel {
public:
  FindNonfiniteKernel(const OpDesc &op, std::vector<float> codes)
      : CpuKernel(op), codes(std::move(codes)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    float found = 0.0f;
    for (size_t i = 0; i < codes.size(); ++i)
      if (codes[i] > found && anyNonfinite(in[i]))
        found = codes[i];
    *out[0].as<float>() = found;
    return absl::OkStatus();
  }

private:
  std::vector<float> codes;
};

} // namespace

absl::StatusOr<std::vector<float>>
cpu::readNonfiniteCodes(const OpDesc &op) {
  OFRT_READ_PARAMS(declared, params::FindNonfiniteOp, op);
  const std::vector<int64_t> &codes = declared.codes;
  size_t n = codes.size();
  if (n == 0 || (op.inputs.size() != n && op.inputs.size() != 2 * n))
    return opError(op, "has " + std::to_string(n) + " codes for " +
                           std::to_string(op.inputs.size()) +
                           " operands (one per checked tensor, and as many "
                           "`like` operands or none)");
  OFRT_RETURN_IF_ERROR(checkArity(op, op.inputs.size(), 1));
  for (size_t i = 0; i < n; ++i) {
    DType dtype = op.inputs[i].dtype;
    if (dtype != DType::F32 && dtype != DType::F64 && dtype != DType::BF16 &&
        dtype != DType::F16)
      return opError(op, "checks float tensors, not " +
                             std::string(dtypeName(dtype)) + " (operand #" +
                             std::to_string(i) + ")");
  }
  if (op.outputs[0].dtype != DType::F32 || op.outputs[0].numel() != 1)
    return opError(op, "result of type " + op.outputs[0].str() +
                           " is not one f32 element");
  std::vector<float> out;
  for (int64_t code : codes) {
    if (code < 1 || code > (int64_t(1) << 24))
      return opError(op, "code " + std::to_string(code) +
                             " is not in [1, 2^24]");
    out.push_back(static_cast<float>(code));
  }
  return out;
}

absl::StatusOr<SgdParams> cpu::readSgdParams(const OpDesc &op) {
  OFRT_READ_PARAMS(declared, params::SgdUpdateOp, op);
  SgdParams sgd;
  sgd.momentum = declared.momentum;
  sgd.nesterov = declared.nesterov;
  if (!(sgd.momentum >= 0 && sgd.momentum < 1))
    return opError(op, "momentum " + std::to_string(sgd.momentum) +
                           " is not in [0, 1)");
  OFRT_RETURN_IF_ERROR(
      readCommon(op, declared, sgd.momentum > 0 ? 1 : 0, sgd));
  return sgd;
}

absl::StatusOr<AdamParams> cpu::readAdamParams(const OpDesc &op) {
  OFRT_READ_PARAMS(declared, params::AdamUpdateOp, op);
  AdamParams adam;
  adam.beta1 = declared.beta1;
  adam.beta2 = declared.beta2;
  adam.epsilon = declared.epsilon;
  adam.decoupled = declared.decoupled;
  OFRT_RETURN_IF_ERROR(readCommon(op, declared, 2, adam));
  return adam;
}

AdamParams::Step AdamParams::at(int64_t step) const {
  double lr = schedule.at(step);
  double t = static_cast<double>(step + 1);
  return {lr, lr / (1.0 - std::pow(beta1, t)),
          std::sqrt(1.0 - std::pow(beta2, t)), 1.0 - lr * weightDecay};
}

absl::StatusOr<double> cpu::readMovingAverageMomentum(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 2, 0));
  const TensorDesc &moving = op.inputs[0];
  if (moving.dtype != DType::F32 && moving.dtype != DType::F64)
    return opError(op, "updates f32 and f64 averages, not " +
                           std::string(dtypeName(moving.dtype)));
  if (op.inputs[1] != moving)
    return opError(op, "value of type " + op.inputs[1].str() +
                           " does not match the moving average's " +
                           moving.str());
  OFRT_READ_PARAMS(declared, params::MovingAverageUpdateOp, op);
  double momentum = declared.momentum;
  if (!(momentum >= 0 && momentum <= 1))
    return opError(op, "momentum " + std::to_string(momentum) +
                           " is not in [0, 1]");
  return momentum;
}

namespace {

KernelOr createSgd(const OpDesc &op) {
  absl::StatusOr<SgdParams> params = readSgdParams(op);
  if (!params.ok())
    return params.status();
  return std::make_unique<SgdKernel>(op, *params);
}

KernelOr createAdam(const OpDesc &op) {
  absl::StatusOr<AdamParams> params = readAdamParams(op);
  if (!params.ok())
    return params.status();
  return std::make_unique<AdamKernel>(op, *params);
}

KernelOr createMovingAverage(const OpDesc &op) {
  absl::StatusOr<double> momentum = readMovingAverageMomentum(op);
  if (!momentum.ok())
    return momentum.status();
  return std::make_unique<MovingAverageKernel>(op, *momentum);
}

KernelOr createFindNonfinite(const OpDesc &op) {
  absl::StatusOr<std::vector<float>> codes = readNonfiniteCodes(op);
  if (!codes.ok())
    return codes.status();
  return std::make_unique<FindNonfiniteKernel>(op, *std::move(codes));
}

} // namespace

void cpu::registerOptimizerKernels(KernelRegistry &registry) {
  addKernel(registry, params::FindNonfiniteOp::kOpName, createFindNonfinite);
  addKernel(registry, params::SgdUpdateOp::kOpName, createSgd);
  addKernel(registry, params::AdamUpdateOp::kOpName, createAdam);
  addKernel(registry, params::MovingAverageUpdateOp::kOpName,
            createMovingAverage);
}
