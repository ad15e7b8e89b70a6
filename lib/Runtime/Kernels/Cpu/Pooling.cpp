//===- Pooling.cpp - The pools and the gradients of the windowed ones -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's pooling_v2 on NCHW, forward and (max_pool2d_grad,
// avg_pool2d_grad) backward. The output size follows the dialect's rule
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
#include "OpParams.h"
#include "ofrt/KernelParams.h"

#include <cstring>

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;

namespace {

/// The window geometry along one spatial axis.
struct Axis {
  int64_t in, kernel, stride, padBegin, padEnd, dilation, out, extraPad;
};

/// kernel / (the part of each window inside input + given padding).
std::vector<float> divisorScale(const Axis &a) {
  std::vector<float> scale(a.out);
  for (int64_t o = 0; o < a.out; ++o) {
    int64_t start = o * a.stride - a.padBegin;
    int64_t end = std::min(start + a.kernel, a.in + a.padEnd);
    scale[o] = static_cast<float>(a.kernel) / static_cast<float>(end - start);
  }
  return scale;
}

/// Multiplies each (OH, OW) plane of `y` by rowScale[i] * colScale[j].
void scalePlanes(float *y, int64_t planes, const std::vector<float> &rowScale,
                 const std::vector<float> &colScale) {
  int64_t oh = rowScale.size(), ow = colScale.size();
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        y[(p * oh + i) * ow + j] *= rowScale[i] * colScale[j];
}

/// The oneDNN pooling descriptor of `prop` over NCHW `src` and `dst`.
dnnl::pooling_v2_forward::desc poolDesc(dnnl::prop_kind prop, algorithm alg,
                                        const MemDesc &src, const MemDesc &dst,
                                        const Axis &h, const Axis &w) {
  return dnnl::pooling_v2_forward::desc(
      prop, alg, src, dst, {h.stride, w.stride}, {h.kernel, w.kernel},
      {h.dilation - 1, w.dilation - 1}, {h.padBegin, w.padBegin},
      {h.padEnd + h.extraPad, w.padEnd + w.extraPad});
}

class PoolKernel : public CpuKernel {
public:
  PoolKernel(const OpDesc &op, algorithm alg, const Axis &h, const Axis &w)
      : CpuKernel(op) {
    const Shape &xs = op.inputs[0].shape;
    src = plainDesc(xs, dt::f32);
    dst = plainDesc({xs[0], xs[1], h.out, w.out}, dt::f32);
    dnnl::pooling_v2_forward::primitive_desc pd(
        poolDesc(dnnl::prop_kind::forward_inference, alg, src, dst, h, w),
        scratchpadAttr(), cpuEngine());
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
    if (!rowScale.empty())
      scalePlanes(out[0].as<float>(), planes, rowScale, colScale);
    return absl::OkStatus();
  }

private:
  MemDesc src, dst;
  dnnl::pooling_v2_forward prim;
  int64_t planes;
  std::vector<float> rowScale, colScale;
};

/// dx of a pool from dy: oneDNN's pooling backward. Max pooling recomputes
/// the forward pass for the workspace that says where each maximum was;
/// average pooling scales dy as its forward pass scaled y.
class PoolGradKernel : public CpuKernel {
public:
  PoolGradKernel(const OpDesc &op, algorithm alg, const Axis &h, const Axis &w)
      : CpuKernel(op), isMax(alg == algorithm::pooling_max) {
    const Shape &xs = op.inputs[0].shape;
    src = plainDesc(xs, dt::f32);
    dst = plainDesc({xs[0], xs[1], h.out, w.out}, dt::f32);
    dnnl::pooling_v2_forward::primitive_desc forwardPd(
        poolDesc(dnnl::prop_kind::forward_training, alg, src, dst, h, w),
        scratchpadAttr(), cpuEngine());
    dnnl::pooling_v2_backward::primitive_desc pd(
        dnnl::pooling_v2_backward::desc(
            alg, src, dst, {h.stride, w.stride}, {h.kernel, w.kernel},
            {h.dilation - 1, w.dilation - 1}, {h.padBegin, w.padBegin},
            {h.padEnd + h.extraPad, w.padEnd + w.extraPad}),
        scratchpadAttr(), cpuEngine(), forwardPd);
    backward = dnnl::pooling_v2_backward(pd);
    planes = xs[0] * xs[1];
    if (isMax) {
      forward = dnnl::pooling_v2_forward(forwardPd);
      workspaceDesc = forwardPd.workspace_desc();
      workspace.resize(workspaceDesc.get_size());
      y.resize(dst.get_size());
    }
    if (alg == algorithm::pooling_avg_include_padding &&
        (h.extraPad > 0 || w.extraPad > 0)) {
      rowScale = divisorScale(h);
      colScale = divisorScale(w);
      scaledDy.resize(dst.get_size());
    }
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_DIFF_DST, wrap(dst, in[1].data)},
        {DNNL_ARG_DIFF_SRC, wrap(src, out[0].data)}};
    if (isMax) {
      dnnl::memory ws = wrap(workspaceDesc, workspace.data());
      OFRT_RETURN_IF_ERROR(execute(where, forward,
                                   {{DNNL_ARG_SRC, wrap(src, in[0].data)},
                                    {DNNL_ARG_DST, wrap(dst, y.data())},
                                    {DNNL_ARG_WORKSPACE, ws}}));
      args[DNNL_ARG_WORKSPACE] = ws;
    }
    if (!rowScale.empty()) {
      std::memcpy(scaledDy.data(), in[1].data, scaledDy.size());
      auto *dy = reinterpret_cast<float *>(scaledDy.data());
      scalePlanes(dy, planes, rowScale, colScale);
      args[DNNL_ARG_DIFF_DST] = wrap(dst, dy);
    }
    return execute(where, backward, args);
  }

private:
  bool isMax;
  int64_t planes;
  MemDesc src, dst, workspaceDesc;
  dnnl::pooling_v2_forward forward;
  dnnl::pooling_v2_backward backward;
  std::vector<uint8_t> workspace, y, scaledDy;
  std::vector<float> rowScale, colScale;
};

absl::Status checkInput(const OpDesc &op, size_t inputs = 1) {
  OFRT_RETURN_IF_ERROR(checkArity(op, inputs, 1));
  const TensorDesc &x = op.inputs[0];
  if (x.rank() != 4)
    return opError(op, "input must be NCHW (rank 4), got " + x.str());
  if (x.dtype != DType::F32)
    return opError(op, "has a CPU kernel for f32 only, got " + x.str());
  return absl::OkStatus();
}

/// The window every pool op `Params` declares, checked.
template <typename Params>
absl::StatusOr<PoolWindow> readWindow(const OpDesc &op) {
  OFRT_READ_PARAMS(declared, Params, op);
  PoolWindow w;
  w.kernel = declared.kernel_size;
  w.strides = declared.strides;
  w.pads = declared.pads;
  w.ceilMode = declared.ceil_mode;
  if constexpr (std::is_same_v<Params, params::MaxPool2DOp> ||
                std::is_same_v<Params, params::MaxPool2DGradOp>)
    w.dilations = declared.dilations;
  else
    w.includePad = declared.count_include_pad;
  OFRT_RETURN_IF_ERROR(checkList(op, "kernel_size", w.kernel, 2, 1));
  OFRT_RETURN_IF_ERROR(checkList(op, "strides", w.strides, 2, 1));
  OFRT_RETURN_IF_ERROR(checkList(op, "pads", w.pads, 4, 0));
  OFRT_RETURN_IF_ERROR(checkList(op, "dilations", w.dilations, 2, 1));
  return w;
}

} // namespace

absl::StatusOr<PoolWindow> cpu::readPoolWindow(const OpDesc &op) {
  if (op.type == params::MaxPool2DOp::kOpName)
    return readWindow<params::MaxPool2DOp>(op);
  if (op.type == params::AvgPool2DOp::kOpName)
    return readWindow<params::AvgPool2DOp>(op);
  if (op.type == params::MaxPool2DGradOp::kOpName)
    return readWindow<params::MaxPool2DGradOp>(op);
  if (op.type == params::AvgPool2DGradOp::kOpName)
    return readWindow<params::AvgPool2DGradOp>(op);
  return opError(op, "is not a pool");
}

namespace {

/// The kernel of a pool or, with `isGrad`, of its gradient (x, dy) -> dx.
KernelOr createPool(const OpDesc &op, bool isMax, bool isGrad) {
  OFRT_RETURN_IF_ERROR(checkInput(op, isGrad ? 2 : 1));
  const TensorDesc &x = op.inputs[0];
  absl::StatusOr<PoolWindow> window = readPoolWindow(op);
  if (!window.ok())
    return window.status();
  const std::vector<int64_t> &kernel = window->kernel,
                             &strides = window->strides, &pads = window->pads,
                             &dilations = window->dilations;
  bool ceilMode = window->ceilMode, includePad = window->includePad;

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
  TensorDesc pooled = {x.dtype,
                       {x.shape[0], x.shape[1], axes[0].out, axes[1].out}};
  algorithm alg = isMax        ? algorithm::pooling_max
                  : includePad ? algorithm::pooling_avg_include_padding
                               : algorithm::pooling_avg_exclude_padding;
  if (isGrad) {
    if (op.inputs[1] != pooled)
      return opError(op, "dy is " + op.inputs[1].str() +
                             ", the pool's result is " + pooled.str());
    OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
    if (x.numel() == 0)
      return std::make_unique<NoopKernel>(op);
    return std::make_unique<PoolGradKernel>(op, alg, axes[0], axes[1]);
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, pooled));
  if (op.outputs[0].numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (x.numel() == 0)
    return opError(op, "pools an empty input " + x.str());
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
            [](const OpDesc &op) { return createPool(op, true, false); });
  addKernel(registry, "oneflow.avg_pool2d",
            [](const OpDesc &op) { return createPool(op, false, false); });
  addKernel(registry, "oneflow.max_pool2d_grad",
            [](const OpDesc &op) { return createPool(op, true, true); });
  addKernel(registry, "oneflow.avg_pool2d_grad",
            [](const OpDesc &op) { return createPool(op, false, true); });
  addKernel(registry, "oneflow.global_avg_pool2d", createGlobalAvgPool);
}
