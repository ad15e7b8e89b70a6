//===- Binary.cpp - Broadcasting arithmetic and comparisons ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// add sub mul div maximum minimum run on oneDNN's binary primitive for f32
// (bf16, f16), as do the six comparisons for bf16 and f16 (written as u8
// 0/1; f32 comparisons use the plain loops, oneDNN 2.x's u8 results take
// its reference code). pow, and element types oneDNN lacks (f64, i64, and
// i8/i32/i1 for simplicity), use plain broadcasting loops, as do
// logical_and, logical_or and logical_xor (i1 only). gelu_grad (x, dy of one
// shape) runs on oneDNN's eltwise backward primitive (gelu_erf), in f32
// where oneDNN has none for bf16 or f16; broadcast or f64 operands use the
// plain loops. Integer division truncates toward zero (C and ONNX
// semantics); integer overflow wraps.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "Kernels/Common/ElementwiseFunctions.h"
#include "OpParams.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;
using namespace ofrt::elementwise;
using dnnl::algorithm;

namespace {

/// oneDNN's algorithm for `op`, or undef (pow and the logical ops).
algorithm dnnlAlgorithm(Op op) {
  switch (op) {
  case Op::Add:
    return algorithm::binary_add;
  case Op::Sub:
    return algorithm::binary_sub;
  case Op::Mul:
    return algorithm::binary_mul;
  case Op::Div:
    return algorithm::binary_div;
  case Op::Max:
    return algorithm::binary_max;
  case Op::Min:
    return algorithm::binary_min;
  case Op::Eq:
    return algorithm::binary_eq;
  case Op::Ne:
    return algorithm::binary_ne;
  case Op::Lt:
    return algorithm::binary_lt;
  case Op::Le:
    return algorithm::binary_le;
  case Op::Gt:
    return algorithm::binary_gt;
  case Op::Ge:
    return algorithm::binary_ge;
  default:
    return algorithm::undef;
  }
}

/// The algorithm computing alg(b, a), if there is one.
algorithm swapped(algorithm alg) {
  switch (alg) {
  case algorithm::binary_add:
  case algorithm::binary_mul:
  case algorithm::binary_max:
  case algorithm::binary_min:
  case algorithm::binary_eq:
  case algorithm::binary_ne:
    return alg;
  case algorithm::binary_lt:
    return algorithm::binary_gt;
  case algorithm::binary_gt:
    return algorithm::binary_lt;
  case algorithm::binary_le:
    return algorithm::binary_ge;
  case algorithm::binary_ge:
    return algorithm::binary_le;
  default:
    return algorithm::undef;
  }
}

class DnnlBinaryKernel : public CpuKernel {
public:
  DnnlBinaryKernel(const OpDesc &op, algorithm alg, MemDesc a, MemDesc b,
                   MemDesc c, bool swap)
      : CpuKernel(op), aDesc(a), bDesc(b), cDesc(c), swap(swap) {
    dnnl::binary::primitive_desc pd(dnnl::binary::desc(alg, a, b, c),
                                    scratchpadAttr(), cpuEngine());
    prim = dnnl::binary(pd);
  }

  /// Broadcasts src0 (the lhs) into a buffer of the result's shape first.
  void expandLhs(const Shape &lhs, const Shape &out, size_t elemSize) {
    lhsShape = lhs;
    outShape = out;
    this->elemSize = elemSize;
    expanded.resize(numel(out) * elemSize);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const void *a = in[swap ? 1 : 0].data, *b = in[swap ? 0 : 1].data;
    if (!expanded.empty()) {
      broadcastCopy(a, lhsShape, expanded.data(), outShape, elemSize);
      a = expanded.data();
    }
    return execute(where, prim,
                   args(DNNL_ARG_SRC_0, aDesc, a)(DNNL_ARG_SRC_1, bDesc, b)(
                       DNNL_ARG_DST, cDesc, out[0].data));
  }

private:
  DnnlArgs args;
  MemDesc aDesc, bDesc, cDesc;
  bool swap;
  dnnl::binary prim;
  Shape lhsShape, outShape;
  size_t elemSize = 0;
  std::vector<uint8_t> expanded;
};

/// gelu_grad of x and dy of one shape: oneDNN's eltwise backward (gelu_erf,
/// from x), one pass instead of the composition's eleven.
dnnl::primitive geluBackward(const MemDesc &desc) {
  dnnl::eltwise_forward::primitive_desc hint(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_training,
                                  algorithm::eltwise_gelu_erf, desc),
      cpuEngine());
  return dnnl::eltwise_backward(dnnl::eltwise_backward::primitive_desc(
      dnnl::eltwise_backward::desc(algorithm::eltwise_gelu_erf, desc, desc),
      scratchpadAttr(), cpuEngine(), hint));
}

template <typename T> class PlainBinaryKernel : public CpuKernel {
public:
  PlainBinaryKernel(const OpDesc &op, Op kind, const Shape &out)
      : CpuKernel(op), kind(kind), outShape(out),
        aStrides(broadcastStrides(op.inputs[0].shape, out)),
        bStrides(broadcastStrides(op.inputs[1].shape, out)) {
    Shape whole = rowMajorStrides(out), none(out.size(), 0);
    aWhole = aStrides == whole;
    bWhole = bStrides == whole;
    aScalar = aStrides == none;
    bScalar = bStrides == none;
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *a = in[0].as<T>(), *b = in[1].as<T>();
    switch (kind) {
    case Op::Add:
      return run<T>(a, b, out[0], [](T x, T y) { return wrapAdd(x, y); });
    case Op::Sub:
      return run<T>(a, b, out[0], [](T x, T y) { return wrapSub(x, y); });
    case Op::Mul:
      return run<T>(a, b, out[0], [](T x, T y) { return wrapMul(x, y); });
    case Op::Div:
      return divide(a, b, out[0]);
    case Op::Max:
      return run<T>(a, b, out[0],
                    [](T x, T y) { return binaryFn(Op::Max, x, y); });
    case Op::Min:
      return run<T>(a, b, out[0],
                    [](T x, T y) { return binaryFn(Op::Min, x, y); });
    case Op::Pow:
      if constexpr (std::is_integral_v<T>)
        return run<T>(a, b, out[0], [](T x, T y) { return intPow(x, y); });
      else
        return run<T>(a, b, out[0], [](T x, T y) { return std::pow(x, y); });
    case Op::And:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x && y; });
    case Op::Or:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x || y; });
    case Op::Xor:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return !x != !y; });
    case Op::Eq:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x == y; });
    case Op::Ne:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x != y; });
    case Op::Lt:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x < y; });
    case Op::Le:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x <= y; });
    case Op::Gt:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x > y; });
    case Op::Ge:
      return run<uint8_t>(a, b, out[0], [](T x, T y) { return x >= y; });
    case Op::GeluGrad:
      return run<T>(a, b, out[0],
                    [](T x, T y) { return binaryFn(Op::GeluGrad, x, y); });
    }
    return absl::OkStatus();
  }

private:
  template <typename R, typename F>
  absl::Status run(const T *a, const T *b, const TensorView &out, F f) {
    R *r = out.as<R>();
    // Whole operands and scalars (relu's gradient mask: x > 0) in plain
    // loops the compiler vectorizes; other broadcasts walk the indices.
    int64_t n = numel(outShape);
    if (aWhole && bWhole) {
      for (int64_t i = 0; i < n; ++i)
        r[i] = static_cast<R>(f(a[i], b[i]));
      return absl::OkStatus();
    }
    if (aWhole && bScalar) {
      for (int64_t i = 0; i < n; ++i)
        r[i] = static_cast<R>(f(a[i], b[0]));
      return absl::OkStatus();
    }
    if (aScalar && bWhole) {
      for (int64_t i = 0; i < n; ++i)
        r[i] = static_cast<R>(f(a[0], b[i]));
      return absl::OkStatus();
    }
    int64_t i = 0;
    forEachIndex<2>(outShape, {aStrides, bStrides},
                    [&](const std::array<int64_t, 2> &o) {
                      r[i++] = static_cast<R>(f(a[o[0]], b[o[1]]));
                    });
    return absl::OkStatus();
  }

  absl::Status divide(const T *a, const T *b, const TensorView &out) {
    if constexpr (std::is_integral_v<T>) {
      bool byZero = false, overflow = false;
      (void)run<T>(a, b, out, [&](T x, T y) -> T {
        if (y == 0) {
          byZero = true;
          return 0;
        }
        if (std::is_signed_v<T> && y == static_cast<T>(-1) &&
            x == std::numeric_limits<T>::min()) {
          overflow = true;
          return x;
        }
        return static_cast<T>(x / y);
      });
      if (byZero)
        return absl::InvalidArgumentError(where + ": integer division by zero");
      if (overflow)
        return absl::InvalidArgumentError(
            where + ": integer division overflows (minimum / -1)");
      return absl::OkStatus();
    } else {
      return run<T>(a, b, out, [](T x, T y) { return x / y; });
    }
  }

  Op kind;
  Shape outShape, aStrides, bStrides;
  /// Set once: an operand read whole (row-major, the result's shape) or as
  /// one element.
  bool aWhole = false, bWhole = false, aScalar = false, bScalar = false;
};

/// Merges neighbouring axes that every shape treats alike (each operand
/// either has both at the result's size or both at 1), and drops axes of
/// size 1 in the result: [4, 4, 32, 32] - [4, 4, 32, 1] becomes [512, 32] -
/// [512, 1], a layout oneDNN's jit binary handles where the 4-D one fell to
/// its reference code (~100x slower). Keeps at least one axis.
void coalesceAxes(Shape &out, Shape &a, Shape &b) {
  Shape no, na, nb;
  auto kind = [&](const Shape &s, size_t i) { return s[i] == out[i]; };
  for (size_t i = 0; i < out.size(); ++i) {
    if (out[i] == 1)
      continue;
    if (!no.empty() && kind(a, i) == (na.back() == no.back()) &&
        kind(b, i) == (nb.back() == no.back())) {
      no.back() *= out[i];
      na.back() *= a[i];
      nb.back() *= b[i];
      continue;
    }
    no.push_back(out[i]);
    na.push_back(a[i]);
    nb.push_back(b[i]);
  }
  if (no.empty())
    no = na = nb = Shape{1};
  out = no;
  a = na;
  b = nb;
}

} // namespace

absl::StatusOr<Shape> cpu::readBinaryShape(const OpDesc &op,
                                           const OpInfo &info) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &a = op.inputs[0], &b = op.inputs[1];
  if (a.dtype != b.dtype)
    return opError(op, "operands have different element types " + a.str() +
                           " and " + b.str());
  std::optional<Shape> shape = broadcastShapes({a.shape, b.shape});
  if (!shape)
    return opError(op, "cannot broadcast shapes " + shapeStr(a.shape) +
                           " and " + shapeStr(b.shape));
  if (isLogical(info.op) && a.dtype != DType::Bool)
    return opError(op, "needs i1 operands, got " + a.str());
  if (info.op == Op::GeluGrad && !isFloat(a.dtype))
    return opError(op, "needs floating-point operands, got " + a.str());
  DType resultType = info.comparison ? DType::Bool : a.dtype;
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {resultType, *shape}));
  if (a.dtype == DType::Bool && !info.comparison && info.op != Op::Max &&
      info.op != Op::Min && numel(*shape) != 0)
    return opError(op, "has no arithmetic on i1 operands");
  return *shape;
}

namespace {

KernelOr createBinary(const OpDesc &op, const OpInfo &info) {
  absl::StatusOr<Shape> shape = readBinaryShape(op, info);
  if (!shape.ok())
    return shape.status();
  const TensorDesc &a = op.inputs[0];
  if (numel(*shape) == 0)
    return std::make_unique<NoopKernel>(op);

  bool dnnlFloat =
      a.dtype == DType::F32 || a.dtype == DType::BF16 || a.dtype == DType::F16;
  if (info.op == Op::GeluGrad && dnnlFloat && a.shape == op.inputs[1].shape)
    return std::make_unique<DnnlBackwardKernel>(
        op, Shape{a.numel()}, *dnnlType(a.dtype), DNNL_ARG_SRC, geluBackward);
  // oneDNN 2.x compares into u8 with its reference code (26 ms for 1M
  // elements): f32 comparisons run the plain loops instead.
  bool plainCompare = info.comparison && a.dtype == DType::F32;
  if (dnnlFloat && dnnlAlgorithm(info.op) != algorithm::undef &&
      !plainCompare) {
    size_t rank = std::max<size_t>(shape->size(), 1);
    OFRT_RETURN_IF_ERROR(checkDnnlRank(op, rank));
    Shape out = padShape(*shape, rank);
    Shape pa = padShape(a.shape, rank), pb = padShape(op.inputs[1].shape, rank);
    coalesceAxes(out, pa, pb);
    algorithm alg = dnnlAlgorithm(info.op);
    // oneDNN broadcasts src1 on its fast paths; src0 broadcasting falls back
    // to its reference code (~300x slower). Swap the operands when the op
    // allows it, otherwise broadcast src0 into a buffer first.
    bool swap = pa != out && pb == out && swapped(alg) != algorithm::undef;
    if (swap) {
      std::swap(pa, pb);
      alg = swapped(alg);
    }
    bool expand = pa != out;
    dt type = *dnnlType(a.dtype);
    auto kernel = std::make_unique<DnnlBinaryKernel>(
        op, alg, plainDesc(out, type), plainDesc(pb, type),
        plainDesc(out, info.comparison ? dt::u8 : type), swap);
    if (expand)
      kernel->expandLhs(pa, out, dtypeSize(a.dtype));
    return kernel;
  }

  std::unique_ptr<Kernel> kernel;
  bool known = visitPlainType(a.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = std::make_unique<PlainBinaryKernel<T>>(op, info.op, *shape);
  });
  if (!known)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(a.dtype));
  return kernel;
}

} // namespace

void cpu::registerBinaryKernels(KernelRegistry &registry) {
  for (const OpInfo &info : kOps)
    addKernel(registry, std::string("oneflow.") + info.name,
              [&info](const OpDesc &op) { return createBinary(op, info); });
}
