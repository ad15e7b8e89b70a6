//===- Conv.cpp - conv2d (oneDNN convolution_forward) ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The primitive picks its own (blocked) layouts (format `any`); reorders
// from and to the plain NCHW / OIHW (GOIHW with groups) tensors of the plan
// run around it, and are skipped when the chosen layout is the plain one.
// oneDNN counts dilation from 0 (the dialect's dilation - 1).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"

using namespace ofrt;
using namespace ofrt::cpu;
using tag = dnnl::memory::format_tag;

namespace {

/// A plain tensor, and the layout a primitive wants it in.
struct Staged {
  MemDesc user, inner;
  dnnl::reorder reorder;
  std::vector<uint8_t> buffer;

  Staged() = default;
  Staged(const MemDesc &user, const MemDesc &inner, bool toInner)
      : user(user), inner(inner) {
    if (user == inner)
      return;
    reorder = toInner ? dnnl::reorder(dnnl::reorder::primitive_desc(
                            cpuEngine(), user, cpuEngine(), inner))
                      : dnnl::reorder(dnnl::reorder::primitive_desc(
                            cpuEngine(), inner, cpuEngine(), user));
    buffer.resize(inner.get_size());
  }
  bool needed() const { return !buffer.empty(); }
};

class ConvKernel : public CpuKernel {
public:
  ConvKernel(const OpDesc &op, const dnnl::convolution_forward::desc &desc,
             const MemDesc &src, const MemDesc &weights, const MemDesc &bias,
             const MemDesc &dst, bool hasBias)
      : CpuKernel(op), bias(bias), hasBias(hasBias) {
    dnnl::convolution_forward::primitive_desc pd(desc, cpuEngine());
    prim = dnnl::convolution_forward(pd);
    srcStage = Staged(src, pd.src_desc(), true);
    weightsStage = Staged(weights, pd.weights_desc(), true);
    dstStage = Staged(dst, pd.dst_desc(), false);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    void *src = stageIn(srcStage, in[0].data);
    void *weights = stageIn(weightsStage, in[1].data);
    void *dst = dstStage.needed() ? dstStage.buffer.data() : out[0].data;
    if (srcStage.needed())
      OFRT_RETURN_IF_ERROR(reorder(srcStage, in[0].data, src, true));
    if (weightsStage.needed())
      OFRT_RETURN_IF_ERROR(reorder(weightsStage, in[1].data, weights, true));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, wrap(srcStage.inner, src)},
        {DNNL_ARG_WEIGHTS, wrap(weightsStage.inner, weights)},
        {DNNL_ARG_DST, wrap(dstStage.inner, dst)}};
    if (hasBias)
      args[DNNL_ARG_BIAS] = wrap(bias, in[2].data);
    OFRT_RETURN_IF_ERROR(execute(where, prim, args));
    if (dstStage.needed())
      OFRT_RETURN_IF_ERROR(reorder(dstStage, out[0].data, dst, false));
    return absl::OkStatus();
  }

private:
  static void *stageIn(Staged &stage, void *user) {
    return stage.needed() ? stage.buffer.data() : user;
  }
  absl::Status reorder(Staged &stage, void *user, void *inner, bool toInner) {
    dnnl::memory u = wrap(stage.user, user), i = wrap(stage.inner, inner);
    return execute(
        where, stage.reorder,
        {{DNNL_ARG_FROM, toInner ? u : i}, {DNNL_ARG_TO, toInner ? i : u}});
  }

  MemDesc bias;
  bool hasBias;
  Staged srcStage, weightsStage, dstStage;
  dnnl::convolution_forward prim;
};

/// No input channels: the output is the bias (or zero) everywhere.
class BiasOnlyKernel : public CpuKernel {
public:
  BiasOnlyKernel(const OpDesc &op, int64_t batch, int64_t filters,
                 int64_t spatial, bool hasBias)
      : CpuKernel(op), batch(batch), filters(filters), spatial(spatial),
        hasBias(hasBias) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    float *y = out[0].as<float>();
    for (int64_t n = 0; n < batch; ++n)
      for (int64_t f = 0; f < filters; ++f)
        std::fill_n(y + (n * filters + f) * spatial, spatial,
                    hasBias ? in[2].as<float>()[f] : 0.0f);
    return absl::OkStatus();
  }

private:
  int64_t batch, filters, spatial;
  bool hasBias;
};

KernelOr createConv(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 3, 1));
  const TensorDesc &x = op.inputs[0], &w = op.inputs[1];
  bool hasBias = op.inputs.size() == 3;
  std::vector<int64_t> strides, pads, dilations;
  int64_t groups = 0;
  OFRT_RETURN_IF_ERROR(readList(op, "strides", strides, {{1, 1}}, 2, 1));
  OFRT_RETURN_IF_ERROR(readList(op, "pads", pads, {{0, 0, 0, 0}}, 4, 0));
  OFRT_RETURN_IF_ERROR(readList(op, "dilations", dilations, {{1, 1}}, 2, 1));
  OFRT_RETURN_IF_ERROR(readAttr(op, "groups", groups, {int64_t(1)}));
  if (x.rank() != 4 || w.rank() != 4)
    return opError(op, "needs NCHW input and FCHW weight (rank 4), got " +
                           x.str() + " and " + w.str());
  if (x.dtype != DType::F32 || w.dtype != DType::F32 ||
      (hasBias && op.inputs[2].dtype != DType::F32))
    return opError(op, "has a CPU kernel for f32 only, got " + x.str() +
                           " and " + w.str());
  int64_t batch = x.shape[0], channels = x.shape[1], filters = w.shape[0];
  if (groups < 1 || channels % groups != 0 || filters % groups != 0)
    return opError(op, "groups " + std::to_string(groups) +
                           " must divide the input channels (" +
                           std::to_string(channels) + ") and filters (" +
                           std::to_string(filters) + ")");
  if (w.shape[1] * groups != channels)
    return opError(op, "weight " + w.str() + " has " +
                           std::to_string(w.shape[1]) +
                           " channels per group, the input " +
                           std::to_string(channels / groups));
  if (hasBias && op.inputs[2].shape != Shape{filters})
    return opError(op, "bias is " + op.inputs[2].str() + ", needs [" +
                           std::to_string(filters) + "]");
  Shape outShape = {batch, filters, 0, 0};
  for (int i = 0; i < 2; ++i) {
    int64_t padded = x.shape[2 + i] + pads[i] + pads[i + 2];
    int64_t span = dilations[i] * (w.shape[2 + i] - 1) + 1;
    if (padded < span)
      return opError(op, "window of " + std::to_string(span) +
                             " does not fit the padded input of " +
                             std::to_string(padded) + " on spatial axis " +
                             std::to_string(i));
    outShape[2 + i] = (padded - span) / strides[i] + 1;
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, outShape}));
  if (numel(outShape) == 0)
    return std::make_unique<NoopKernel>(op);
  if (channels == 0 || w.shape[2] == 0 || w.shape[3] == 0)
    return std::make_unique<BiasOnlyKernel>(op, batch, filters,
                                            outShape[2] * outShape[3], hasBias);

  MemDesc src = plainDesc(x.shape, dt::f32);
  MemDesc dst = plainDesc(outShape, dt::f32);
  MemDesc weights = groups == 1
                        ? plainDesc(w.shape, dt::f32)
                        : plainDesc({groups, filters / groups, w.shape[1],
                                     w.shape[2], w.shape[3]},
                                    dt::f32);
  MemDesc bias = plainDesc({filters}, dt::f32);
  auto any = [](const MemDesc &d) {
    return MemDesc(d.dims(), dt::f32, tag::any);
  };
  // Activations: with channels in multiples of 16, oneDNN 2.6's direct
  // avx512 convolution on nChw16c and its reorders from and to NCHW beat
  // the NHWC kernel that `any` picks (measured on a ResNet basic block:
  // reorders 0.19 ms against 0.37 ms each way). Otherwise let it choose.
  bool blocked = groups == 1 && channels % 16 == 0 && filters % 16 == 0;
  auto activation = [&](const MemDesc &d) {
    return blocked ? MemDesc(d.dims(), dt::f32, tag::nChw16c) : any(d);
  };
  Dims dnnlStrides = {strides[0], strides[1]};
  Dims dnnlDilations = {dilations[0] - 1, dilations[1] - 1};
  Dims padL = {pads[0], pads[1]}, padR = {pads[2], pads[3]};
  dnnl::convolution_forward::desc desc =
      hasBias ? dnnl::convolution_forward::desc(
                    dnnl::prop_kind::forward_inference,
                    dnnl::algorithm::convolution_direct, activation(src),
                    any(weights), bias, activation(dst), dnnlStrides,
                    dnnlDilations, padL, padR)
              : dnnl::convolution_forward::desc(
                    dnnl::prop_kind::forward_inference,
                    dnnl::algorithm::convolution_direct, activation(src),
                    any(weights), activation(dst), dnnlStrides, dnnlDilations,
                    padL, padR);
  return std::make_unique<ConvKernel>(op, desc, src, weights, bias, dst,
                                      hasBias);
}

} // namespace

void cpu::registerConvKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.conv2d", createConv);
}
