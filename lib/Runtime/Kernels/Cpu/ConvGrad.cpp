//===- ConvGrad.cpp - conv2d_backward_data / _filter (oneDNN) -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's convolution_backward_data and convolution_backward_weights, with
// a forward-training descriptor of the same geometry as their hint. As for
// conv2d (Conv.cpp), the primitives pick their layouts and reorders from
// and to the plan's NCHW / OIHW tensors run around them when needed. The
// geometry comes from the tensors (this rank's pieces), not from the
// logical `input_shape` / `weight_shape` attributes.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "ConvUtils.h"

#include <cstring>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

MemDesc anyDesc(const MemDesc &d) {
  return MemDesc(d.dims(), dt::f32, dnnl::memory::format_tag::any);
}

/// oneDNN's strides, dilations (counted from 0) and paddings.
struct ConvDims {
  Dims strides, dilations, padL, padR;
  explicit ConvDims(const ConvGeometry &g)
      : strides{g.strides[0], g.strides[1]},
        dilations{g.dilations[0] - 1, g.dilations[1] - 1},
        padL{g.pads[0], g.pads[1]}, padR{g.pads[2], g.pads[3]} {}
};

dnnl::convolution_forward::primitive_desc hintFor(const ConvGeometry &g) {
  return dnnl::convolution_forward::primitive_desc(
      convDesc(g, false, dnnl::prop_kind::forward_training), scratchpadAttr(), cpuEngine());
}

/// dx from dy and the weights.
class ConvBackwardDataKernel : public CpuKernel {
public:
  ConvBackwardDataKernel(const OpDesc &op, const ConvGeometry &g)
      : CpuKernel(op) {
    ConvDims d(g);
    dnnl::convolution_backward_data::primitive_desc pd(
        dnnl::convolution_backward_data::desc(
            dnnl::algorithm::convolution_direct,
            anyDesc(plainDesc(g.x, dt::f32)), anyDesc(plainWeightsDesc(g)),
            anyDesc(plainDesc(g.y, dt::f32)), d.strides, d.dilations, d.padL,
            d.padR),
        scratchpadAttr(), cpuEngine(), hintFor(g));
    prim = dnnl::convolution_backward_data(pd);
    dyStage = Staged(plainDesc(g.y, dt::f32), pd.diff_dst_desc(), true);
    weightsStage = Staged(plainWeightsDesc(g), pd.weights_desc(), true);
    dxStage = Staged(plainDesc(g.x, dt::f32), pd.diff_src_desc(), false);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    void *dy = dyStage.innerData(in[0].data);
    void *weights = weightsStage.innerData(in[1].data);
    void *dx = dxStage.innerData(out[0].data);
    if (dyStage.needed())
      OFRT_RETURN_IF_ERROR(dyStage.run(where, in[0].data, dy, true));
    if (weightsStage.needed())
      OFRT_RETURN_IF_ERROR(weightsStage.run(where, in[1].data, weights, true));
    OFRT_RETURN_IF_ERROR(
        execute(where, prim,
                {{DNNL_ARG_DIFF_DST, wrap(dyStage.inner, dy)},
                 {DNNL_ARG_WEIGHTS, wrap(weightsStage.inner, weights)},
                 {DNNL_ARG_DIFF_SRC, wrap(dxStage.inner, dx)}}));
    if (dxStage.needed())
      OFRT_RETURN_IF_ERROR(dxStage.run(where, out[0].data, dx, false));
    return absl::OkStatus();
  }

private:
  Staged dyStage, weightsStage, dxStage;
  dnnl::convolution_backward_data prim;
};

/// dweight from x and dy.
class ConvBackwardFilterKernel : public CpuKernel {
public:
  ConvBackwardFilterKernel(const OpDesc &op, const ConvGeometry &g)
      : CpuKernel(op) {
    ConvDims d(g);
    dnnl::convolution_backward_weights::primitive_desc pd(
        dnnl::convolution_backward_weights::desc(
            dnnl::algorithm::convolution_direct,
            anyDesc(plainDesc(g.x, dt::f32)), anyDesc(plainWeightsDesc(g)),
            anyDesc(plainDesc(g.y, dt::f32)), d.strides, d.dilations, d.padL,
            d.padR),
        scratchpadAttr(), cpuEngine(), hintFor(g));
    prim = dnnl::convolution_backward_weights(pd);
    xStage = Staged(plainDesc(g.x, dt::f32), pd.src_desc(), true);
    dyStage = Staged(plainDesc(g.y, dt::f32), pd.diff_dst_desc(), true);
    dwStage = Staged(plainWeightsDesc(g), pd.diff_weights_desc(), false);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    void *x = xStage.innerData(in[0].data);
    void *dy = dyStage.innerData(in[1].data);
    void *dw = dwStage.innerData(out[0].data);
    if (xStage.needed())
      OFRT_RETURN_IF_ERROR(xStage.run(where, in[0].data, x, true));
    if (dyStage.needed())
      OFRT_RETURN_IF_ERROR(dyStage.run(where, in[1].data, dy, true));
    OFRT_RETURN_IF_ERROR(
        execute(where, prim,
                {{DNNL_ARG_SRC, wrap(xStage.inner, x)},
                 {DNNL_ARG_DIFF_DST, wrap(dyStage.inner, dy)},
                 {DNNL_ARG_DIFF_WEIGHTS, wrap(dwStage.inner, dw)}}));
    if (dwStage.needed())
      OFRT_RETURN_IF_ERROR(dwStage.run(where, out[0].data, dw, false));
    return absl::OkStatus();
  }

private:
  Staged xStage, dyStage, dwStage;
  dnnl::convolution_backward_weights prim;
};

/// A gradient that no product reaches (an empty batch, no channels or an
/// empty window): zeros.
class ZeroKernel : public CpuKernel {
public:
  using CpuKernel::CpuKernel;
  absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                       const std::vector<TensorView> &out) override {
    std::memset(out[0].data, 0, out[0].desc.bytes());
    return absl::OkStatus();
  }
};

absl::Status checkDy(const OpDesc &op, const TensorDesc &dy,
                     const ConvGeometry &g) {
  if (dy != TensorDesc{DType::F32, g.y})
    return opError(op, "dy is " + dy.str() + ", the convolution's result is " +
                           TensorDesc{DType::F32, g.y}.str());
  return absl::OkStatus();
}

KernelOr createConvBackwardData(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  ConvGeometry g;
  OFRT_RETURN_IF_ERROR(
      readConvGeometry(op, op.outputs[0], op.inputs[1], g));
  OFRT_RETURN_IF_ERROR(checkDy(op, op.inputs[0], g));
  if (numel(g.x) == 0)
    return std::make_unique<NoopKernel>(op);
  if (numel(g.y) == 0 || g.readsNothing())
    return std::make_unique<ZeroKernel>(op);
  return std::make_unique<ConvBackwardDataKernel>(op, g);
}

KernelOr createConvBackwardFilter(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  ConvGeometry g;
  OFRT_RETURN_IF_ERROR(
      readConvGeometry(op, op.inputs[0], op.outputs[0], g));
  OFRT_RETURN_IF_ERROR(checkDy(op, op.inputs[1], g));
  if (numel(g.w) == 0)
    return std::make_unique<NoopKernel>(op);
  if (numel(g.y) == 0 || g.readsNothing())
    return std::make_unique<ZeroKernel>(op);
  return std::make_unique<ConvBackwardFilterKernel>(op, g);
}

} // namespace

void cpu::registerConvGradKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.conv2d_backward_data", createConvBackwardData);
  addKernel(registry, "oneflow.conv2d_backward_filter",
            createConvBackwardFilter);
}
