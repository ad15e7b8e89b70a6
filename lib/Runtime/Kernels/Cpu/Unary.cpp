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
// and hard_sigmoid have no oneDNN algorithm; f64 and
// integer tensors have no oneDNN type: plain loops. On integers the scalar
// ops use integer arithmetic when the scalar is integral, otherwise double
// arithmetic truncated toward zero.
//
//===----------------------------------------------------------------------===//

#include "CpuKernels.h"
#include "DnnlUtils.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::cpu;
using dnnl::algorithm;

namespace {

enum class Fn {
  Relu,
  Gelu,
  Tanh,
  Sigmoid,
  Exp,
  Log,
  Sqrt,
  Rsqrt,
  Neg,
  Abs,
  Erf,
  Reciprocal,
  Sin,
  Cos,
  Floor,
  Ceil,
  Round,
  Sign,
  Softplus,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  LogicalNot,
  LeakyRelu,
  Elu,
  Selu,
  HardSigmoid,
  ScalarAdd,
  ScalarMul,
  ScalarDiv,
  ScalarPow
};

/// A float parameter of a function, with the op's default.
struct Param {
  const char *name = nullptr;
  double fallback = 0;
};

struct FnInfo {
  const char *name;
  Fn fn;
  bool floatOnly;
  bool scalar;
  Param p = {}, q = {}; ///< Parameters (leaky_relu, elu, selu, hard_sigmoid).
};

const FnInfo kFns[] = {
    {"relu", Fn::Relu, false, false},
    {"gelu", Fn::Gelu, true, false},
    {"tanh", Fn::Tanh, true, false},
    {"sigmoid", Fn::Sigmoid, true, false},
    {"exp", Fn::Exp, true, false},
    {"log", Fn::Log, true, false},
    {"sqrt", Fn::Sqrt, true, false},
    {"rsqrt", Fn::Rsqrt, true, false},
    {"neg", Fn::Neg, false, false},
    {"abs", Fn::Abs, false, false},
    {"erf", Fn::Erf, true, false},
    {"reciprocal", Fn::Reciprocal, true, false},
    {"sin", Fn::Sin, true, false},
    {"cos", Fn::Cos, true, false},
    {"floor", Fn::Floor, true, false},
    {"ceil", Fn::Ceil, true, false},
    {"round", Fn::Round, true, false},
    {"sign", Fn::Sign, false, false},
    {"softplus", Fn::Softplus, true, false},
    {"tan", Fn::Tan, true, false},
    {"asin", Fn::Asin, true, false},
    {"acos", Fn::Acos, true, false},
    {"atan", Fn::Atan, true, false},
    {"sinh", Fn::Sinh, true, false},
    {"cosh", Fn::Cosh, true, false},
    {"asinh", Fn::Asinh, true, false},
    {"acosh", Fn::Acosh, true, false},
    {"atanh", Fn::Atanh, true, false},
    {"logical_not", Fn::LogicalNot, false, false},
    {"leaky_relu", Fn::LeakyRelu, true, false, {"alpha", 0.01}},
    {"elu", Fn::Elu, true, false, {"alpha", 1.0}},
    {"selu", Fn::Selu, true, false, {"alpha", 1.67326319217681884765625},
     {"gamma", 1.05070102214813232421875}},
    {"hard_sigmoid", Fn::HardSigmoid, true, false, {"alpha", 0.2},
     {"beta", 0.5}},
    {"scalar_add", Fn::ScalarAdd, false, true},
    {"scalar_mul", Fn::ScalarMul, false, true},
    {"scalar_div", Fn::ScalarDiv, false, true},
    {"scalar_pow", Fn::ScalarPow, false, true},
};

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

class EltwiseKernel : public CpuKernel {
public:
  EltwiseKernel(const OpDesc &op, algorithm alg, float alpha, float beta,
                MemDesc desc)
      : CpuKernel(op), desc(desc) {
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg,
                                    desc, alpha, beta),
        scratchpadAttr(), cpuEngine());
    prim = dnnl::eltwise_forward(pd);
  }

  absl::Status compute(const KernelContext &, const std::vector<TensorView> &in,
                       const std::vector<TensorView> &out) override {
    return execute(where, prim,
                   args(DNNL_ARG_SRC, desc, in[0].data)(DNNL_ARG_DST, desc,
                                                        out[0].data));
  }

private:
  DnnlArgs args;
  MemDesc desc;
  dnnl::eltwise_forward prim;
};

template <typename T> T floatFn(Fn fn, T x, double s, double q) {
  switch (fn) {
  case Fn::Relu:
    return x > 0 ? x : T(0);
  case Fn::Gelu:
    return T(0.5) * x * (T(1) + std::erf(x / std::sqrt(T(2))));
  case Fn::Tanh:
    return std::tanh(x);
  case Fn::Sigmoid:
    return T(1) / (T(1) + std::exp(-x));
  case Fn::Exp:
    return std::exp(x);
  case Fn::Log:
    return std::log(x);
  case Fn::Sqrt:
    return std::sqrt(x);
  case Fn::Rsqrt:
    return T(1) / std::sqrt(x);
  case Fn::Neg:
    return -x;
  case Fn::Abs:
    return std::abs(x);
  case Fn::Erf:
    return std::erf(x);
  case Fn::Reciprocal:
    return T(1) / x;
  case Fn::Sin:
    return std::sin(x);
  case Fn::Cos:
    return std::cos(x);
  case Fn::Tan:
    return std::tan(x);
  case Fn::Asin:
    return std::asin(x);
  case Fn::Acos:
    return std::acos(x);
  case Fn::Atan:
    return std::atan(x);
  case Fn::Sinh:
    return std::sinh(x);
  case Fn::Cosh:
    return std::cosh(x);
  case Fn::Asinh:
    return std::asinh(x);
  case Fn::Acosh:
    return std::acosh(x);
  case Fn::Atanh:
    return std::atanh(x);
  case Fn::Floor:
    return std::floor(x);
  case Fn::Ceil:
    return std::ceil(x);
  case Fn::Round:
    return std::nearbyint(x); // The default rounding: halves to even.
  case Fn::Sign:
    return x > 0 ? T(1) : x < 0 ? T(-1) : x; // NaN stays NaN, -0 stays -0.
  case Fn::Softplus:
    // log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|)).
    return std::max(x, T(0)) + std::log1p(std::exp(-std::abs(x)));
  case Fn::LeakyRelu:
    return x >= 0 ? x : T(s) * x;
  case Fn::Elu:
    return x > 0 ? x : T(s) * std::expm1(x);
  case Fn::Selu:
    return T(q) * (x > 0 ? x : T(s) * std::expm1(x));
  case Fn::HardSigmoid:
    return std::max(T(0), std::min(T(1), T(s) * x + T(q)));
  case Fn::ScalarAdd:
    return x + T(s);
  case Fn::ScalarMul:
    return x * T(s);
  case Fn::ScalarDiv:
    return x / T(s);
  case Fn::ScalarPow:
    return std::pow(x, T(s));
  }
  return x;
}

template <typename T> T intFn(Fn fn, T x, double s, bool integral) {
  using U = std::make_unsigned_t<T>;
  T k = integral ? fromDouble<T>(s) : T(0);
  switch (fn) {
  case Fn::Relu:
    return x > 0 ? x : T(0);
  case Fn::Neg:
    return static_cast<T>(U(0) - static_cast<U>(x));
  case Fn::Abs:
    return x < 0 ? static_cast<T>(U(0) - static_cast<U>(x)) : x;
  case Fn::Sign:
    return x > 0 ? T(1) : x < 0 ? static_cast<T>(-1) : T(0);
  case Fn::LogicalNot:
    return x ? T(0) : T(1);
  case Fn::ScalarAdd:
    if (integral)
      return static_cast<T>(static_cast<U>(x) + static_cast<U>(k));
    return fromDouble<T>(static_cast<double>(x) + s);
  case Fn::ScalarMul:
    if (integral)
      return static_cast<T>(static_cast<U>(x) * static_cast<U>(k));
    return fromDouble<T>(static_cast<double>(x) * s);
  case Fn::ScalarDiv:
    if (integral && !(k == -1 && x == std::numeric_limits<T>::min()))
      return static_cast<T>(x / k);
    return fromDouble<T>(static_cast<double>(x) / s);
  case Fn::ScalarPow:
    return fromDouble<T>(std::pow(static_cast<double>(x), s));
  default:
    return x;
  }
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

KernelOr createUnary(const OpDesc &op, const FnInfo &info) {
  OFRT_RETURN_IF_ERROR(checkArity(op, 1, 1));
  const TensorDesc &x = op.inputs[0];
  double scalar = 0, q = 0;
  if (info.scalar)
    OFRT_RETURN_IF_ERROR(readAttr(op, "scalar", scalar));
  if (info.p.name)
    OFRT_RETURN_IF_ERROR(readAttr(op, info.p.name, scalar, {info.p.fallback}));
  if (info.q.name)
    OFRT_RETURN_IF_ERROR(readAttr(op, info.q.name, q, {info.q.fallback}));
  if (info.floatOnly && !isFloat(x.dtype))
    return opError(op, std::string("needs a floating-point operand, got ") +
                           x.str());
  if ((x.dtype == DType::Bool) != (info.fn == Fn::LogicalNot))
    return opError(op, x.dtype == DType::Bool
                           ? "has no arithmetic on i1 operands"
                           : "needs an i1 operand, got " + x.str());
  OFRT_RETURN_IF_ERROR(checkResult(op, 0, x));
  if (x.numel() == 0)
    return std::make_unique<NoopKernel>(op);
  if (!isFloat(x.dtype) && info.fn == Fn::ScalarDiv && scalar == 0)
    return opError(op, "divides an integer tensor by zero");

  algorithm alg;
  float alpha, beta;
  if (isFloat(x.dtype) && x.dtype != DType::F64 &&
      eltwiseFor(info.fn, scalar, q, alg, alpha, beta)) {
    OFRT_RETURN_IF_ERROR(checkDnnlRank(op, x.rank()));
    return std::make_unique<EltwiseKernel>(
        op, alg, alpha, beta, plainDesc(x.shape, *dnnlType(x.dtype)));
  }
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
