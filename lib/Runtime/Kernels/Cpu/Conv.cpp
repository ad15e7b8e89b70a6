//===- Conv.cpp - conv2d (oneDNN convolution_forward) ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The primitive picks its own (blocked) layouts (ConvUtils.h); reorders
// from and to the plain NCHW / OIHW (GOIHW with groups) tensors of the plan
// run around it, and are skipped when the chosen layout is the plain one.
// The weights are reordered only at steps where they changed.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "ConvUtils.h"

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

class ConvKernel : public CpuKernel {
public:
  ConvKernel(const OpDesc &op, const ConvGeometry &g, bool hasBias)
      : CpuKernel(op), hasBias(hasBias) {
    dnnl::convolution_forward::primitive_desc pd(convDesc(g, hasBias),
                                                 scratchpadAttr(), cpuEngine());
    prim = dnnl::convolution_forward(pd);
    bias = plainDesc({g.filters()}, dt::f32);
    srcStage = Staged(plainDesc(g.x, dt::f32), pd.src_desc(), true);
    weightsStage = Staged(plainWeightsDesc(g), pd.weights_desc(), true);
    dstStage = Staged(plainDesc(g.y, dt::f32), pd.dst_desc(), false);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    void *src = srcStage.innerData(in[0].data);
    void *weights = weightsStage.innerData(in[1].data);
    void *dst = dstStage.innerData(out[0].data);
    if (srcStage.needed())
      OFRT_RETURN_IF_ERROR(srcStage.run(where, in[0].data, src, true));
    // The weights are reordered again only when they changed.
    if (weightsStage.needed() && !weightsCache.unchanged({in[1]}))
      OFRT_RETURN_IF_ERROR(weightsStage.run(where, in[1].data, weights, true));
    std::unordered_map<int, dnnl::memory> args = {
        {DNNL_ARG_SRC, wrap(srcStage.inner, src)},
        {DNNL_ARG_WEIGHTS, wrap(weightsStage.inner, weights)},
        {DNNL_ARG_DST, wrap(dstStage.inner, dst)}};
    if (hasBias)
      args[DNNL_ARG_BIAS] = wrap(bias, in[2].data);
    OFRT_RETURN_IF_ERROR(execute(where, prim, args));
    if (dstStage.needed())
      OFRT_RETURN_IF_ERROR(dstStage.run(where, out[0].data, dst, false));
    return absl::OkStatus();
  }

private:
  bool hasBias;
  MemDesc bias;
  Staged srcStage, weightsStage, dstStage;
  InputCache weightsCache;
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
  ConvGeometry g;
  OFRT_RETURN_IF_ERROR(readConvGeometry(op, op.inputs[0], op.inputs[1], g));
  bool hasBias = op.inputs.size() == 3;
  if (hasBias && op.inputs[2] != TensorDesc{DType::F32, {g.filters()}})
    return opError(op, "bias is " + op.inputs[2].str() + ", needs [" +
                           std::to_string(g.filters()) + "] of f32");
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {DType::F32, g.y}));
  if (numel(g.y) == 0)
    return std::make_unique<NoopKernel>(op);
  if (g.readsNothing())
    return std::make_unique<BiasOnlyKernel>(op, g.batch(), g.filters(),
                                            g.y[2] * g.y[3], hasBias);
  return std::make_unique<ConvKernel>(op, g, hasBias);
}

} // namespace

void cpu::registerConvKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.conv2d", createConv);
}
