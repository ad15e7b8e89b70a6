//===- Select.cpp - where, masked_fill, cast ------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Plain code: oneDNN has no select primitive, and its reorder rounds where
// a float-to-integer cast must truncate. Float-to-integer casts truncate
// toward zero and saturate (NaN gives 0); anything to i1 is `x != 0`;
// integer-to-integer casts wrap (keep the low bits). Casts between f32,
// bf16 and f16 are oneDNN reorders.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "ofrt/KernelParams.h"

#include <cstring>
#include <type_traits>

using namespace ofrt;
using namespace ofrt::cpu;

namespace {

/// Elements of `Bytes` bytes as unsigned integers: selection does not look
/// at values, and integer selects vectorize.
template <size_t Bytes>
using Bits = std::conditional_t<
    Bytes == 1, uint8_t,
    std::conditional_t<Bytes == 2, uint16_t,
                       std::conditional_t<Bytes == 4, uint32_t, uint64_t>>>;

/// `shape` (or strides) less the last axis: the rows' index space.
Shape outerAxes(const Shape &shape) {
  return Shape(shape.begin(), shape.end() - 1);
}

/// One row of a select: `r[j] = c[j] ? x : y`, where an operand whose
/// step is 0 is one value for the row (a broadcast scalar). Branch-free
/// masks and one loop per case, so that each vectorizes (a select that
/// branches pays a misprediction per element of a random mask).
template <typename T>
void selectRow(int64_t n, const uint8_t *c, const T *x, int64_t xStep,
               const T *y, int64_t yStep, T *r) {
  static_assert(std::is_unsigned_v<T>, "selects bits");
  auto pick = [](uint8_t cond, T a, T b) {
    T mask = T(0) - T(cond != 0);
    return T((a & mask) | (b & ~mask));
  };
  if (xStep && yStep) {
    for (int64_t j = 0; j < n; ++j)
      r[j] = pick(c[j], x[j], y[j]);
  } else if (yStep) {
    T a = *x;
    for (int64_t j = 0; j < n; ++j)
      r[j] = pick(c[j], a, y[j]);
  } else if (xStep) {
    T b = *y;
    for (int64_t j = 0; j < n; ++j)
      r[j] = pick(c[j], x[j], b);
  } else {
    T a = *x, b = *y;
    for (int64_t j = 0; j < n; ++j)
      r[j] = pick(c[j], a, b);
  }
}

class WhereKernel : public CpuKernel {
public:
  WhereKernel(const OpDesc &op, const Shape &out)
      : CpuKernel(op), outShape(out),
        cStrides(broadcastStrides(op.inputs[0].shape, out)),
        xStrides(broadcastStrides(op.inputs[1].shape, out)),
        yStrides(broadcastStrides(op.inputs[2].shape, out)),
        size(dtypeSize(op.inputs[1].dtype)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    switch (size) {
    case 1:
      return run<1>(in, out);
    case 2:
      return run<2>(in, out);
    case 4:
      return run<4>(in, out);
    default:
      return run<8>(in, out);
    }
  }

private:
  template <size_t B>
  absl::Status run(const std::vector<TensorView> &in,
                   const std::vector<TensorView> &out) {
    using T = Bits<B>;
    const uint8_t *c = in[0].as<uint8_t>();
    const T *x = in[1].as<T>(), *y = in[2].as<T>();
    T *r = out[0].as<T>();
    // Whole rows where the condition is dense along the last axis and each
    // branch dense or one value there (the attention mask's gradient:
    // a [T, T] mask and a scalar zero against [B, H, T, T]).
    if (!outShape.empty() && cStrides.back() == 1 && xStrides.back() <= 1 &&
        yStrides.back() <= 1) {
      int64_t n = outShape.back();
      forEachIndex<3>(
          outerAxes(outShape),
          {outerAxes(cStrides), outerAxes(xStrides), outerAxes(yStrides)},
          [&](const std::array<int64_t, 3> &o) {
            selectRow(n, c + o[0], x + o[1], xStrides.back(), y + o[2],
                      yStrides.back(), r);
            r += n;
          });
      return absl::OkStatus();
    }
    int64_t i = 0;
    forEachIndex<3>(outShape, {cStrides, xStrides, yStrides},
                    [&](const std::array<int64_t, 3> &o) {
                      r[i++] = c[o[0]] ? x[o[1]] : y[o[2]];
                    });
    return absl::OkStatus();
  }

  Shape outShape, cStrides, xStrides, yStrides;
  size_t size;
};

KernelOr createWhere(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 3, 1));
  const TensorDesc &c = op.inputs[0], &x = op.inputs[1], &y = op.inputs[2];
  if (c.dtype != DType::Bool)
    return opError(op, "condition must be i1, got " + c.str());
  if (x.dtype != y.dtype)
    return opError(op, "branches have different element types " + x.str() +
                           " and " + y.str());
  std::optional<Shape> shape = broadcastShapes({c.shape, x.shape, y.shape});
  if (!shape)
    return opError(op, "cannot broadcast shapes " + shapeStr(c.shape) + " " +
                           shapeStr(x.shape) + " " + shapeStr(y.shape));
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, *shape}));
  return std::make_unique<WhereKernel>(op, *shape);
}

template <typename T> class MaskedFillKernel : public CpuKernel {
public:
  MaskedFillKernel(const OpDesc &op, T value)
      : CpuKernel(op), shape(op.inputs[0].shape),
        xStrides(rowMajorStrides(shape)),
        mStrides(broadcastStrides(op.inputs[1].shape, shape)), value(value) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *x = in[0].as<T>();
    const uint8_t *m = in[1].as<uint8_t>();
    T *r = out[0].as<T>();
    // Whole rows where the mask is dense along the last axis (a causal
    // [T, T] mask against [B, H, T, T]).
    if (!shape.empty() && mStrides.back() == 1) {
      using B = Bits<sizeof(T)>;
      B fill;
      std::memcpy(&fill, &value, sizeof(T));
      int64_t n = shape.back();
      forEachIndex<2>(
          outerAxes(shape), {outerAxes(xStrides), outerAxes(mStrides)},
          [&](const std::array<int64_t, 2> &o) {
            selectRow(n, m + o[1], &fill, 0,
                      reinterpret_cast<const B *>(x + o[0]), 1,
                      reinterpret_cast<B *>(r + o[0]));
          });
      return absl::OkStatus();
    }
    forEachIndex<2>(shape, {xStrides, mStrides},
                    [&](const std::array<int64_t, 2> &o) {
                      r[o[0]] = m[o[1]] ? value : x[o[0]];
                    });
    return absl::OkStatus();
  }

private:
  Shape shape, xStrides, mStrides;
  T value;
};

KernelOr createMaskedFill(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &x = op.inputs[0], &mask = op.inputs[1];
  OFRT_READ_PARAMS(declared, params::MaskedFillOp, op);
  double value = declared.value;
  if (mask.dtype != DType::Bool)
    return opError(op, "mask must be i1, got " + mask.str());
  std::optional<Shape> shape = broadcastShapes({x.shape, mask.shape});
  if (!shape || *shape != x.shape)
    return opError(op,
                   "mask " + mask.str() + " does not broadcast to " + x.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  std::unique_ptr<Kernel> kernel;
  bool known = visitPlainType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = std::make_unique<MaskedFillKernel<T>>(
        op, fromDouble<T>(value, x.dtype == DType::Bool));
  });
  if (!known)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype));
  return kernel;
}

template <typename From, typename To> class CastKernel : public CpuKernel {
public:
  CastKernel(const OpDesc &op, bool toBool) : CpuKernel(op), toBool(toBool) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const From *x = in[0].as<From>();
    To *y = out[0].as<To>();
    int64_t n = in[0].desc.numel();
    for (int64_t i = 0; i < n; ++i)
      y[i] = elementwise::castElement<From, To>(x[i], toBool);
    return absl::OkStatus();
  }

private:
  bool toBool;
};

bool isDnnlFloat(DType t) {
  return t == DType::F32 || t == DType::BF16 || t == DType::F16;
}

/// visitPlainType, and the integer types only casts read and write (at a
/// program's edges): I16, U16, U32, U64.
template <typename F> bool visitCastType(DType dtype, F &&f) {
  switch (dtype) {
  case DType::I16:
    f(TypeTag<int16_t>());
    return true;
  case DType::U16:
    f(TypeTag<uint16_t>());
    return true;
  case DType::U32:
    f(TypeTag<uint32_t>());
    return true;
  case DType::U64:
    f(TypeTag<uint64_t>());
    return true;
  default:
    return visitPlainType(dtype, f);
  }
}

KernelOr createCast(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0], &y = op.outputs[0];
  if (x.shape != y.shape)
    return opError(op, "changes the shape from " + x.str() + " to " + y.str());
  if (x.numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (isDnnlFloat(x.dtype) && isDnnlFloat(y.dtype) &&
      (x.dtype != DType::F32 || y.dtype != DType::F32)) {
    OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank()));
    // Between f32, bf16 and f16 a cast rounds to nearest: a oneDNN reorder.
    return std::make_unique<ReorderKernel>(
        op, plainDesc(x.shape, *dnnlType(x.dtype)),
        plainDesc(y.shape, *dnnlType(y.dtype)));
  }
  std::unique_ptr<Kernel> kernel;
  bool known = false;
  visitCastType(x.dtype, [&](auto from) {
    known = visitCastType(y.dtype, [&](auto to) {
      using From = typename decltype(from)::type;
      using To = typename decltype(to)::type;
      kernel =
          std::make_unique<CastKernel<From, To>>(op, y.dtype == DType::Bool);
    });
  });
  if (!known)
    return opError(op, std::string("has no CPU kernel from ") +
                           dtypeName(x.dtype) + " to " + dtypeName(y.dtype));
  return kernel;
}

} // namespace

void cpu::registerSelectKernels(KernelRegistry &registry) {
  addKernel(registry, "oneflow.where", createWhere);
  addKernel(registry, params::MaskedFillOp::kOpName, createMaskedFill);
  addKernel(registry, "oneflow.cast", createCast);
}
