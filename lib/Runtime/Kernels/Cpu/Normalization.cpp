//===- Normalization.cpp - layer_norm and batch_norm ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's layer_normalization on the [outer, inner] view of x (inner = the
// axes from begin_norm_axis), with gamma/beta as its scale/shift when they
// cover exactly the normalized axes, otherwise as a broadcasting oneDNN
// binary (mul, with an add post-op) afterwards; layer_norm_grad (gamma over
// the normalized axes) is its backward. batch_normalization runs on
// the [outer, C, inner] view, so any `axis` is oneDNN's channel axis 1.
// Both return the (biased) variance, which becomes 1 / sqrt(var + eps).
// With statistics groups (a G x C mean: this rank's groups) each group of
// outer / G rows, consecutive in memory, is one call of the primitive.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "ofrt/KernelParams.h"

#include <algorithm>
#include <cmath>
#include <cstring>

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;
using dnnl::normalization_flags;

namespace {

/// var -> 1 / sqrt(var + eps), in place.
void invertVariance(float *v, int64_t n, float eps) {
  for (int64_t i = 0; i < n; ++i)
    v[i] = 1.0f / std::sqrt(v[i] + eps);
}

class LayerNormKernel : public CpuKernel {
public:
  LayerNormKernel(const OpDesc &op, int64_t outer, int64_t inner, float eps,
                  bool fusedAffine, int64_t paramsAxis)
      : CpuKernel(op), outer(outer), eps(eps), fusedAffine(fusedAffine) {
    data = plainDesc({outer, inner}, dt::f32);
    stat = plainDesc({outer}, dt::f32);
    params = plainDesc({inner}, dt::f32);
    normalization_flags flags = fusedAffine ? normalization_flags::use_scale |
                                                  normalization_flags::use_shift
                                            : normalization_flags::none;
    dnnl::layer_normalization_forward::primitive_desc pd(
        dnnl::layer_normalization_forward::desc(
            dnnl::prop_kind::forward_training, data, stat, eps, flags),
        scratchpadAttr(), cpuEngine());
    norm = dnnl::layer_normalization_forward(pd);
    if (fusedAffine)
      return;
    // y = y * gamma + beta, gamma and beta broadcast from their axes.
    const Shape &shape = op.inputs[0].shape;
    full = plainDesc(shape, dt::f32);
    Shape paramShape(shape.begin() + paramsAxis, shape.end());
    affineParams = plainDesc(padShape(paramShape, shape.size()), dt::f32);
    dnnl::post_ops ops;
    ops.append_binary(algorithm::binary_add, affineParams);
    dnnl::primitive_attr attr = scratchpadAttr();
    attr.set_post_ops(ops);
    dnnl::binary::primitive_desc affinePd(
        dnnl::binary::desc(algorithm::binary_mul, full, affineParams, full),
        attr, cpuEngine());
    affine = dnnl::binary(affinePd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, wrap(data, in[0].data)},
        {DNNL_ARG_DST, wrap(data, out[0].data)},
        {DNNL_ARG_MEAN, wrap(stat, out[1].data)},
        {DNNL_ARG_VARIANCE, wrap(stat, out[2].data)}};
    if (fusedAffine) {
      args[DNNL_ARG_SCALE] = wrap(params, in[1].data);
      args[DNNL_ARG_SHIFT] = wrap(params, in[2].data);
    }
    OFRT_RETURN_IF_ERROR(execute(where, norm, args));
    invertVariance(out[2].as<float>(), outer, eps);
    if (fusedAffine)
      return absl::OkStatus();
    return execute(where, affine,
                   {{DNNL_ARG_SRC_0, wrap(full, out[0].data)},
                    {DNNL_ARG_SRC_1, wrap(affineParams, in[1].data)},
                    {DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1,
                     wrap(affineParams, in[2].data)},
                    {DNNL_ARG_DST, wrap(full, out[0].data)}});
  }

private:
  int64_t outer;
  float eps;
  bool fusedAffine;
  MemDesc data, stat, params, full, affineParams;
  dnnl::layer_normalization_forward norm;
  dnnl::binary affine;
};

absl::Status checkParam(const OpDesc &op, size_t index, const char *what,
                        const Shape &shape) {
  const TensorDesc &param = op.inputs[index];
  if (param.dtype != op.inputs[0].dtype || param.shape != shape)
    return opError(op, std::string(what) + " is " + param.str() +
                           " but needs shape " + shapeStr(shape) + " of " +
                           dtypeName(op.inputs[0].dtype));
  return absl::OkStatus();
}

/// layer_norm's and layer_norm_grad's epsilon (finite, not negative) and
/// element type (f32).
absl::Status checkEpsilonAndType(const OpDesc &op, double eps) {
  if (!(eps >= 0) || !std::isfinite(eps))
    return opError(op, "epsilon " + std::to_string(eps) +
                           " must be finite and not negative");
  if (op.inputs[0].dtype != DType::F32)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(op.inputs[0].dtype) + " (f32 only)");
  return absl::OkStatus();
}

KernelOr createLayerNorm(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 3, 3));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::LayerNormOp, op);
  int64_t normAttr = declared.begin_norm_axis,
          paramsAttr = declared.begin_params_axis, normAxis = 0,
          paramsAxis = 0;
  double eps = declared.epsilon;
  OFRT_RETURN_IF_ERROR(
      normalizeAxis(op, "begin_norm_axis", normAttr, x.rank(), normAxis));
  OFRT_RETURN_IF_ERROR(
      normalizeAxis(op, "begin_params_axis", paramsAttr, x.rank(), paramsAxis));
  OFRT_RETURN_IF_ERROR(checkEpsilonAndType(op, eps));
  Shape paramShape(x.shape.begin() + paramsAxis, x.shape.end());
  OFRT_RETURN_IF_ERROR(checkParam(op, 1, "gamma", paramShape));
  OFRT_RETURN_IF_ERROR(checkParam(op, 2, "beta", paramShape));
  Shape statShape(x.shape.begin(), x.shape.begin() + normAxis);
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {x.dtype, statShape}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 2, {x.dtype, statShape}));
  OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank()));
  int64_t outer = numel(statShape);
  int64_t inner = numel(Shape(x.shape.begin() + normAxis, x.shape.end()));
  if (outer == 0)
    return std::make_unique<NoopKernel>(op);
  if (inner == 0)
    return opError(op, "normalizes over no elements (" + x.str() + ")");
  return std::make_unique<LayerNormKernel>(op, outer, inner,
                                           static_cast<float>(eps),
                                           paramsAxis == normAxis, paramsAxis);
}

/// layer_norm_grad: oneDNN's layer_normalization_backward on the [outer,
/// inner] view, with the variance recovered from 1 / sqrt(var + eps) and
/// gamma packed with a zero shift ((2, inner), as oneDNN 2.6's backward
/// takes them); the packed (2, inner) difference splits into dgamma, dbeta.
class LayerNormGradKernel : public CpuKernel {
public:
  LayerNormGradKernel(const OpDesc &op, int64_t outer, int64_t inner, float eps)
      : CpuKernel(op), eps(eps), variance(outer), scaleShift(2 * inner),
        diffScaleShift(2 * inner) {
    data = plainDesc({outer, inner}, dt::f32);
    stat = plainDesc({outer}, dt::f32);
    packed = plainDesc({2, inner}, dt::f32);
    normalization_flags flags = normalization_flags::use_scale_shift;
    dnnl::layer_normalization_forward::primitive_desc forwardPd(
        dnnl::layer_normalization_forward::desc(
            dnnl::prop_kind::forward_training, data, stat, eps, flags),
        scratchpadAttr(), cpuEngine());
    dnnl::layer_normalization_backward::primitive_desc pd(
        dnnl::layer_normalization_backward::desc(dnnl::prop_kind::backward,
                                                 data, data, stat, eps, flags),
        scratchpadAttr(), cpuEngine(), forwardPd);
    prim = dnnl::layer_normalization_backward(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    size_t inner = scaleShift.size() / 2;
    std::memcpy(scaleShift.data(), in[4].data, inner * sizeof(float));
    const float *inv = in[3].as<float>();
    for (size_t r = 0; r < variance.size(); ++r)
      variance[r] = static_cast<float>(
          1.0 / (static_cast<double>(inv[r]) * inv[r]) - eps);
    OFRT_RETURN_IF_ERROR(execute(
        where, prim,
        {{DNNL_ARG_SRC, wrap(data, in[0].data)},
         {DNNL_ARG_DIFF_DST, wrap(data, in[1].data)},
         {DNNL_ARG_MEAN, wrap(stat, in[2].data)},
         {DNNL_ARG_VARIANCE, wrap(stat, variance.data())},
         {DNNL_ARG_SCALE_SHIFT, wrap(packed, scaleShift.data())},
         {DNNL_ARG_DIFF_SRC, wrap(data, out[0].data)},
         {DNNL_ARG_DIFF_SCALE_SHIFT, wrap(packed, diffScaleShift.data())}}));
    std::memcpy(out[1].data, diffScaleShift.data(), inner * sizeof(float));
    std::memcpy(out[2].data, diffScaleShift.data() + inner,
                inner * sizeof(float));
    return absl::OkStatus();
  }

private:
  double eps;
  std::vector<float> variance, scaleShift, diffScaleShift;
  MemDesc data, stat, packed;
  dnnl::layer_normalization_backward prim;
};

/// No rows: dgamma and dbeta are zero sums.
class ZeroResultsKernel : public CpuKernel {
public:
  using CpuKernel::CpuKernel;
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                       const std::vector<TensorView> &out) override {
    for (const TensorView &result : out)
      std::memset(result.data, 0, result.desc.bytes());
    return absl::OkStatus();
  }
};

KernelOr createLayerNormGrad(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 5, 3));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::LayerNormGradOp, op);
  int64_t normAttr = declared.begin_norm_axis, normAxis = 0;
  double eps = declared.epsilon;
  OFRT_RETURN_IF_ERROR(
      normalizeAxis(op, "begin_norm_axis", normAttr, x.rank(), normAxis));
  OFRT_RETURN_IF_ERROR(checkEpsilonAndType(op, eps));
  Shape statShape(x.shape.begin(), x.shape.begin() + normAxis);
  Shape paramShape(x.shape.begin() + normAxis, x.shape.end());
  OFRT_RETURN_IF_ERROR(checkParam(op, 1, "dy", x.shape));
  OFRT_RETURN_IF_ERROR(checkParam(op, 2, "mean", statShape));
  OFRT_RETURN_IF_ERROR(checkParam(op, 3, "inv_variance", statShape));
  OFRT_RETURN_IF_ERROR(checkParam(op, 4, "gamma", paramShape));
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {x.dtype, paramShape}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 2, {x.dtype, paramShape}));
  int64_t outer = numel(statShape), inner = numel(paramShape);
  if (inner == 0)
    return opError(op, "normalizes over no elements (" + x.str() + ")");
  if (outer == 0)
    return std::make_unique<ZeroResultsKernel>(op);
  return std::make_unique<LayerNormGradKernel>(op, outer, inner,
                                               static_cast<float>(eps));
}

// Updating moving_mean / moving_variance with `momentum` in training is not
// done here: the operands are read-only views. oneflow.moving_average_update
// (appended by oneflow-update-moving-statistics) writes them in place.
class BatchNormKernel : public CpuKernel {
public:
  BatchNormKernel(const OpDesc &op, int64_t outer, int64_t channels,
                  int64_t inner, int64_t groups, float eps, bool training)
      : CpuKernel(op), channels(channels), groups(groups),
        groupElements(outer / groups * channels * inner), eps(eps),
        training(training) {
    // A 4-D (N, C, H, 1) view: oneDNN 2.6 runs 3-D batch norm only in its
    // reference implementation, about 30x slower.
    data = plainDesc({outer / groups, channels, inner, 1}, dt::f32);
    stat = plainDesc({channels}, dt::f32);
    normalization_flags flags =
        normalization_flags::use_scale | normalization_flags::use_shift;
    if (!training)
      flags = flags | normalization_flags::use_global_stats;
    dnnl::batch_normalization_forward::primitive_desc pd(
        dnnl::batch_normalization_forward::desc(
            training ? dnnl::prop_kind::forward_training
                     : dnnl::prop_kind::forward_inference,
            data, eps, flags),
        scratchpadAttr(), cpuEngine());
    prim = dnnl::batch_normalization_forward(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    // In training oneDNN writes the batch statistics into the results; in
    // inference it reads the moving ones.
    for (int64_t g = 0; g < groups; ++g) {
      float *mean =
          training ? out[1].as<float>() + g * channels : in[3].as<float>();
      float *variance =
          training ? out[2].as<float>() + g * channels : in[4].as<float>();
      OFRT_RETURN_IF_ERROR(execute(
          where, prim,
          {{DNNL_ARG_SRC, wrap(data, in[0].as<float>() + g * groupElements)},
           {DNNL_ARG_DST, wrap(data, out[0].as<float>() + g * groupElements)},
           {DNNL_ARG_SCALE, wrap(stat, in[1].data)},
           {DNNL_ARG_SHIFT, wrap(stat, in[2].data)},
           {DNNL_ARG_MEAN, wrap(stat, mean)},
           {DNNL_ARG_VARIANCE, wrap(stat, variance)}}));
    }
    if (!training) {
      std::memcpy(out[1].data, in[3].data, channels * sizeof(float));
      std::memcpy(out[2].data, in[4].data, channels * sizeof(float));
    }
    invertVariance(out[2].as<float>(), groups * channels, eps);
    return absl::OkStatus();
  }

private:
  int64_t channels, groups, groupElements;
  float eps;
  bool training;
  MemDesc data, stat;
  dnnl::batch_normalization_forward prim;
};

/// This rank's statistics groups, read from the shape of its statistics
/// (`stats`: G x C with `attr` statistics_groups over 1, else C; 0 for the
/// latter): each must hold the same whole number of x's `outer` rows.
absl::StatusOr<int64_t> localGroups(const OpDesc &op, int64_t attr,
                                    const Shape &stats, int64_t axis,
                                    int64_t outer, int64_t channels,
                                    bool training) {
  if (attr < 1)
    return opError(op, "statistics_groups " + std::to_string(attr) +
                           " is not at least 1");
  if (attr == 1)
    return 0;
  if (!training || axis == 0)
    return opError(op, "statistics_groups " + std::to_string(attr) +
                           " needs training and a batch axis 0 that is not "
                           "the channel axis");
  if (stats.size() != 2 || stats[1] != channels)
    return opError(op, "statistics of shape " + shapeStr(stats) +
                           " are not groups x " + std::to_string(channels));
  int64_t groups = stats[0];
  if (groups == 0 ? outer != 0 : outer % groups != 0)
    return opError(op, "this rank's " + std::to_string(outer) +
                           " rows do not split into its " +
                           std::to_string(groups) +
                           " statistics groups (a layout splits the batch "
                           "inside a group)");
  return groups;
}

KernelOr createBatchNorm(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 5, 3));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::BatchNormOp, op);
  int64_t axisAttr = declared.axis, axis = 0;
  double eps = declared.epsilon, momentum = declared.momentum;
  bool training = declared.training;
  if (x.rank() < 2)
    return opError(op, "needs an input of rank 2 or more, got " + x.str());
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "axis", axisAttr, x.rank(), axis));
  if (!(eps > 0) || !std::isfinite(eps))
    return opError(op, "epsilon " + std::to_string(eps) + " must be positive");
  if (!(momentum >= 0 && momentum <= 1))
    return opError(op, "momentum " + std::to_string(momentum) +
                           " is outside [0, 1]");
  if (x.dtype != DType::F32)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype) + " (f32 only)");
  int64_t channels = x.shape[axis];
  const char *names[] = {"gamma", "beta", "moving_mean", "moving_variance"};
  for (size_t i = 0; i < 4; ++i)
    OFRT_RETURN_IF_ERROR(checkParam(op, i + 1, names[i], {channels}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  int64_t outer = numel(Shape(x.shape.begin(), x.shape.begin() + axis));
  int64_t inner = numel(Shape(x.shape.begin() + axis + 1, x.shape.end()));
  absl::StatusOr<int64_t> groups =
      localGroups(op, declared.statistics_groups,
                  op.outputs.size() > 1 ? op.outputs[1].shape : Shape{}, axis,
                  outer, channels, training);
  if (!groups.ok())
    return groups.status();
  Shape stats = *groups > 0 ? Shape{*groups, channels} : Shape{channels};
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {x.dtype, stats}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 2, {x.dtype, stats}));
  if (channels == 0)
    return std::make_unique<NoopKernel>(op);
  if (outer * inner == 0)
    return opError(op, "normalizes over no elements (" + x.str() + ")");
  return std::make_unique<BatchNormKernel>(op, outer, channels, inner,
                                           std::max<int64_t>(*groups, 1),
                                           static_cast<float>(eps), training);
}

/// batch_norm_grad: oneDNN's batch_normalization_backward on the same
/// [outer, C, inner, 1] view, with the variance recovered from the
/// inverse standard deviation the forward op returned.
class BatchNormGradKernel : public CpuKernel {
public:
  BatchNormGradKernel(const OpDesc &op, int64_t outer, int64_t channels,
                      int64_t inner, int64_t groups, float eps)
      : CpuKernel(op), groups(groups),
        groupElements(outer / groups * channels * inner), eps(eps),
        variance(channels), scaleShift(2 * channels),
        diffScaleShift(2 * channels) {
    data = plainDesc({outer / groups, channels, inner, 1}, dt::f32);
    stat = plainDesc({channels}, dt::f32);
    packed = plainDesc({2, channels}, dt::f32);
    // oneDNN 2.6's backward runs with the packed (2, C) scale and shift.
    normalization_flags flags = normalization_flags::use_scale_shift;
    dnnl::batch_normalization_forward::primitive_desc forwardPd(
        dnnl::batch_normalization_forward::desc(
            dnnl::prop_kind::forward_training, data, eps, flags),
        scratchpadAttr(), cpuEngine());
    dnnl::batch_normalization_backward::primitive_desc pd(
        dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward,
                                                 data, data, eps, flags),
        scratchpadAttr(), cpuEngine(), forwardPd);
    prim = dnnl::batch_normalization_backward(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    size_t channels = variance.size();
    std::memcpy(scaleShift.data(), in[4].data, channels * sizeof(float));
    float *dgamma = out[1].as<float>(), *dbeta = out[2].as<float>();
    std::fill(dgamma, dgamma + channels, 0.0f);
    std::fill(dbeta, dbeta + channels, 0.0f);
    // Each group on its own statistics; dgamma and dbeta sum the groups.
    for (int64_t g = 0; g < groups; ++g) {
      const float *inv = in[3].as<float>() + g * channels;
      for (size_t c = 0; c < channels; ++c)
        variance[c] = static_cast<float>(
            1.0 / (static_cast<double>(inv[c]) * inv[c]) - eps);
      OFRT_RETURN_IF_ERROR(execute(
          where, prim,
          {{DNNL_ARG_SRC, wrap(data, in[0].as<float>() + g * groupElements)},
           {DNNL_ARG_DIFF_DST,
            wrap(data, in[1].as<float>() + g * groupElements)},
           {DNNL_ARG_MEAN, wrap(stat, in[2].as<float>() + g * channels)},
           {DNNL_ARG_VARIANCE, wrap(stat, variance.data())},
           {DNNL_ARG_SCALE_SHIFT, wrap(packed, scaleShift.data())},
           {DNNL_ARG_DIFF_SRC,
            wrap(data, out[0].as<float>() + g * groupElements)},
           {DNNL_ARG_DIFF_SCALE_SHIFT, wrap(packed, diffScaleShift.data())}}));
      for (size_t c = 0; c < channels; ++c) {
        dgamma[c] += diffScaleShift[c];
        dbeta[c] += diffScaleShift[channels + c];
      }
    }
    return absl::OkStatus();
  }

private:
  int64_t groups, groupElements;
  double eps;
  std::vector<float> variance, scaleShift, diffScaleShift;
  MemDesc data, stat, packed;
  dnnl::batch_normalization_backward prim;
};

KernelOr createBatchNormGrad(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 5, 3));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::BatchNormGradOp, op);
  int64_t axisAttr = declared.axis, axis = 0;
  double eps = declared.epsilon;
  if (x.rank() < 2)
    return opError(op, "needs an input of rank 2 or more, got " + x.str());
  OFRT_RETURN_IF_ERROR(normalizeAxis(op, "axis", axisAttr, x.rank(), axis));
  if (!(eps > 0) || !std::isfinite(eps))
    return opError(op, "epsilon " + std::to_string(eps) + " must be positive");
  if (x.dtype != DType::F32)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype) + " (f32 only)");
  if (op.inputs[1] != x)
    return opError(op, "dy is " + op.inputs[1].str() + ", x " + x.str());
  int64_t channels = x.shape[axis];
  int64_t outer = numel(Shape(x.shape.begin(), x.shape.begin() + axis));
  int64_t inner = numel(Shape(x.shape.begin() + axis + 1, x.shape.end()));
  absl::StatusOr<int64_t> groups =
      localGroups(op, declared.statistics_groups,
                  op.inputs.size() > 2 ? op.inputs[2].shape : Shape{}, axis,
                  outer, channels, /*training=*/true);
  if (!groups.ok())
    return groups.status();
  Shape stats = *groups > 0 ? Shape{*groups, channels} : Shape{channels};
  const char *names[] = {"mean", "inv_variance", "gamma"};
  for (size_t i = 0; i < 3; ++i)
    OFRT_RETURN_IF_ERROR(
        checkParam(op, i + 2, names[i], i < 2 ? stats : Shape{channels}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {x.dtype, {channels}}));
  OFRT_RETURN_IF_ERROR(checkResult(op, 2, {x.dtype, {channels}}));
  if (channels == 0)
    return std::make_unique<NoopKernel>(op);
  if (outer * inner == 0)
    return opError(op, "normalizes over no elements (" + x.str() + ")");
  return std::make_unique<BatchNormGradKernel>(op, outer, channels, inner,
                                               std::max<int64_t>(*groups, 1),
                                               static_cast<float>(eps));
}

} // namespace

void cpu::registerNormalizationKernels(KernelRegistry &registry) {
  addKernel(registry, params::LayerNormOp::kOpName, createLayerNorm);
  addKernel(registry, params::BatchNormOp::kOpName, createBatchNorm);
  addKernel(registry, params::BatchNormGradOp::kOpName, createBatchNormGrad);
  addKernel(registry, params::LayerNormGradOp::kOpName, createLayerNormGrad);
}
