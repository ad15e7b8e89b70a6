//===- Resample.cpp - Linear resampling and its gradient ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's resampling primitive, linear or nearest, on N, C and 1 to 3
// spatial axes:
// resample (x -> y) is its forward pass, resample_grad ((x, dy) -> dx) its
// backward pass (the transposed interpolation; x gives only the shape).
// The factors are the ratios of the shapes, so that an output index i of an
// axis resized from n to m samples the input at (i + 0.5) n / m - 0.5, as
// the dialect's op states (nearest rounds it, halves away from zero).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;

namespace {

class ResampleKernel : public CpuKernel {
public:
  ResampleKernel(const OpDesc &op, const Shape &x, const Shape &y, bool grad,
                 algorithm alg)
      : CpuKernel(op), grad(grad), src(plainDesc(x, dt::f32)),
        dst(plainDesc(y, dt::f32)) {
    dnnl::resampling_forward::primitive_desc forward(
        dnnl::resampling_forward::desc(dnnl::prop_kind::forward_training, alg,
                                       src, dst),
        scratchpadAttr(), cpuEngine());
    if (!grad) {
      prim = dnnl::resampling_forward(forward);
      return;
    }
    dnnl::resampling_backward::primitive_desc backward(
        dnnl::resampling_backward::desc(alg, src, dst), scratchpadAttr(),
        cpuEngine(), forward);
    prim = dnnl::resampling_backward(backward);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    if (!grad)
      return execute(where, prim,
                     {{DNNL_ARG_SRC, wrap(src, in[0].data)},
                      {DNNL_ARG_DST, wrap(dst, out[0].data)}});
    return execute(where, prim,
                   {{DNNL_ARG_DIFF_DST, wrap(dst, in[1].data)},
                    {DNNL_ARG_DIFF_SRC, wrap(src, out[0].data)}});
  }

private:
  bool grad;
  MemDesc src, dst;
  dnnl::primitive prim;
};

/// The sizes resample declares for its result's spatial axes (its
/// gradient's are dy's).
template <typename Params>
std::vector<int64_t> declaredSizes(const Params &declared) {
  if constexpr (std::is_same_v<Params, params::ResampleOp>)
    return declared.sizes;
  return {};
}

/// resample: x -> y of `sizes`; resample_grad: (x, dy) -> dx; `mode`
/// linear or nearest.
template <typename Params>
KernelOr createResample(const OpDesc &op, bool grad) {
  OFRT_RETURN_IF_ERROR(checkArity(op, grad ? 2 : 1, 1));
  const TensorDesc &x = op.inputs[0];
  if (x.rank() < 3 || x.rank() > 5)
    return opError(op, "input must be N, C and 1 to 3 spatial axes, got " +
                           x.str());
  if (x.dtype != DType::F32)
    return opError(op, "has a CPU kernel for f32 only, got " + x.str());
  OFRT_READ_PARAMS(declared, Params, op);
  const std::string &mode = declared.mode;
  if (mode != "linear" && mode != "nearest")
    return opError(op, "unknown mode '" + mode + "' (linear or nearest)");
  Shape y = {x.shape[0], x.shape[1]};
  if (grad) {
    const TensorDesc &dy = op.inputs[1];
    if (dy.dtype != x.dtype || dy.rank() != x.rank() ||
        dy.shape[0] != x.shape[0] || dy.shape[1] != x.shape[1])
      return opError(op, "dy " + dy.str() + " does not fit x " + x.str());
    y = dy.shape;
    OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  } else {
    std::vector<int64_t> sizes = declaredSizes(declared);
    OFRT_RETURN_IF_ERROR(checkList(op, "sizes", sizes, x.rank() - 2, 1));
    y.insert(y.end(), sizes.begin(), sizes.end());
    OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, y}));
  }
  if (x.numel() == 0 || numel(y) == 0)
    return std::make_unique<NoopKernel>(op);
  return std::make_unique<ResampleKernel>(op, x.shape, y, grad,
                                          mode == "linear"
                                              ? algorithm::resampling_linear
                                              : algorithm::resampling_nearest);
}

} // namespace

void cpu::registerResampleKernels(KernelRegistry &registry) {
  addKernel(registry, params::ResampleOp::kOpName, [](const OpDesc &op) {
    return createResample<params::ResampleOp>(op, false);
  });
  addKernel(registry, params::ResampleGradOp::kOpName, [](const OpDesc &op) {
    return createResample<params::ResampleGradOp>(op, true);
  });
}
