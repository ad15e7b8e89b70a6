//===- Softmax.cpp - softmax, log_softmax, sparse_softmax_cross_entropy ---===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// oneDNN's softmax_v2 (softmax_accurate, softmax_log) for f32 (bf16, f16);
// plain loops for f64, which oneDNN 2.6 has no type for. The cross entropy
// takes the probabilities from softmax_accurate and the loss, -log p[label],
// from softmax_log (no log of an underflowed probability); picking the
// label's entry is plain code, and labels outside [0, C) are an error.
// softmax_grad is plain loops for f32 and f64 (oneDNN's backward is its
// reference implementation below AVX-512), oneDNN's softmax backward for
// bf16 and f16 (in f32 between reorders where it has no primitive).
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "ofrt/KernelParams.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;

namespace {

/// Softmax (or log-softmax) of a [outer, n, inner] row-major tensor along n.
template <typename T>
void plainSoftmax(const T *x, T *y, int64_t outer, int64_t n, int64_t inner,
                  bool log) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      const T *xs = x + o * n * inner + i;
      T *ys = y + o * n * inner + i;
      T max = -std::numeric_limits<T>::infinity();
      for (int64_t j = 0; j < n; ++j)
        max = std::max(max, xs[j * inner]);
      T sum = 0;
      for (int64_t j = 0; j < n; ++j)
        sum += std::exp(xs[j * inner] - max);
      T logSum = std::log(sum);
      for (int64_t j = 0; j < n; ++j)
        ys[j * inner] = log ? xs[j * inner] - max - logSum
                            : std::exp(xs[j * inner] - max) / sum;
    }
}

dnnl::softmax_v2_forward makeSoftmax(const MemDesc &desc, int axis, bool log) {
  dnnl::softmax_v2_forward::primitive_desc pd(
      dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_inference,
                                     log ? algorithm::softmax_log
                                         : algorithm::softmax_accurate,
                                     desc, desc, axis),
      scratchpadAttr(), cpuEngine());
  return dnnl::softmax_v2_forward(pd);
}

class DnnlSoftmaxKernel : public CpuKernel {
public:
  DnnlSoftmaxKernel(const OpDesc &op, MemDesc desc, int axis, bool log)
      : CpuKernel(op), desc(desc), prim(makeSoftmax(desc, axis, log)) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    return execute(where, prim,
                   args(DNNL_ARG_SRC, desc, in[0].data)(DNNL_ARG_DST, desc,
                                                        out[0].data));
  }

private:
  DnnlArgs args;
  MemDesc desc;
  dnnl::softmax_v2_forward prim;
};

/// A tensor of `shape` seen as [outer, n, inner] along `axis`.
struct AlongAxis {
  AlongAxis(const Shape &shape, int64_t axis)
      : outer(numel(Shape(shape.begin(), shape.begin() + axis))),
        n(shape[axis]), inner(numel(Shape(shape.begin() + axis + 1,
                                          shape.end()))) {}
  int64_t outer, n, inner;
};

class PlainSoftmaxKernel : public CpuKernel, AlongAxis {
public:
  PlainSoftmaxKernel(const OpDesc &op, int64_t axis, bool log)
      : CpuKernel(op), AlongAxis(op.inputs[0].shape, axis), log(log) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    plainSoftmax(in[0].as<double>(), out[0].as<double>(), outer, n, inner, log);
    return absl::OkStatus();
  }

private:
  bool log;
};

bool isDnnlFloat(DType t) {
  return t == DType::F32 || t == DType::BF16 || t == DType::F16;
}

/// softmax or log_softmax (`Params`).
template <typename Params> KernelOr createSoftmax(const OpDesc &op, bool log) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  OFRT_READ_PARAMS(declared, Params, op);
  int64_t axis = 0;
  OFRT_RETURN_IF_ERROR(
      normalizeAxis(op, "axis", declared.axis, x.rank(), axis));
  if (!isFloat(x.dtype))
    return opError(op, "needs a floating-point operand, got " + x.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  if (x.numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (x.dtype == DType::F64)
    return std::make_unique<PlainSoftmaxKernel>(op, axis, log);
  OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank()));
  return std::make_unique<DnnlSoftmaxKernel>(
      op, plainDesc(x.shape, *dnnlType(x.dtype)), axis, log);
}

/// Checks every label against [0, classes).
template <typename L>
absl::Status checkLabels(const std::string &where, const L *labels, int64_t n,
                         int64_t classes) {
  for (int64_t i = 0; i < n; ++i)
    if (labels[i] < 0 || labels[i] >= classes)
      return absl::OutOfRangeError(where + ": label " +
                                   std::to_string(labels[i]) + " at position " +
                                   std::to_string(i) + " is outside [0, " +
                                   std::to_string(classes) + ")");
  return absl::OkStatus();
}

template <typename L, typename T>
void pickLoss(const L *labels, const T *logProb, T *loss, int64_t n,
              int64_t classes) {
  for (int64_t i = 0; i < n; ++i)
    loss[i] = -logProb[i * classes + labels[i]];
}

class CrossEntropyKernel : public CpuKernel {
public:
  CrossEntropyKernel(const OpDesc &op, int64_t rows, int64_t classes)
      : CpuKernel(op), rows(rows), classes(classes), type(op.inputs[0].dtype),
        labelType(op.inputs[1].dtype) {
    if (type != DType::F64) {
      desc = plainDesc({rows, classes}, *dnnlType(type));
      softmax = makeSoftmax(desc, 1, false);
      logSoftmax = makeSoftmax(desc, 1, true);
    }
    scratch.resize(op.inputs[0].bytes());
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    absl::Status status =
        labelType == DType::I32
            ? checkLabels(where, in[1].as<int32_t>(), rows, classes)
            : checkLabels(where, in[1].as<int64_t>(), rows, classes);
    OFRT_RETURN_IF_ERROR(status);
    if (type == DType::F64) {
      const double *x = in[0].as<double>();
      plainSoftmax(x, out[0].as<double>(), rows, classes, 1, false);
      plainSoftmax(x, reinterpret_cast<double *>(scratch.data()), rows, classes,
                   1, true);
      pick(in[1], reinterpret_cast<double *>(scratch.data()),
           out[1].as<double>());
      return absl::OkStatus();
    }
    OFRT_RETURN_IF_ERROR(execute(where, softmax,
                                 {{DNNL_ARG_SRC, wrap(desc, in[0].data)},
                                  {DNNL_ARG_DST, wrap(desc, out[0].data)}}));
    OFRT_RETURN_IF_ERROR(execute(where, logSoftmax,
                                 {{DNNL_ARG_SRC, wrap(desc, in[0].data)},
                                  {DNNL_ARG_DST, wrap(desc, scratch.data())}}));
    if (type == DType::F32) {
      pick(in[1], reinterpret_cast<float *>(scratch.data()),
           out[1].as<float>());
      return absl::OkStatus();
    }
    // bf16/f16: gather the log-probabilities as raw 16-bit words.
    pick(in[1], reinterpret_cast<uint16_t *>(scratch.data()),
         out[1].as<uint16_t>(), /*negate=*/false);
    // Negate by flipping the sign bit (same place in bf16 and f16).
    uint16_t *loss = out[1].as<uint16_t>();
    for (int64_t i = 0; i < rows; ++i)
      loss[i] ^= 0x8000;
    return absl::OkStatus();
  }

private:
  template <typename T>
  void pick(const TensorView &labels, const T *logProb, T *loss,
            bool negate = true) {
    if (!negate) {
      for (int64_t i = 0; i < rows; ++i) {
        int64_t label = labelType == DType::I32 ? labels.as<int32_t>()[i]
                                                : labels.as<int64_t>()[i];
        loss[i] = logProb[i * classes + label];
      }
      return;
    }
    if (labelType == DType::I32)
      pickLoss(labels.as<int32_t>(), logProb, loss, rows, classes);
    else
      pickLoss(labels.as<int64_t>(), logProb, loss, rows, classes);
  }

  int64_t rows, classes;
  DType type, labelType;
  MemDesc desc;
  dnnl::softmax_v2_forward softmax, logSoftmax;
  std::vector<uint8_t> scratch;
};

KernelOr createCrossEntropy(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 2));
  const TensorDesc &logits = op.inputs[0], &labels = op.inputs[1];
  if (!isFloat(logits.dtype))
    return opError(op, "logits must be floating-point, got " + logits.str());
  if (labels.dtype != DType::I32 && labels.dtype != DType::I64)
    return opError(op, "labels must be i32 or i64, got " + labels.str());
  if (logits.rank() < 1 ||
      labels.shape != Shape(logits.shape.begin(), logits.shape.end() - 1))
    return opError(op, "labels " + labels.str() +
                           " do not match the batch axes of logits " +
                           logits.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, logits));
  OFRT_RETURN_IF_ERROR(checkResult(op, 1, {logits.dtype, labels.shape}));
  if (logits.dtype != DType::F64 && !isDnnlFloat(logits.dtype))
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(logits.dtype));
  int64_t classes = logits.shape.back();
  int64_t rows = labels.numel();
  if (rows == 0)
    return std::make_unique<NoopKernel>(op);
  if (classes == 0)
    return opError(op, "has no classes (logits " + logits.str() + ")");
  return std::make_unique<CrossEntropyKernel>(op, rows, classes);
}

/// softmax_grad of f32 or f64 y and dy, [outer, n, inner] along n:
/// y (dy - sum(dy y)), rows on the calling thread's OpenMP threads. Plain
/// loops: oneDNN 2.6's softmax backward is its reference implementation
/// below AVX-512 (ten times slower than this loop under AVX2).
template <typename T>
class PlainSoftmaxGradKernel : public CpuKernel, AlongAxis {
public:
  PlainSoftmaxGradKernel(const OpDesc &op, int64_t axis)
      : CpuKernel(op), AlongAxis(op.inputs[0].shape, axis) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *y = in[0].as<T>(), *dy = in[1].as<T>();
    T *dx = out[0].as<T>();
    int64_t rows = outer * inner;
#pragma omp parallel for schedule(static) if (rows * n > (1 << 16))
    for (int64_t row = 0; row < rows; ++row) {
      int64_t o = row / inner, i = row % inner;
      int64_t at = o * n * inner + i;
      if (inner == 1)
        contiguousRow(y + at, dy + at, dx + at);
      else
        stridedRow(y + at, dy + at, dx + at);
    }
    return absl::OkStatus();
  }

private:
  void contiguousRow(const T *y, const T *dy, T *dx) const {
    T dot = 0;
#pragma omp simd reduction(+ : dot)
    for (int64_t j = 0; j < n; ++j)
      dot += dy[j] * y[j];
#pragma omp simd
    for (int64_t j = 0; j < n; ++j)
      dx[j] = y[j] * (dy[j] - dot);
  }

  void stridedRow(const T *y, const T *dy, T *dx) const {
    T dot = 0;
    for (int64_t j = 0; j < n; ++j)
      dot += dy[j * inner] * y[j * inner];
    for (int64_t j = 0; j < n; ++j)
      dx[j * inner] = y[j * inner] * (dy[j * inner] - dot);
  }
};

KernelOr createSoftmaxGrad(const OpDesc &op) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 2, 1));
  const TensorDesc &y = op.inputs[0];
  OFRT_READ_PARAMS(declared, params::SoftmaxGradOp, op);
  int64_t axis = 0;
  OFRT_RETURN_IF_ERROR(
      normalizeAxis(op, "axis", declared.axis, y.rank(), axis));
  if (!isFloat(y.dtype))
    return opError(op, "needs a floating-point y, got " + y.str());
  if (op.inputs[1].dtype != y.dtype || op.inputs[1].shape != y.shape)
    return opError(op, "dy " + op.inputs[1].str() + " differs from y " +
                           y.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, y));
  if (y.numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (y.dtype == DType::F64)
    return std::make_unique<PlainSoftmaxGradKernel<double>>(op, axis);
  if (y.dtype == DType::F32)
    return std::make_unique<PlainSoftmaxGradKernel<float>>(op, axis);
  OFRT_RETURN_IF_ERROR(checkDnnlRank(op, y.rank()));
  int dnnlAxis = static_cast<int>(axis);
  return std::make_unique<DnnlBackwardKernel>(
      op, y.shape, *dnnlType(y.dtype), DNNL_ARG_DST,
      [dnnlAxis](const MemDesc &desc) -> dnnl::primitive {
        dnnl::softmax_v2_forward::primitive_desc hint(
            dnnl::softmax_v2_forward::desc(dnnl::prop_kind::forward_training,
                                           algorithm::softmax_accurate, desc,
                                           desc, dnnlAxis),
            cpuEngine());
        return dnnl::softmax_v2_backward(
            dnnl::softmax_v2_backward::primitive_desc(
                dnnl::softmax_v2_backward::desc(algorithm::softmax_accurate,
                                                desc, desc, desc, dnnlAxis),
                scratchpadAttr(), cpuEngine(), hint));
      });
}

} // namespace

void cpu::registerSoftmaxKernels(KernelRegistry &registry) {
  addKernel(registry, params::SoftmaxOp::kOpName, [](const OpDesc &op) {
    return createSoftmax<params::SoftmaxOp>(op, false);
  });
  addKernel(registry, params::LogSoftmaxOp::kOpName, [](const OpDesc &op) {
    return createSoftmax<params::LogSoftmaxOp>(op, true);
  });
  addKernel(registry, params::SparseSoftmaxCrossEntropyOp::kOpName,
            createCrossEntropy);
  addKernel(registry, params::SoftmaxGradOp::kOpName, createSoftmaxGrad);
}
