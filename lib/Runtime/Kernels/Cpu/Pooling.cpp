//===- Pooling.cpp - max_pool2d, avg_pool2d, global_avg_pool2d ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's pooling_v2 on NCHW. The output size follows the dialect's rule
// (lib/Dialect/IR/ConvOps.cpp); with ceil_mode the bottom/right padding
// given to oneDNN is enlarged so that its floor rule yields that size.
//
// avg_pool2d with count_include_pad divides by the part of the window that
// lies inside the input plus the given padding (PyTorch's rule), never by
// the extra ceil_mode padding: oneDNN's include_padding divides by the full
// window, so the windows that reach into the extra padding are rescaled.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;

namespace {

/// The window geometry along one spatial axis.
struct Axis {
  int64_t in, kernel, stride, padBegin, padEnd, dilation, out, extraPad;
};

class PoolKernel : public CpuKernel {
public:
  PoolKernel(const OpDesc &op, algorithm alg, const Axis &h, const Axis &w)
      : CpuKernel(op) {
    const Shape &xs = op.inputs[0].shape;
    src = plainDesc(xs, dt::f32);
    dst = plainDesc({xs[0], xs[1], h.out, w.out}, dt::f32);
    dnnl::pooling_v2_forward::primitive_desc pd(
        dnnl::pooling_v2_forward::desc(
            dnnl::prop_kind::forward_inference, alg, src, dst,
            {h.stride, w.stride}, {h.kernel, w.kernel},
            {h.dilation - 1, w.dilation - 1}, {h.padBegin, w.padBegin},
            {h.padEnd + h.extraPad, w.padEnd + w.extraPad}),
        cpuEngine());
    prim = dnnl::pooling_v2_forward(pd);
    planes = xs[0] * xs[1];
    if (alg == algorithm::pooling_avg_include_padding &&
        (h.extraPad > 0 || w.extraPad > 0)) {
      rowScale = divisorScale(h);
      colScale = divisorScale(w);
    }
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    OFRT_RETURN_IF_ERROR(execute(where, prim,
                                 {{DNNL_ARG_SRC, wrap(src, in[0].data)},
                                  {DNNL_ARG_DST, wrap(dst, out[0].data)}}));
    if (rowScale.empty())
      return absl::OkStatus();
    float *y = out[0].as<float>();
    int64_t oh = rowScale.size(), ow = colScale.size();
    for (int64_t p = 0; p < planes; ++p)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          y[(p * oh + i) * ow + j] *= rowScale[i] * colScale[j];
    return absl::OkStatus();
  }

private:
  /// kernel / (the part of each window inside input + given padding).
  static std::vector<float> divisorScale(const Axis &a) {
    std::vector<float> scale(a.out);
    for (int64_t o = 0; o < a.out; ++o) {
      int64_t start = o * a.stride - a.padBegin;
      int64_t end = std::min(start + a.kernel, a.in + a.padEnd);
      scale[o] = static_cast<float>(a.kernel) / static_cast<float>(end - start);
    }
    return scale;
  }

  MemDesc src, dst;
  dnnl::pooling_v2_forward prim;
  int64_t planes;
  std::vector<float> rowScale, colScale;
};

absl::Status checkInput(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  if (x.rank() != 4)
    return opError(op, "input must be NCHW (rank 4), got " + x.str());
  if (x.dtype != DType::F32)
    return opError(op, "has a CPU kernel for f32 only, got " + x.str());
  return absl::OkStatus();
}

KernelOr createPool(const OpDesc &op, bool isMax) {
  OFRT_RETURN_IF_ERROR(checkInput(op));
  const TensorDesc &x = op.inputs[0];
  std::vector<int64_t> kernel, strides, pads, dilations = {1, 1};
  bool ceilMode, includePad = false;
  OFRT_RETURN_IF_ERROR(readList(op, "kernel_size", kernel, std::nullopt, 2, 1));
  OFRT_RETURN_IF_ERROR(readList(op, "strides", strides, {{1, 1}}, 2, 1));
  OFRT_RETURN_IF_ERROR(readList(op, "pads", pads, {{0, 0, 0, 0}}, 4, 0));
  if (isMax)
    OFRT_RETURN_IF_ERROR(readList(op, "dilations", dilations, {{1, 1}}, 2, 1));
  else
    OFRT_RETURN_IF_ERROR(
        readAttr(op, "count_include_pad", includePad, {false}));
  OFRT_RETURN_IF_ERROR(readAttr(op, "ceil_mode", ceilMode, {false}));

  Axis axes[2];
  for (int i = 0; i < 2; ++i) {
    Axis &a = axes[i];
    a = {x.shape[2 + i], kernel[i],    strides[i], pads[i],
         pads[i + 2],    dilations[i], 0,          0};
    int64_t padded = a.in + a.padBegin + a.padEnd;
    int64_t span = a.dilation * (a.kernel - 1) + 1;
    if (padded < span)
      return opError(op, "window of " + std::to_string(span) +
                             " does not fit the padded input of " +
                             std::to_string(padded) + " on spatial axis " +
                             std::to_string(i));
    int64_t steps = padded - span;
    a.out =
        (ceilMode ? (steps + a.stride - 1) / a.stride : steps / a.stride) + 1;
    // With ceil_mode, the last window must start inside the input or the
    // leading padding.
    if (ceilMode && (a.out - 1) * a.stride >= a.in + a.padBegin)
      --a.out;
    a.extraPad = std::max<int64_t>(0, (a.out - 1) * a.stride + span - padded);
  }
  OFRT_RETURN_IF_ERROR(checkResult(
      op, 0, {x.dtype, {x.shape[0], x.shape[1], axes[0].out, axes[1].out}}));
  if (op.outputs[0].numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (x.numel() == 0)
    return opError(op, "pools an empty input " + x.str());
  algorithm alg = isMax        ? algorithm::pooling_max
                  : includePad ? algorithm::pooling_avg_include_padding
                               : algorithm::pooling_avg_exclude_padding;
  return std::make_unique<PoolKernel>(op, alg, axes[0], axes[1]);
}

KernelOr createGlobalAvgPool(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkInput(op));
  const TensorDesc &x = op.inputs[0];
  OFRT_RETURN_IF_ERROR(
      checkResult(op, 0, {x.dtype, {x.shape[0], x.shape[1], 1, 1}}));
  if (op.outputs[0].numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (x.numel() == 0)
    return opError(op, "pools an empty input " + x.str());
  Axis h = {x.shape[2], x.shape[2], 1, 0, 0, 1, 1, 0};
  Axis w = {x.shape[3], x.shape[3], 1, 0, 0, 1, 1, 0};
  return std::make_unique<PoolKernel>(
      op, algorithm::pooling_avg_exclude_padding, h, w);
}

} // namespace

void cpu::registerPoolingKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.max_pool2d",
            [](const OpDesc &op) { return createPool(op, true); });
  addKernel(registry, "oneflow.avg_pool2d",
            [](const OpDesc &op) { return createPool(op, false); });
  addKernel(registry, "oneflow.global_avg_pool2d", createGlobalAvgPool);
}
