//===- ConvBn.cpp - conv2d_bn (conv, inference batch norm, add, relu) -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// One oneDNN convolution computes relu?(batch_norm(conv(x, w)) + addend?):
// with s = gamma / sqrt(var + eps) per filter, the weights are w * s and
// the bias is beta - mean * s; the addend enters through a sum post-op (it
// is first placed in the destination, in the destination's layout) and the
// relu through an eltwise post-op. The folded and reordered weights are
// recomputed only at steps where the weights or the statistics changed.
// With `blocked_x` / `blocked_result`, x / the result are in this machine's
// blocked layout (nChw16c or nChw8c, blockedDesc) in the plan's buffers
// (oneflow-conv-blocked-layouts) and are not reordered.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "ConvUtils.h"
#include "ofrt/KernelParams.h"

#include <algorithm>
#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// Operand positions.
enum { kX, kWeight, kGamma, kBeta, kMean, kVariance, kAddend };

/// The per-filter scale and shift of an inference batch norm.
void foldNormalization(const std::vector<TensorView> &in, float eps,
                       std::vector<float> &scale, std::vector<float> &shift) {
  const float *gamma = in[kGamma].as<float>(), *beta = in[kBeta].as<float>();
  const float *mean = in[kMean].as<float>();
  const float *variance = in[kVariance].as<float>();
  for (size_t f = 0; f < scale.size(); ++f) {
    scale[f] = gamma[f] / std::sqrt(variance[f] + eps);
    shift[f] = beta[f] - mean[f] * scale[f];
  }
}

class ConvBnKernel : public CpuKernel {
public:
  ConvBnKernel(const OpDesc &op, const ConvGeometry &g, float eps, bool relu,
               bool hasAddend, bool blockedX, bool blockedResult)
      : CpuKernel(op), eps(eps), hasAddend(hasAddend), scale(g.filters()),
        shift(g.filters()), scaledWeights(numel(g.w)) {
    dnnl::post_ops ops;
    if (hasAddend)
      ops.append_sum(1.0f);
    if (relu)
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr = scratchpadAttr();
    attr.set_post_ops(ops);
    dnnl::convolution_forward::primitive_desc pd(convDesc(g, true), attr,
                                                 cpuEngine());
    prim = dnnl::convolution_forward(pd);
    biasDesc = plainDesc({g.filters()}, dt::f32);
    // A blocked x or result is already in the primitive's layout
    // (computesBlocked holds: createConvBn checked).
    srcStage = Staged(blockedX ? blockedDesc(g.x) : plainDesc(g.x, dt::f32),
                      pd.src_desc(), true);
    weightsStage = Staged(plainWeightsDesc(g), pd.weights_desc(), true);
    dstStage =
        Staged(blockedResult ? blockedDesc(g.y) : plainDesc(g.y, dt::f32),
               pd.dst_desc(), false);
    if (hasAddend)
      addendStage = Staged(plainDesc(g.y, dt::f32), pd.dst_desc(), true,
                           /*ownBuffer=*/false);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    void *weights = weightsStage.innerData(scaledWeights.data());
    if (!paramsCache.unchanged({in[kWeight], in[kGamma], in[kBeta],
                                in[kMean], in[kVariance]})) {
      foldNormalization(in, eps, scale, shift);
      const float *w = in[kWeight].as<float>();
      size_t perFilter = scaledWeights.size() / scale.size();
      for (size_t i = 0; i < scaledWeights.size(); ++i)
        scaledWeights[i] = w[i] * scale[i / perFilter];
      if (weightsStage.needed())
        OFRT_RETURN_IF_ERROR(
            weightsStage.run(where, scaledWeights.data(), weights, true));
    }
    void *src = srcStage.innerData(in[kX].data);
    void *dst = dstStage.innerData(out[0].data);
    if (srcStage.needed())
      OFRT_RETURN_IF_ERROR(srcStage.run(where, in[kX].data, src, true));
    if (hasAddend) {
      // The sum post-op adds what the destination holds.
      if (addendStage.needed())
        OFRT_RETURN_IF_ERROR(
            addendStage.run(where, in[kAddend].data, dst, true));
      else if (dst != in[kAddend].data)
        std::memcpy(dst, in[kAddend].data, out[0].desc.bytes());
    }
    OFRT_RETURN_IF_ERROR(
        execute(where, prim,
                {{DNNL_ARG_SRC, wrap(srcStage.inner, src)},
                 {DNNL_ARG_WEIGHTS, wrap(weightsStage.inner, weights)},
                 {DNNL_ARG_BIAS, wrap(biasDesc, shift.data())},
                 {DNNL_ARG_DST, wrap(dstStage.inner, dst)}}));
    if (dstStage.needed())
      OFRT_RETURN_IF_ERROR(dstStage.run(where, out[0].data, dst, false));
    return absl::OkStatus();
  }

private:
  float eps;
  bool hasAddend;
  std::vector<float> scale, shift, scaledWeights;
  MemDesc biasDesc;
  Staged srcStage, weightsStage, dstStage, addendStage;
  InputCache paramsCache;
  dnnl::convolution_forward prim;
};

/// No input channels or an empty window: the convolution is zero, and the
/// result relu?(shift + addend?).
class ShiftOnlyKernel : public CpuKernel {
public:
  ShiftOnlyKernel(const OpDesc &op, const ConvGeometry &g, float eps,
                  bool relu, bool hasAddend)
      : CpuKernel(op), batch(g.batch()), spatial(g.y[2] * g.y[3]), eps(eps),
        relu(relu), hasAddend(hasAddend), scale(g.filters()),
        shift(g.filters()) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    foldNormalization(in, eps, scale, shift);
    float *y = out[0].as<float>();
    const float *addend = hasAddend ? in[kAddend].as<float>() : nullptr;
    int64_t filters = shift.size();
    for (int64_t i = 0, e = batch * filters * spatial; i < e; ++i) {
      float v = shift[(i / spatial) % filters] + (addend ? addend[i] : 0.0f);
      y[i] = relu ? std::max(v, 0.0f) : v;
    }
    return absl::OkStatus();
  }

private:
  int64_t batch, spatial;
  float eps;
  bool relu, hasAddend;
  std::vector<float> scale, shift;
};

KernelOr createConvBn(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 6, 7, 1));
  ConvGeometry g;
  OFRT_RETURN_IF_ERROR(readConvGeometry(op, op.inputs[kX],
                                        op.inputs[kWeight], g));
  OFRT_READ_PARAMS(declared, params::Conv2DBnOp, op);
  double eps = declared.epsilon;
  bool relu = declared.relu, blockedX = declared.blocked_x,
       blockedResult = declared.blocked_result;
  if (!(eps > 0))
    return opError(op, "epsilon must be positive, got " + std::to_string(eps));
  const char *names[] = {"gamma", "beta", "moving_mean", "moving_variance"};
  TensorDesc param{DType::F32, {g.filters()}};
  for (int i = kGamma; i <= kVariance; ++i)
    if (op.inputs[i] != param)
      return opError(op, std::string(names[i - kGamma]) + " is " +
                             op.inputs[i].str() + ", needs " + param.str());
  TensorDesc result{DType::F32, g.y};
  bool hasAddend = op.inputs.size() == 7;
  if (hasAddend && op.inputs[kAddend] != result)
    return opError(op, "addend is " + op.inputs[kAddend].str() +
                           ", needs the result's " + result.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, result));
  if ((blockedX || blockedResult) && !computesBlocked(g))
    return opError(op, "blocked_x and blocked_result need one group and "
                       "channels and filters in positive multiples of 16");
  if (numel(g.y) == 0)
    return std::make_unique<NoopKernel>(op);
  if (g.readsNothing())
    return std::make_unique<ShiftOnlyKernel>(op, g, eps, relu, hasAddend);
  return std::make_unique<ConvBnKernel>(op, g, eps, relu, hasAddend, blockedX,
                                        blockedResult);
}

} // namespace

void cpu::registerConvBnKernels(KernelRegistry &registry) {
  addKernel(registry, params::Conv2DBnOp::kOpName, createConvBn);
}
