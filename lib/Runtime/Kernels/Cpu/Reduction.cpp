//===- Reduction.cpp - reduce_sum/mean/max/sum_square, arg_max, arg_min --===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's reduction for f32 (bf16), on a [kept, reduced] view (see
// DnnlReduceKernel). Integer and f64 tensors use a plain loop (integer mean
// truncates toward zero). A reduction that shrinks no axis is a copy; one
// over no elements gives 0 (sum), NaN (mean) or -inf / the lowest value
// (max).
//
// reduce_sum_square of f32 is BLAS's dot product of each row of the
// [kept, reduced] view with itself (oneDNN 2.6's reduction by |x|^2 is its
// reference code: 92 ms a step for the cpu-medium GPT's 53 gradients, 1.4
// ms this way); f64 the same where the reduced axes trail, else a plain
// loop; bf16 oneDNN's square, then its sum. Over no axis it is the squares.
//
// An f32 sum or mean over the leading axes (the bias and layer-norm
// gradients: [tokens, features] summed over tokens), or over a few trailing
// elements per row, is a matrix-vector product with ones through oneDNN's
// matmul (DnnlMatvecReduceKernel): one pass over x, without the transpose
// oneDNN's reduction needs for leading axes (a GPT step spent 27 ms on
// reduce_sum, mostly in those transposes, on AVX2).
//
// On several ranks a mean over a split axis has a `divisor`: the logical
// element count. Each rank then sums its piece and divides by the divisor,
// so that the partial results add up to the logical mean.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "Kernels/Common/ElementwiseFunctions.h"
#include "ofrt/KernelParams.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;

namespace {

enum class Kind { Sum, Mean, Max, SumSquare };

template <typename T> bool isNaN(T v) {
  if constexpr (std::is_floating_point_v<T>)
    return std::isnan(v);
  else
    return false;
}

/// The operand as [kept, reduced] in 2-D: itself when the reduced axes
/// (size-1 axes aside) already trail, else a copy by oneDNN's reorder that
/// moves them last. The kept axes keep their order, so a [kept] result is
/// the row-major result as it is.
class ReducedLast {
public:
  /// With a reorder of `type` where the reduced axes do not trail.
  ReducedLast(const Shape &shape, const std::vector<bool> &reduced, dt type)
      : ReducedLast(shape, reduced) {
    if (inOrder)
      return;
    from = stridedDesc(dims, strides, type);
    to = plainDesc(dims, type);
    transpose = dnnl::reorder(dnnl::reorder::primitive_desc(
        cpuEngine(), from, cpuEngine(), to, scratchpadAttr()));
    scratch.resize(to.get_size());
  }
  /// Where the reduced axes trail (`trails`): no copy.
  ReducedLast(const Shape &shape, const std::vector<bool> &reduced) {
    Shape inStrides = rowMajorStrides(shape);
    for (bool pickReduced : {false, true})
      for (size_t i = 0; i < shape.size(); ++i) {
        if (reduced[i] != pickReduced)
          continue;
        dims.push_back(shape[i]);
        strides.push_back(inStrides[i]);
        (pickReduced ? folded : kept) *= shape[i];
      }
    inOrder = trails(shape, reduced);
  }

  /// Whether the reduced axes (size-1 axes aside) all trail.
  static bool trails(const Shape &shape, const std::vector<bool> &reduced) {
    bool seenReduced = false;
    for (size_t i = 0; i < shape.size(); ++i) {
      if (shape[i] == 1)
        continue;
      if (!reduced[i] && seenReduced)
        return false;
      seenReduced |= reduced[i];
    }
    return true;
  }

  /// `x` arranged as [kept, reduced].
  absl::StatusOr<const void *> arrange(const std::string &where,
                                       const void *x) {
    if (scratch.empty())
      return x;
    OFRT_RETURN_IF_ERROR(
        execute(where, transpose,
                args(DNNL_ARG_FROM, from, x)(DNNL_ARG_TO, to, scratch.data())));
    return static_cast<const void *>(scratch.data());
  }

  int64_t kept = 1, folded = 1;

private:
  Shape dims, strides; ///< The operand's, kept axes first.
  bool inOrder = true;
  DnnlArgs args;
  MemDesc from, to;
  dnnl::reorder transpose;
  std::vector<uint8_t> scratch;
};

/// oneDNN 2.6 has a JIT reduction only over the innermost axes (others run
/// its reference code, ~200x slower): it reduces the [kept, reduced] view.
class DnnlReduceKernel : public CpuKernel {
public:
  DnnlReduceKernel(const OpDesc &op, algorithm alg, dt type,
                   const std::vector<bool> &reduced)
      : CpuKernel(op), view(op.inputs[0].shape, reduced, type) {
    src = plainDesc({view.kept, view.folded}, type);
    dst = plainDesc({view.kept, 1}, type);
    dnnl::reduction::primitive_desc pd(
        dnnl::reduction::desc(alg, src, dst, 0.f, 0.f), scratchpadAttr(),
        cpuEngine());
    prim = dnnl::reduction(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    absl::StatusOr<const void *> x = view.arrange(where, in[0].data);
    if (!x.ok())
      return x.status();
    return execute(where, prim,
                   args(DNNL_ARG_SRC, src, *x)(DNNL_ARG_DST, dst, out[0].data));
  }

private:
  ReducedLast view;
  DnnlArgs args;
  MemDesc src, dst;
  dnnl::reduction prim;
};

/// x seen as [rows, cols] (row-major); the sum (times `scale`) over rows
/// (`overRows`: y has cols values) or over cols (y has rows values), as
/// oneDNN's matmul of a row of ones times x or x times a column of ones, the
/// mean's scale a post-op. No transpose, where oneDNN's reduction over
/// leading axes needs one: [128, 256] summed over rows takes 2.7 us this
/// way against 79 us (AVX-512) and 3.1 us against OpenBLAS's sgemv's 11.6 us
/// (AVX2).
class DnnlMatvecReduceKernel : public CpuKernel {
public:
  DnnlMatvecReduceKernel(const OpDesc &op, int64_t rows, int64_t cols,
                         bool overRows, float scale)
      : CpuKernel(op), ones(overRows ? rows : cols, 1.0f) {
    MemDesc x = plainDesc({rows, cols}, dt::f32);
    MemDesc vector =
        plainDesc(overRows ? Shape{1, rows} : Shape{cols, 1}, dt::f32);
    aDesc = overRows ? vector : x;
    bDesc = overRows ? x : vector;
    cDesc = plainDesc(overRows ? Shape{1, cols} : Shape{rows, 1}, dt::f32);
    xIsA = !overRows;
    dnnl::primitive_attr attr = scratchpadAttr();
    if (scale != 1.0f) {
      dnnl::post_ops scaled;
      scaled.append_eltwise(1.0f, algorithm::eltwise_linear, scale, 0.0f);
      attr.set_post_ops(scaled);
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(aDesc, bDesc, cDesc),
                                    attr, cpuEngine());
    prim = dnnl::matmul(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const void *x = in[0].data, *v = ones.data();
    return execute(where, prim,
                   args(DNNL_ARG_SRC, aDesc, xIsA ? x : v)(
                       DNNL_ARG_WEIGHTS, bDesc, xIsA ? v : x)(
                       DNNL_ARG_DST, cDesc, out[0].data));
  }

private:
  std::vector<float> ones;
  MemDesc aDesc, bDesc, cDesc;
  bool xIsA = false;
  dnnl::matmul prim;
  DnnlArgs args;
};

/// The matrix-vector form of an f32 sum or mean, where it applies: the
/// reduced axes (size-1 axes aside) all lead, or all trail with few
/// elements per row (oneDNN's JIT reduction is slow on short rows: a layer
/// norm's gradient sums rows of its width).
std::unique_ptr<Kernel> matvecReduce(const OpDesc &op, Kind kind,
                                     const std::vector<bool> &reduced) {
  const TensorDesc &x = op.inputs[0];
  if (x.dtype != DType::F32 || kind == Kind::Max || kind == Kind::SumSquare)
    return nullptr;
  // Which of the axes that are not 1 are reduced, in order.
  std::vector<bool> pattern;
  int64_t folded = 1, kept = 1;
  for (int64_t i = 0; i < x.rank(); ++i) {
    if (x.shape[i] == 1)
      continue;
    pattern.push_back(reduced[i]);
    (reduced[i] ? folded : kept) *= x.shape[i];
  }
  bool leading = std::is_partitioned(pattern.begin(), pattern.end(),
                                     [](bool r) { return r; });
  bool trailing = std::is_partitioned(pattern.begin(), pattern.end(),
                                      [](bool r) { return !r; });
  // Rows of 64 sum 5x faster as a product (4.2 us against 24 for [128, 64],
  // either ISA); rows of 2048 about as fast either way (AVX2 prefers the
  // product, AVX-512 the reduction).
  constexpr int64_t kShortRow = 1024;
  if (kept == 1 || std::max(folded, kept) > INT_MAX ||
      !(leading || (trailing && folded < kShortRow)))
    return nullptr;
  float scale = kind == Kind::Mean ? 1.0f / float(folded) : 1.0f;
  int64_t rows = leading ? folded : kept, cols = leading ? kept : folded;
  return std::make_unique<DnnlMatvecReduceKernel>(op, rows, cols, leading,
                                                  scale);
}

template <typename T> class PlainReduceKernel : public CpuKernel {
public:
  PlainReduceKernel(const OpDesc &op, Kind kind, const Shape &kept)
      : CpuKernel(op), kind(kind), inShape(op.inputs[0].shape),
        inStrides(rowMajorStrides(inShape)),
        outStrides(broadcastStrides(kept, inShape)),
        count(numel(inShape) / std::max<int64_t>(numel(kept), 1)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *x = in[0].as<T>();
    T *y = out[0].as<T>();
    int64_t n = out[0].desc.numel();
    if constexpr (std::is_floating_point_v<T>) {
      T init = kind == Kind::Max ? -std::numeric_limits<T>::infinity() : T(0);
      std::fill_n(y, n, init);
    } else {
      std::fill_n(y, n,
                  kind == Kind::Max ? std::numeric_limits<T>::lowest() : T(0));
    }
    forEachIndex<2>(
        inShape, {inStrides, outStrides}, [&](const std::array<int64_t, 2> &o) {
          T v = x[o[0]];
          T &acc = y[o[1]];
          if (kind == Kind::Max)
            acc = (v > acc || isNaN(v)) ? v : acc;
          else if (kind == Kind::SumSquare)
            acc += v * v; // float types only (the op's operand)
          else if constexpr (std::is_integral_v<T>)
            acc = static_cast<T>(static_cast<std::make_unsigned_t<T>>(acc) +
                                 static_cast<std::make_unsigned_t<T>>(v));
          else
            acc += v;
        });
    if (kind == Kind::Mean) {
      for (int64_t i = 0; i < n; ++i) {
        if constexpr (std::is_floating_point_v<T>)
          y[i] = count ? y[i] / T(count) : std::numeric_limits<T>::quiet_NaN();
        else
          y[i] =
              count ? static_cast<T>(static_cast<int64_t>(y[i]) / count) : T(0);
      }
    }
    return absl::OkStatus();
  }

private:
  Kind kind;
  Shape inShape, inStrides, outStrides;
  int64_t count;
};

/// y[r] = the dot product of row r of x as [rows, cols] (`view`: x or its
/// copy with the reduced axes last) with itself (BLAS's, in pieces of at
/// most INT_MAX elements).
template <typename T> class DotSquaresKernel : public CpuKernel {
public:
  DotSquaresKernel(const OpDesc &op, ReducedLast view)
      : CpuKernel(op), view(std::move(view)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    absl::StatusOr<const void *> arranged = view.arrange(where, in[0].data);
    if (!arranged.ok())
      return arranged.status();
    const T *x = static_cast<const T *>(*arranged);
    T *y = out[0].as<T>();
    int64_t cols = view.folded;
    for (int64_t r = 0; r < view.kept; ++r) {
      T sum = 0;
      for (int64_t begin = 0; begin < cols; begin += INT_MAX) {
        int n = static_cast<int>(std::min<int64_t>(INT_MAX, cols - begin));
        const T *piece = x + r * cols + begin;
        if constexpr (std::is_same_v<T, float>)
          sum += cblas_sdot(n, piece, 1, piece, 1);
        else
          sum += cblas_ddot(n, piece, 1, piece, 1);
      }
      y[r] = sum;
    }
    return absl::OkStatus();
  }

private:
  ReducedLast view;
};

/// bf16: oneDNN's square into a buffer of the kernel's, then its sum.
class SquareThenSumKernel : public CpuKernel {
public:
  SquareThenSumKernel(const OpDesc &op, const std::vector<bool> &reduced)
      : CpuKernel(op), square(op, algorithm::eltwise_square, 0.f, 0.f,
                              plainDesc({op.inputs[0].numel()}, dt::bf16)),
        sum(op, algorithm::reduction_sum, dt::bf16, reduced),
        squares(op.inputs[0].numel() * sizeof(uint16_t)) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    std::vector<TensorView> buffer = {{squares.data(), in[0].desc}};
    OFRT_RETURN_IF_ERROR(square.compute(context, in, buffer));
    return sum.compute(context, buffer, out);
  }

private:
  DnnlEltwiseKernel square;
  DnnlReduceKernel sum;
  std::vector<uint8_t> squares;
};

/// reduce_sum_square's kernel where it has its own (see the file's
/// comment); nullptr where the plain loop runs.
std::unique_ptr<Kernel> sumSquareKernel(const OpDesc &op,
                                        const std::vector<bool> &reduced,
                                        bool shrinks) {
  const TensorDesc &x = op.inputs[0];
  bool dnnlFloat = x.dtype == DType::F32 || x.dtype == DType::BF16;
  if (x.numel() == 0)
    return nullptr;
  if (!shrinks && dnnlFloat)
    return std::make_unique<DnnlEltwiseKernel>(
        op, algorithm::eltwise_square, 0.f, 0.f,
        plainDesc({x.numel()}, *dnnlType(x.dtype)));
  if (x.dtype == DType::BF16)
    return std::make_unique<SquareThenSumKernel>(op, reduced);
  if (x.dtype == DType::F32) // reordered first where the reduced axes lead
    return std::make_unique<DotSquaresKernel<float>>(
        op, ReducedLast(x.shape, reduced, dt::f32));
  if (x.dtype != DType::F64)
    return nullptr;
  // f64 (oneDNN has no f64 reorder): where the reduced axes trail.
  if (!ReducedLast::trails(x.shape, reduced))
    return nullptr;
  return std::make_unique<DotSquaresKernel<double>>(
      op, ReducedLast(x.shape, reduced));
}

/// reduce_sum, reduce_mean, reduce_max or reduce_sum_square (`Params`) on
/// the piece.
template <typename Params>
KernelOr createLocalReduce(const OpDesc &op, Kind kind) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, Params, op);
  const std::vector<int64_t> &axes = declared.axes;
  bool keepdims = declared.keepdims;
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t axisAttr : axes) {
    int64_t axis;
    OFRT_RETURN_IF_ERROR(
        normalizeAxis(op, "reduction axis", axisAttr, x.rank(), axis));
    if (reduced[axis])
      return opError(op, "reduction axis " + std::to_string(axisAttr) +
                             " is listed twice");
    reduced[axis] = true;
  }
  Shape kept, outShape;
  bool shrinks = false;
  for (int64_t i = 0; i < x.rank(); ++i) {
    kept.push_back(reduced[i] ? 1 : x.shape[i]);
    if (!reduced[i])
      outShape.push_back(x.shape[i]);
    else if (keepdims)
      outShape.push_back(1);
    shrinks |= reduced[i] && x.shape[i] != 1;
  }
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, {x.dtype, outShape}));
  if (x.dtype == DType::Bool)
    return opError(op, "has no reduction of i1 tensors");
  if (numel(outShape) == 0)
    return std::make_unique<NoopKernel>(op);
  if (kind == Kind::SumSquare) {
    if (!isFloat(x.dtype))
      return opError(op, std::string("has no sum of squares of ") +
                             dtypeName(x.dtype) + " tensors");
    if (std::unique_ptr<Kernel> squares = sumSquareKernel(op, reduced, shrinks))
      return squares;
  } else if (!shrinks) {
    return std::make_unique<CopyKernel>(op);
  }
  bool dnnlFloat = x.dtype == DType::F32 || x.dtype == DType::BF16;
  if (dnnlFloat && x.numel() != 0 && kind != Kind::SumSquare) {
    if (std::unique_ptr<Kernel> matvec = matvecReduce(op, kind, reduced))
      return matvec;
    OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank()));
    algorithm alg = kind == Kind::Sum    ? algorithm::reduction_sum
                    : kind == Kind::Mean ? algorithm::reduction_mean
                                         : algorithm::reduction_max;
    return std::make_unique<DnnlReduceKernel>(op, alg, *dnnlType(x.dtype),
                                              reduced);
  }
  std::unique_ptr<Kernel> kernel;
  bool known = visitPlainType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = std::make_unique<PlainReduceKernel<T>>(op, kind, kept);
  });
  if (!known)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype));
  return kernel;
}

/// A sum followed by a division by the logical element count (`divisor`).
class DividedSumKernel : public CpuKernel {
public:
  DividedSumKernel(const OpDesc &op, std::unique_ptr<Kernel> sum,
                   int64_t divisor)
      : CpuKernel(op), sum(std::move(sum)), divisor(divisor) {}

  absl::Status compute(const KernelContext &context,
                       const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    OFRT_RETURN_IF_ERROR(sum->compute(context, in, out));
    int64_t n = out[0].desc.numel();
    visitPlainType(out[0].desc.dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T *y = out[0].as<T>();
      for (int64_t i = 0; i < n; ++i)
        if constexpr (std::is_integral_v<T>)
          y[i] = static_cast<T>(static_cast<int64_t>(y[i]) / divisor);
        else
          y[i] = static_cast<T>(y[i] / static_cast<T>(divisor));
    });
    return absl::OkStatus();
  }

private:
  std::unique_ptr<Kernel> sum;
  int64_t divisor;
};

template <typename Params> KernelOr createReduce(const OpDesc &op, Kind kind) {
  const MeanDivisor *split = op.layoutAs<MeanDivisor>();
  if (kind != Kind::Mean || !split)
    return createLocalReduce<Params>(op, kind);
  int64_t divisor = split->divisor;
  if (divisor < 1)
    return opError(op, "divisor " + std::to_string(divisor) +
                           " is not positive");
  DType dtype = op.inputs.empty() ? DType::F32 : op.inputs[0].dtype;
  if (dtype == DType::F16 || dtype == DType::BF16)
    return opError(op, std::string("has no divided mean of ") +
                           dtypeName(dtype) + " tensors");
  KernelOr sum = createLocalReduce<Params>(op, Kind::Sum);
  if (!sum.ok())
    return sum;
  return std::make_unique<DividedSumKernel>(op, std::move(*sum), divisor);
}

/// arg_max and arg_min: for each (outer, inner) position, the index along
/// the axis of the extreme element (the first among equals, or the last
/// with select_last_index).
template <typename T> class ArgReduceKernel : public CpuKernel {
public:
  ArgReduceKernel(const OpDesc &op, bool max, bool last, int64_t outer,
                  int64_t length, int64_t inner)
      : CpuKernel(op), max(max), last(last), outer(outer), length(length),
        inner(inner) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *x = in[0].as<T>();
    int64_t *y = out[0].as<int64_t>();
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const T *row = x + o * length * inner + i;
        y[o * inner + i] =
            elementwise::argReduceRow(row, length, inner, max, last);
      }
    return absl::OkStatus();
  }

private:
  bool max, last;
  int64_t outer, length, inner;
};

/// arg_max or arg_min (`Params`).
template <typename Params>
KernelOr createArgReduce(const OpDesc &op, bool max) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, Params, op);
  int64_t axis = declared.axis;
  int64_t rank = x.rank();
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return opError(op, "axis " + std::to_string(axis) + " is outside rank " +
                           std::to_string(rank));
  if (axis < 0)
    axis += rank;
  if (op.outputs.size() != 1 || op.outputs[0].dtype != DType::I64 ||
      op.outputs[0].numel() * (rank ? x.shape[axis] : 1) != x.numel())
    return opError(op, "result is not an i64 tensor of the input's shape "
                       "without its axis");
  if (x.numel() == 0)
    return std::make_unique<NoopKernel>(op);
  int64_t outer = 1, inner = 1, length = rank ? x.shape[axis] : 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= x.shape[d];
  for (int64_t d = axis + 1; d < rank; ++d)
    inner *= x.shape[d];
  bool last = declared.select_last_index;
  std::unique_ptr<Kernel> kernel;
  bool known = x.dtype != DType::Bool && visitPlainType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = std::make_unique<ArgReduceKernel<T>>(op, max, last, outer, length,
                                                  inner);
  });
  if (!known)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype));
  return kernel;
}

} // namespace

void cpu::registerReductionKernels(KernelRegistry &registry) {
  addKernel(registry, params::ArgMaxOp::kOpName, [](const OpDesc &op) {
    return createArgReduce<params::ArgMaxOp>(op, true);
  });
  addKernel(registry, params::ArgMinOp::kOpName, [](const OpDesc &op) {
    return createArgReduce<params::ArgMinOp>(op, false);
  });
  addKernel(registry, params::ReduceSumOp::kOpName, [](const OpDesc &op) {
    return createReduce<params::ReduceSumOp>(op, Kind::Sum);
  });
  addKernel(registry, params::ReduceMeanOp::kOpName, [](const OpDesc &op) {
    return createReduce<params::ReduceMeanOp>(op, Kind::Mean);
  });
  addKernel(registry, params::ReduceMaxOp::kOpName, [](const OpDesc &op) {
    return createReduce<params::ReduceMaxOp>(op, Kind::Max);
  });
  addKernel(registry, params::ReduceSumSquareOp::kOpName, [](const OpDesc &op) {
    return createReduce<params::ReduceSumSquareOp>(op, Kind::SumSquare);
  });
}
