//===- Unary.cpp - Element-wise functions and scalar arithmetic -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// f32 (bf16, f16) runs on oneDNN's eltwise primitive: relu, gelu_erf, tanh,
// logistic, exp, log, sqrt, abs, soft_relu (softplus), pow (rsqrt is x^-0.5,
// reciprocal x^-1, scalar_pow x^s) and linear (neg, scalar_add/mul/div).
// leaky_relu is relu with its alpha, elu elu. erf, the trigonometric and
// hyperbolic functions and their inverses, floor, ceil, round, sign, selu
// and hard_sigmoid have no oneDNN algorithm: plain loops (bf16 and f16
// through f32), except erf, on glibc's vector math (VectorMath.h); f64 and integer tensors have no oneDNN type: plain loops. On
// integers the scalar ops use integer arithmetic when the scalar is integral,
// otherwise double arithmetic truncated toward zero.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"
#include "Kernels/Common/ElementwiseFunctions.h"
#include "OpParams.h"
#include "VectorMath.h"
#include "ofrt/KernelParams.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;
using namespace ofrt::elementwise;
using dnnl::algorithm;

namespace {

/// The oneDNN eltwise algorithm and its alpha, beta for `fn`, if any.
bool eltwiseFor(Fn fn, double s, double q, algorithm &alg, float &alpha,
                float &beta) {
  alpha = 0;
  beta = 0;
  switch (fn) {
  case Fn::Relu:
    alg = algorithm::eltwise_relu;
    return true;
  case Fn::Gelu:
    alg = algorithm::eltwise_gelu_erf;
    return true;
  case Fn::Tanh:
    alg = algorithm::eltwise_tanh;
    return true;
  case Fn::Sigmoid:
    alg = algorithm::eltwise_logistic;
    return true;
  case Fn::Exp:
    alg = algorithm::eltwise_exp;
    return true;
  case Fn::Log:
    alg = algorithm::eltwise_log;
    return true;
  case Fn::Sqrt:
    alg = algorithm::eltwise_sqrt;
    return true;
  case Fn::Rsqrt:
    alg = algorithm::eltwise_pow;
    alpha = 1;
    beta = -0.5f;
    return true;
  case Fn::Neg:
    alg = algorithm::eltwise_linear;
    alpha = -1;
    return true;
  case Fn::Abs:
    alg = algorithm::eltwise_abs;
    return true;
  case Fn::Reciprocal:
    alg = algorithm::eltwise_pow;
    alpha = 1;
    beta = -1;
    return true;
  case Fn::Softplus:
    alg = algorithm::eltwise_soft_relu;
    return true;
  case Fn::LeakyRelu:
    alg = algorithm::eltwise_relu; // alpha: the slope below 0.
    alpha = static_cast<float>(s);
    return true;
  case Fn::Elu:
    alg = algorithm::eltwise_elu;
    alpha = static_cast<float>(s);
    return true;
  case Fn::Selu:
  case Fn::HardSigmoid:
  case Fn::LogicalNot:
    (void)q;
    return false;
  // oneDNN has no sine, cosine, floor, ceiling or sign, and its round is
  // not ONNX's halves-to-even everywhere: plain code.
  case Fn::Erf:
  case Fn::Sin:
  case Fn::Cos:
  case Fn::Tan:
  case Fn::Asin:
  case Fn::Acos:
  case Fn::Atan:
  case Fn::Sinh:
  case Fn::Cosh:
  case Fn::Asinh:
  case Fn::Acosh:
  case Fn::Atanh:
  case Fn::Floor:
  case Fn::Ceil:
  case Fn::Round:
  case Fn::Sign:
    return false;
  case Fn::ScalarAdd:
    alg = algorithm::eltwise_linear;
    alpha = 1;
    beta = static_cast<float>(s);
    return true;
  case Fn::ScalarMul:
    alg = algorithm::eltwise_linear;
    alpha = static_cast<float>(s);
    return true;
  case Fn::ScalarDiv:
    alg = algorithm::eltwise_linear;
    alpha = static_cast<float>(1.0 / s);
    return true;
  case Fn::ScalarPow:
    alg = algorithm::eltwise_pow;
    alpha = 1;
    beta = static_cast<float>(s);
    return true;
  }
  return false;
}

template <typename T> class PlainUnaryKernel : public CpuKernel {
public:
  PlainUnaryKernel(const OpDesc &op, Fn fn, double scalar, double q)
      : CpuKernel(op), fn(fn), scalar(scalar), q(q),
        integral(std::nearbyint(scalar) == scalar &&
                 std::abs(scalar) < 9.2e18) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    const T *x = in[0].as<T>();
    T *y = out[0].as<T>();
    int64_t n = in[0].desc.numel();
    if constexpr (std::is_same_v<T, float>)
      if (fn == Fn::Erf) {
        vectorErf(x, y, n);
        return absl::OkStatus();
      }
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>)
        y[i] = floatFn<T>(fn, x[i], scalar, q);
      else
        y[i] = intFn<T>(fn, x[i], scalar, integral);
    }
    return absl::OkStatus();
  }

private:
  Fn fn;
  double scalar, q; ///< The scalar or first parameter, the second.
  bool integral;
};

/// bf16 and f16 for the functions oneDNN has no algorithm for: a reorder
/// to f32, the f32 function, a reorder back (the buffer is the kernel's).
class WidenedUnaryKernel : public CpuKernel {
public:
  WidenedUnaryKernel(const OpDesc &op, Fn fn, double scalar, double q,
                     dt narrowType)
      : CpuKernel(op), fn(fn), scalar(scalar), q(q),
        narrow(plainDesc({op.inputs[0].numel()}, narrowType)),
        wide(plainDesc({op.inputs[0].numel()}, dt::f32)),
        toWide(dnnl::reorder::primitive_desc(cpuEngine(), narrow, cpuEngine(),
                                             wide)),
        toNarrow(dnnl::reorder::primitive_desc(cpuEngine(), wide, cpuEngine(),
                                               narrow)),
        buffer(op.inputs[0].numel()) {}

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    OFRT_RETURN_IF_ERROR(execute(where, toWide,
                                 wideArgs(DNNL_ARG_FROM, narrow, in[0].data)(
                                     DNNL_ARG_TO, wide, buffer.data())));
    if (fn == Fn::Erf)
      vectorErf(buffer.data(), buffer.data(), int64_t(buffer.size()));
    else
      for (float &value : buffer)
        value = floatFn<float>(fn, value, scalar, q);
    return execute(where, toNarrow,
                   narrowArgs(DNNL_ARG_FROM, wide,
                              buffer.data())(DNNL_ARG_TO, narrow, out[0].data));
  }

private:
  Fn fn;
  double scalar, q;
  MemDesc narrow, wide;
  dnnl::reorder toWide, toNarrow;
  DnnlArgs wideArgs, narrowArgs;
  std::vector<float> buffer;
};

/// The `scalar` of scalar_add, scalar_mul, ... (`Params`).
template <typename Params>
absl::StatusOr<UnaryParams> readScalar(const OpDesc &op) {
  OFRT_READ_PARAMS(declared, Params, op);
  UnaryParams p;
  p.s = declared.scalar;
  return p;
}

/// The parameters of `fn`'s op, as its ODS declares them (s: alpha or the
/// scalar; q: selu's gamma, hard_sigmoid's beta).
absl::StatusOr<UnaryParams> readFnParams(const OpDesc &op, Fn fn) {
  UnaryParams p;
  switch (fn) {
  case Fn::LeakyRelu: {
    OFRT_READ_PARAMS(declared, params::LeakyReluOp, op);
    p.s = declared.alpha;
    break;
  }
  case Fn::Elu: {
    OFRT_READ_PARAMS(declared, params::EluOp, op);
    p.s = declared.alpha;
    break;
  }
  case Fn::Selu: {
    OFRT_READ_PARAMS(declared, params::SeluOp, op);
    p.s = declared.alpha;
    p.q = declared.gamma;
    break;
  }
  case Fn::HardSigmoid: {
    OFRT_READ_PARAMS(declared, params::HardSigmoidOp, op);
    p.s = declared.alpha;
    p.q = declared.beta;
    break;
  }
  case Fn::ScalarAdd:
    return readScalar<params::ScalarAddOp>(op);
  case Fn::ScalarMul:
    return readScalar<params::ScalarMulOp>(op);
  case Fn::ScalarDiv:
    return readScalar<params::ScalarDivOp>(op);
  case Fn::ScalarPow:
    return readScalar<params::ScalarPowOp>(op);
  default:
    break;
  }
  return p;
}

} // namespace

absl::StatusOr<UnaryParams> cpu::readUnaryParams(const OpDesc &op,
                                                 const FnInfo &info) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  absl::StatusOr<UnaryParams> params = readFnParams(op, info.fn);
  if (!params.ok())
    return params.status();
  if (info.floatOnly && !isFloat(x.dtype))
    return opError(op, std::string("needs a floating-point operand, got ") +
                           x.str());
  if ((x.dtype == DType::Bool) != (info.fn == Fn::LogicalNot))
    return opError(op, x.dtype == DType::Bool
                           ? "has no arithmetic on i1 operands"
                           : "needs an i1 operand, got " + x.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  if (!isFloat(x.dtype) && info.fn == Fn::ScalarDiv && params->s == 0 &&
      x.numel() != 0)
    return opError(op, "divides an integer tensor by zero");
  return params;
}

namespace {

KernelOr createUnary(const OpDesc &op, const FnInfo &info) {
  absl::StatusOr<UnaryParams> params = readUnaryParams(op, info);
  if (!params.ok())
    return params.status();
  const TensorDesc &x = op.inputs[0];
  double scalar = params->s, q = params->q;
  if (x.numel() == 0)
    return std::make_unique<NoopKernel>(op);

  algorithm alg;
  float alpha, beta;
  if (isFloat(x.dtype) && x.dtype != DType::F64 &&
      eltwiseFor(info.fn, scalar, q, alg, alpha, beta)) {
    OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank()));
    return std::make_unique<DnnlEltwiseKernel>(
        op, alg, alpha, beta, plainDesc(x.shape, *dnnlType(x.dtype)));
  }
  if (x.dtype == DType::BF16 || x.dtype == DType::F16)
    return std::make_unique<WidenedUnaryKernel>(op, info.fn, scalar, q,
                                                *dnnlType(x.dtype));
  std::unique_ptr<Kernel> kernel;
  bool known = visitPlainType(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernel = std::make_unique<PlainUnaryKernel<T>>(op, info.fn, scalar, q);
  });
  if (!known)
    return opError(op, std::string("has no CPU kernel for element type ") +
                           dtypeName(x.dtype));
  return kernel;
}

} // namespace

void cpu::registerUnaryKernels(KernelRegistry &registry) {
  for (const FnInfo &info : kFns)
    addKernel(registry, std::string("oneflow.") + info.name,
              [&info](const OpDesc &op) { return createUnary(op, info); });
}
