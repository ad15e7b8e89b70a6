//===- BitShift.cpp - Shifts of unsigned integers -------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Plain code (oneDNN has no integer shifts): bit_shift on i32 or i64
// elements holding unsigned integers of `width` bits, with numpy
// broadcasting. The value is taken as its low `width` bits, shifted as an
// unsigned integer, and the low `width` bits of the result kept.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "KernelUtils.h"

#include "ofrt/KernelParams.h"

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

template <typename T> class BitShiftKernel : public CpuKernel {
public:
  BitShiftKernel(const OpDesc &op, bool left, int64_t width)
      : CpuKernel(op), left(left), width(width),
        mask(width == 64 ? ~uint64_t(0) : (uint64_t(1) << width) - 1),
        out(op.outputs[0].shape),
        xStrides(broadcastStrides(op.inputs[0].shape, out)),
        sStrides(broadcastStrides(op.inputs[1].shape, out)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &outs) override {
    const T *x = in[0].as<T>(), *s = in[1].as<T>();
    T *y = outs[0].as<T>();
    int64_t i = 0;
    forEachIndex<2>(out, {xStrides, sStrides}, [&](auto offsets) {
      uint64_t value = static_cast<uint64_t>(x[offsets[0]]) & mask;
      uint64_t shift = static_cast<uint64_t>(s[offsets[1]]) & mask;
      uint64_t r = shift >= static_cast<uint64_t>(width) ? 0
                   : left ? (value << shift) & mask
                          : value >> shift;
      y[i++] = static_cast<T>(r);
    });
    return absl::OkStatus();
  }

private:
  bool left;
  int64_t width;
  uint64_t mask;
  Shape out, xStrides, sStrides;
};

KernelOr createBitShift(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &x = op.inputs[0], &s = op.inputs[1];
  OFRT_READ_PARAMS(declared, params::BitShiftOp, op);
  const std::string &direction = declared.direction;
  int64_t width = declared.width;
  if (direction != "left" && direction != "right")
    return opError(op, "unknown direction '" + direction + "' (left or right)");
  if (width != 8 && width != 16 && width != 32 && width != 64)
    return opError(op, "width " + std::to_string(width) +
                           " is not 8, 16, 32 or 64");
  if (s.dtype != x.dtype || (x.dtype != DType::I32 && x.dtype != DType::I64) ||
      static_cast<int64_t>(dtypeSize(x.dtype)) * 8 < width)
    return opError(op, "needs i32 or i64 operands of one type wide enough "
                       "for " +
                           std::to_string(width) + " bits, got " + x.str() +
                           " and " + s.str());
  std::optional<Shape> shape = broadcastShapes({x.shape, s.shape});
  if (!shape)
    return opError(op, "cannot broadcast " + x.str() + " and " + s.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, *shape}));
  bool left = direction == "left";
  if (x.dtype == DType::I32)
    return std::make_unique<BitShiftKernel<int32_t>>(op, left, width);
  return std::make_unique<BitShiftKernel<int64_t>>(op, left, width);
}

} // namespace

void cpu::registerBitShiftKernels(KernelRegistry &registry) {
  addKernel(registry, params::BitShiftOp::kOpName, createBitShift);
}
