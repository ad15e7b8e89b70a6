//===- Dropout.cpp - dropout ----------------------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Plain code (oneDNN has no random primitive). Element i is kept when
// randomUniform(seed, step, i) >= rate, so the mask depends only on the
// seed, the step and the logical index; kept values are scaled by
// 1 / (1 - rate).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"

#include "ofrt/KernelParams.h"
#include "ofrt/Pieces.h"
#include "ofrt/Random.h"

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// `value` if `keep`, +0 otherwise, without a branch (the mask is random:
/// a branch mispredicts half the time, which costs 5x).
template <typename T> T keepOrZero(bool keep, T value) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(T));
  bits &= Bits(0) - static_cast<Bits>(keep);
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T> class DropoutKernel : public CpuKernel {
public:
  DropoutKernel(const OpDesc &op, double rate, int64_t seed,
                PieceLayout piece)
      : CpuKernel(op), rate(rate), scale(static_cast<T>(1.0 / (1.0 - rate))),
        seed(static_cast<uint64_t>(seed)), piece(std::move(piece)) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *x = in[0].as<T>();
    T *y = out[0].as<T>();
    uint8_t *mask = out[1].as<uint8_t>();
    int64_t n = in[0].desc.numel();
    // randomUniform(seed, step, i), with the (seed, step) key hoisted.
    uint64_t key = randomKey(seed, static_cast<uint64_t>(context.step));
    auto apply = [&](int64_t i, int64_t logical) {
      bool keep = unitFromBits(randomBits(key, logical)) >= rate;
      mask[i] = keep;
      y[i] = keepOrZero(keep, x[i] * scale);
    };
    const std::vector<int64_t> &shape = in[0].desc.shape;
    if (piece.whole(shape)) {
      for (int64_t i = 0; i < n; ++i)
        apply(i, i);
    } else {
      // A piece of a global tensor draws what one device would draw for
      // the same logical elements.
      forEachLogicalIndex(shape, piece.beginAt(context.micro),
                          piece.logicalShape, apply);
    }
    return absl::OkStatus();
  }

private:
  double rate;
  T scale;
  uint64_t seed;
  PieceLayout piece;
};

KernelOr createDropout(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 2));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::DropoutOp, op);
  double rate = declared.rate;
  int64_t seed = declared.seed;
  if (!(rate >= 0 && rate < 1))
    return opError(op, "rate " + std::to_string(rate) + " is outside [0, 1)");
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {DType::Bool, x.shape}));
  absl::StatusOr<PieceLayout> piece = readPieceLayout(op, x.shape);
  if (!piece.ok())
    return piece.status();
  if (x.dtype == DType::F32)
    return std::make_unique<DropoutKernel<float>>(op, rate, seed, *piece);
  if (x.dtype == DType::F64)
    return std::make_unique<DropoutKernel<double>>(op, rate, seed, *piece);
  return opError(op, std::string("has no CPU kernel for element type ") +
                         dtypeName(x.dtype) + " (f32, f64)");
}

} // namespace

void cpu::registerDropoutKernels(KernelRegistry &registry) {
  addKernel(registry, params::DropoutOp::kOpName, createDropout);
}
