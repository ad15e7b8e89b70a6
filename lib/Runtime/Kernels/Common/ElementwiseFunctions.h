//===- ElementwiseFunctions.h - Element-wise math, all backends -*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The element-wise functions of the unary and binary ops, written once for
// the CPU's plain loops and the CUDA kernels (OFRT_HD marks them host and
// device functions under nvcc), so that every backend computes the same
// formula: the ops' names, the functions' parameters with their defaults,
// integer arithmetic that wraps, saturating conversions, and integer
// powers. No absl and no library here: nvcc compiles it.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_KERNELS_COMMON_ELEMENTWISEFUNCTIONS_H
#define OFRT_LIB_RUNTIME_KERNELS_COMMON_ELEMENTWISEFUNCTIONS_H

#include "ofrt/HostDevice.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace ofrt {
namespace elementwise {

//===----------------------------------------------------------------------===//
// Unary functions
//===----------------------------------------------------------------------===//

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

/// A unary function. Its parameters (leaky_relu's alpha, a scalar op's
/// scalar, ...) are its op's attributes, read through the generated
/// ofrt::params structs (cpu::readUnaryParams).
struct FnInfo {
  const char *name;
  Fn fn;
  bool floatOnly;
};

inline const FnInfo kFns[] = {
    {"relu", Fn::Relu, false},
    {"gelu", Fn::Gelu, true},
    {"tanh", Fn::Tanh, true},
    {"sigmoid", Fn::Sigmoid, true},
    {"exp", Fn::Exp, true},
    {"log", Fn::Log, true},
    {"sqrt", Fn::Sqrt, true},
    {"rsqrt", Fn::Rsqrt, true},
    {"neg", Fn::Neg, false},
    {"abs", Fn::Abs, false},
    {"erf", Fn::Erf, true},
    {"reciprocal", Fn::Reciprocal, true},
    {"sin", Fn::Sin, true},
    {"cos", Fn::Cos, true},
    {"floor", Fn::Floor, true},
    {"ceil", Fn::Ceil, true},
    {"round", Fn::Round, true},
    {"sign", Fn::Sign, false},
    {"softplus", Fn::Softplus, true},
    {"tan", Fn::Tan, true},
    {"asin", Fn::Asin, true},
    {"acos", Fn::Acos, true},
    {"atan", Fn::Atan, true},
    {"sinh", Fn::Sinh, true},
    {"cosh", Fn::Cosh, true},
    {"asinh", Fn::Asinh, true},
    {"acosh", Fn::Acosh, true},
    {"atanh", Fn::Atanh, true},
    {"logical_not", Fn::LogicalNot, false},
    {"leaky_relu", Fn::LeakyRelu, true},
    {"elu", Fn::Elu, true},
    {"selu", Fn::Selu, true},
    {"hard_sigmoid", Fn::HardSigmoid, true},
    {"scalar_add", Fn::ScalarAdd, false},
    {"scalar_mul", Fn::ScalarMul, false},
    {"scalar_div", Fn::ScalarDiv, false},
    {"scalar_pow", Fn::ScalarPow, false},
};

/// A double as an integer T, saturating (NaN gives 0).
template <typename T> OFRT_HD T saturate(double value) {
  if (value != value)
    return 0;
  double lo = static_cast<double>(std::numeric_limits<T>::min());
  double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (value <= lo)
    return std::numeric_limits<T>::min();
  if (value >= hi)
    return std::numeric_limits<T>::max();
  return static_cast<T>(value);
}

/// `fn` of a float x with parameters s (the scalar or first parameter) and
/// q (the second).
template <typename T> OFRT_HD T floatFn(Fn fn, T x, double s, double q) {
  switch (fn) {
  case Fn::Relu:
    return x > 0 || x != x ? x : T(0); // NaN stays NaN (PyTorch, oneDNN).
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
  case Fn::LogicalNot:
    break;
  }
  return x;
}

/// `fn` of an integer x; `integral`: s is an integer (integer arithmetic),
/// otherwise double arithmetic truncated toward zero.
template <typename T> OFRT_HD T intFn(Fn fn, T x, double s, bool integral) {
  using U = std::make_unsigned_t<T>;
  T k = integral ? saturate<T>(s) : T(0);
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
    return saturate<T>(static_cast<double>(x) + s);
  case Fn::ScalarMul:
    if (integral)
      return static_cast<T>(static_cast<U>(x) * static_cast<U>(k));
    return saturate<T>(static_cast<double>(x) * s);
  case Fn::ScalarDiv:
    if (integral && !(k == -1 && x == std::numeric_limits<T>::min()))
      return static_cast<T>(x / k);
    return saturate<T>(static_cast<double>(x) / s);
  case Fn::ScalarPow:
    return saturate<T>(std::pow(static_cast<double>(x), s));
  default:
    return x;
  }
}

/// cast: anything to i1 is x != 0; floats to integers truncate toward
/// zero and saturate (NaN gives 0); other casts are C++ conversions.
template <typename From, typename To>
OFRT_HD To castElement(From x, bool toBool) {
  if (toBool)
    return x != From(0) ? To(1) : To(0);
  if constexpr (std::is_floating_point_v<From> && !std::is_floating_point_v<To>)
    return saturate<To>(static_cast<double>(x));
  else
    return static_cast<To>(x);
}

/// arg_max / arg_min of one row of `length` elements `inner` apart: the
/// index of the first extreme element, or the last among equals.
template <typename T>
OFRT_HD int64_t argReduceRow(const T *row, int64_t length, int64_t inner,
                             bool max, bool last) {
  int64_t best = 0;
  for (int64_t k = 1; k < length; ++k) {
    T value = row[k * inner], current = row[best * inner];
    bool better = max ? value > current : value < current;
    if (better || (last && value == current))
      best = k;
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Binary functions
//===----------------------------------------------------------------------===//

enum class Op {
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Eq,
  Ne,
  Lt,
  Le,
  Gt,
  Ge,
  And, ///< logical_and, logical_or, logical_xor: i1 operands only.
  Or,
  Xor,
  GeluGrad ///< gelu's gradient y * gelu'(x): floating-point operands only.
};

struct OpInfo {
  const char *name;
  Op op;
  bool comparison;
};

inline const OpInfo kOps[] = {
    {"add", Op::Add, false},
    {"sub", Op::Sub, false},
    {"mul", Op::Mul, false},
    {"div", Op::Div, false},
    {"maximum", Op::Max, false},
    {"minimum", Op::Min, false},
    {"pow", Op::Pow, false},
    {"equal", Op::Eq, true},
    {"not_equal", Op::Ne, true},
    {"less", Op::Lt, true},
    {"less_equal", Op::Le, true},
    {"greater", Op::Gt, true},
    {"greater_equal", Op::Ge, true},
    {"logical_and", Op::And, true},
    {"logical_or", Op::Or, true},
    {"logical_xor", Op::Xor, true},
    {"gelu_grad", Op::GeluGrad, false},
};

inline bool isLogical(Op op) {
  return op == Op::And || op == Op::Or || op == Op::Xor;
}

template <typename T> OFRT_HD T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a + b;
}
template <typename T> OFRT_HD T wrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) -
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a - b;
}
template <typename T> OFRT_HD T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) *
                          static_cast<std::make_unsigned_t<T>>(b));
  else
    return a * b;
}

/// Integer power, truncated toward zero for negative exponents.
template <typename T> OFRT_HD T intPow(T base, T exp) {
  if (exp < 0) {
    if (base == 1)
      return 1;
    if (base == static_cast<T>(-1))
      return (exp % 2 == 0) ? 1 : static_cast<T>(-1);
    return 0;
  }
  T result = 1;
  while (exp > 0) {
    if (exp & 1)
      result = wrapMul(result, base);
    base = wrapMul(base, base);
    exp = static_cast<T>(exp >> 1);
  }
  return result;
}

/// The derivative of gelu (erf form) at x: Phi(x) + x phi(x), with
/// Phi(x) = (1 + erf(x / sqrt 2)) / 2 and phi(x) = exp(-x^2 / 2) / sqrt(2 pi).
template <typename T> OFRT_HD T geluSlope(T x) {
  T cdf = T(0.5) * (T(1) + std::erf(x * T(0.70710678118654752440)));
  T pdf = std::exp(T(-0.5) * x * x) * T(0.39894228040143267794);
  return cdf + x * pdf;
}

/// `op` of two elements as a double-free value of T (comparisons and
/// logical ops give 0 or 1). Integer division by zero gives 0 and
/// minimum / -1 gives minimum: callers that must report them check first.
template <typename T> OFRT_HD T binaryFn(Op op, T x, T y) {
  switch (op) {
  case Op::Add:
    return wrapAdd(x, y);
  case Op::Sub:
    return wrapSub(x, y);
  case Op::Mul:
    return wrapMul(x, y);
  case Op::Div:
    if constexpr (std::is_integral_v<T>) {
      if (y == 0)
        return 0;
      if (std::is_signed_v<T> && y == static_cast<T>(-1) &&
          x == std::numeric_limits<T>::min())
        return x;
    }
    return static_cast<T>(x / y);
  case Op::Max: // A NaN operand gives NaN (PyTorch's maximum).
    return x != x ? x : y != y ? y : x < y ? y : x;
  case Op::Min:
    return x != x ? x : y != y ? y : y < x ? y : x;
  case Op::Pow:
    if constexpr (std::is_integral_v<T>)
      return intPow(x, y);
    else
      return std::pow(x, y);
  case Op::And:
    return x && y;
  case Op::Or:
    return x || y;
  case Op::Xor:
    return !x != !y;
  case Op::Eq:
    return x == y;
  case Op::Ne:
    return x != y;
  case Op::Lt:
    return x < y;
  case Op::Le:
    return x <= y;
  case Op::Gt:
    return x > y;
  case Op::Ge:
    return x >= y;
  case Op::GeluGrad:
    if constexpr (std::is_floating_point_v<T>)
      return y * geluSlope(x);
    else
      return x;
  }
  return x;
}

//===----------------------------------------------------------------------===//
// Optimizer steps (PyTorch's formulas, in the parameter's type)
//===----------------------------------------------------------------------===//

/// torch.optim.SGD on one element: g is the (scaled) gradient, buf the
/// momentum buffer's element or null.
template <typename T>
OFRT_HD void sgdElement(T &param, T g, T *buf, T lr, T wd, T mu,
                        bool nesterov) {
  if (wd != 0)
    g += wd * param;
  if (buf) {
    *buf = mu * *buf + g;
    g = nesterov ? g + mu * *buf : *buf;
  }
  param -= lr * g;
}

/// torch.optim.Adam (decoupled: AdamW) on one element.
template <typename T>
OFRT_HD void adamElement(T &param, T g, T &m, T &v, T stepSize, T correction2,
                         T b1, T b2, T eps, T wd, T decay, bool decoupled) {
  if (decoupled)
    param *= decay;
  else if (wd != 0)
    g += wd * param;
  m = b1 * m + (T(1) - b1) * g;
  v = b2 * v + (T(1) - b2) * g * g;
  T denom = std::sqrt(v) / correction2 + eps;
  param -= stepSize * m / denom;
}

} // namespace elementwise
} // namespace ofrt

#endif // OFRT_LIB_RUNTIME_KERNELS_COMMON_ELEMENTWISEFUNCTIONS_H
