//===- ElementwiseTest.cpp - Binary, unary, scalar, where, cast
//------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"
#include "ofrt/KernelChecks.h"

#include <functional>
#include <limits>

using namespace ofrt;
using namespace ofrt::test;

namespace {

using BinaryFn = std::function<double(double, double)>;

Shape broadcast(const Shape &a, const Shape &b) {
  size_t rank = std::max(a.size(), b.size());
  Shape out(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    out[i] = da == 1 ? db : da;
  }
  return out;
}

Values naiveBinary(const Values &a, const Shape &as, const Values &b,
                   const Shape &bs, const BinaryFn &fn, Shape &outShape) {
  outShape = broadcast(as, bs);
  Values out(count(outShape));
  for (int64_t i = 0; i < count(outShape); ++i) {
    Shape idx = unravel(i, outShape);
    out[i] = fn(a[broadcastIndex(idx, as)], b[broadcastIndex(idx, bs)]);
  }
  return out;
}

struct BinaryCase {
  const char *name;
  BinaryFn fn;
  bool comparison;
};

const std::vector<BinaryCase> &floatCases() {
  static const std::vector<BinaryCase> cases = {
      {"add", [](double x, double y) { return x + y; }, false},
      {"sub", [](double x, double y) { return x - y; }, false},
      {"mul", [](double x, double y) { return x * y; }, false},
      {"div", [](double x, double y) { return x / y; }, false},
      {"maximum", [](double x, double y) { return std::max(x, y); }, false},
      {"minimum", [](double x, double y) { return std::min(x, y); }, false},
      {"equal", [](double x, double y) { return double(x == y); }, true},
      {"not_equal", [](double x, double y) { return double(x != y); }, true},
      {"less", [](double x, double y) { return double(x < y); }, true},
      {"less_equal", [](double x, double y) { return double(x <= y); }, true},
      {"greater", [](double x, double y) { return double(x > y); }, true},
      {"greater_equal", [](double x, double y) { return double(x >= y); },
       true},
  };
  return cases;
}

void checkBinary(const BinaryCase &c, DType dtype, const Shape &as,
                 const Shape &bs, unsigned seed) {
  SCOPED_TRACE(std::string(c.name) + " " + dtypeName(dtype) + " " +
               std::to_string(as.size()) + "d vs " + std::to_string(bs.size()) +
               "d");
  // Small integers (as floats) make ties common for comparisons; nonzero
  // divisors keep div finite.
  Values a = randomInts(count(as), seed, -3, 3);
  Values b = randomInts(count(bs), seed + 1, -3, 3);
  for (double &x : b)
    if (x == 0)
      x = 2;
  if (isFloat(dtype))
    for (size_t i = 0; i < a.size(); ++i)
      a[i] += 0.25 * (i % 3 == 0);
  Shape outShape;
  Values expected = naiveBinary(a, as, b, bs, c.fn, outShape);
  if (!isFloat(dtype) && std::string(c.name) == "div")
    for (double &x : expected)
      x = std::trunc(x);
  auto out = runOk(c.name, {tensor(dtype, as, a), tensor(dtype, bs, b)},
                   {{c.comparison ? DType::Bool : dtype, outShape}});
  EXPECT_TRUE(near(values(out[0]), expected, 1e-6, 1e-6));
}

TEST(BinaryKernels, FloatBroadcasting) {
  std::vector<std::pair<Shape, Shape>> shapes = {
      {{7, 13}, {7, 13}}, {{7, 13}, {13}},       {{7, 1}, {1, 13}},
      {{13}, {7, 13}},    {{}, {7, 13}},         {{2, 1, 5}, {3, 1}},
      {{1}, {1}},         {{3, 1, 1}, {1, 4, 1}},
      // Axes the kernel merges before oneDNN sees them: runs of full axes,
      // runs of broadcast ones, size-1 axes of the result.
      {{2, 3, 4, 5}, {2, 3, 4, 1}}, {{2, 3, 4, 5}, {2, 1, 1, 5}},
      {{2, 1, 4, 1}, {2, 3, 4, 5}}, {{1, 3, 1, 5}, {1, 3, 1, 1}},
      {{2, 3, 4, 5}, {1, 1, 4, 5}}, {{1, 1, 1}, {1, 1, 1}}};
  unsigned seed = 1;
  for (const BinaryCase &c : floatCases())
    for (const auto &[as, bs] : shapes)
      checkBinary(c, DType::F32, as, bs, seed++);
}

TEST(BinaryKernels, PlainTypes) {
  unsigned seed = 100;
  for (DType dtype : {DType::F64, DType::I32, DType::I64})
    for (const BinaryCase &c : floatCases()) {
      checkBinary(c, dtype, {7, 13}, {13}, seed++);
      checkBinary(c, dtype, {13}, {7, 1}, seed++);
    }
}

TEST(BinaryKernels, Pow) {
  Values a = randomValues(7 * 13, 3, 0.1, 3.0), b = randomValues(13, 4, -2, 2);
  Shape outShape;
  Values expected = naiveBinary(
      a, {7, 13}, b, {13}, [](double x, double y) { return std::pow(x, y); },
      outShape);
  auto out =
      runOk("pow", {f32({7, 13}, a), f32({13}, b)}, {{DType::F32, {7, 13}}});
  EXPECT_TRUE(near(values(out[0]), expected, 1e-5, 1e-5));

  // Integer powers; negative exponents truncate toward zero.
  auto ints = runOk("pow",
                    {tensor(DType::I64, {6}, {2, 3, -2, 1, -1, 5}),
                     tensor(DType::I64, {6}, {40, 0, 3, -5, -3, -1})},
                    {{DType::I64, {6}}});
  EXPECT_EQ(values(ints[0]),
            (Values{double(int64_t(1) << 40), 1, -8, 1, -1, 0}));
}

TEST(BinaryKernels, IntegerSemantics) {
  // Division truncates toward zero; large i64 values stay exact.
  auto div = runOk("div",
                   {tensor(DType::I32, {4}, {-7, 7, -7, 9}),
                    tensor(DType::I32, {4}, {2, -2, -2, 3})},
                   {{DType::I32, {4}}});
  EXPECT_EQ(values(div[0]), (Values{-3, -3, 3, 3}));
  int64_t big = (int64_t(1) << 53) + 1;
  TensorData x = tensor(DType::I64, {1}, {0});
  std::memcpy(x.bytes.data(), &big, 8);
  auto add =
      runOk("add", {x, tensor(DType::I64, {1}, {1})}, {{DType::I64, {1}}});
  int64_t sum;
  std::memcpy(&sum, add[0].bytes.data(), 8);
  EXPECT_EQ(sum, big + 1);

  OpDesc desc =
      op("div", {{DType::I64, {3}}, {DType::I64, {3}}}, {{DType::I64, {3}}});
  auto result = run(desc, {tensor(DType::I64, {3}, {1, 2, 3}),
                           tensor(DType::I64, {3}, {1, 0, 1})});
  expectError(result.status(), {"oneflow.div 'test_div'", "division by zero"});
}

TEST(BinaryKernels, Bool) {
  auto eq = runOk("equal",
                  {tensor(DType::Bool, {4}, {0, 1, 0, 1}),
                   tensor(DType::Bool, {4}, {0, 0, 1, 1})},
                  {{DType::Bool, {4}}});
  EXPECT_EQ(values(eq[0]), (Values{1, 0, 0, 1}));
  expectCreateError(
      op("add", {{DType::Bool, {4}}, {DType::Bool, {4}}}, {{DType::Bool, {4}}}),
      "no arithmetic on i1");
}

// gelu's gradient dy * (Phi(x) + x phi(x)): f32 and bf16 of one shape on
// oneDNN's eltwise backward (bf16 in f32 where oneDNN has none), f64 and
// broadcast operands on the plain loops; integers refused.
TEST(BinaryKernels, GeluGrad) {
  auto slope = [](double x) {
    return 0.5 * (1 + std::erf(x / std::sqrt(2.0))) +
           x * std::exp(-0.5 * x * x) / std::sqrt(2 * M_PI);
  };
  struct Case {
    DType dtype;
    Shape xs, dys;
    double tol;
  };
  // bf16 keeps 8 bits: its operands and result are each rounded once.
  for (const Case &c : {Case{DType::F32, {7, 13}, {7, 13}, 2e-6},
                        Case{DType::F32, {1031}, {1031}, 2e-6},
                        Case{DType::F64, {7, 13}, {7, 13}, 1e-12},
                        Case{DType::F32, {13}, {7, 13}, 2e-6},
                        Case{DType::BF16, {7, 13}, {7, 13}, 2e-2}}) {
    SCOPED_TRACE(std::string(dtypeName(c.dtype)) + ", x of " +
                 std::to_string(count(c.xs)) + " elements");
    Values x = randomValues(count(c.xs), 5, -5, 5);
    Values dy = randomValues(count(c.dys), 6, -2, 2);
    x[0] = 0;
    TensorData xt = tensor(c.dtype, c.xs, x), dyt = tensor(c.dtype, c.dys, dy);
    Values xr = values(xt), dyr = values(dyt); // As the tensors hold them.
    Values expected(dyr.size());
    for (size_t i = 0; i < dyr.size(); ++i)
      expected[i] = dyr[i] * slope(xr[i % xr.size()]);
    auto out = runOk("gelu_grad", {xt, dyt}, {{c.dtype, c.dys}});
    EXPECT_TRUE(near(values(out[0]), expected, c.tol, c.tol));
  }
  expectCreateError(op("gelu_grad", {{DType::I32, {4}}, {DType::I32, {4}}},
                       {{DType::I32, {4}}}),
                    "needs floating-point operands, got 4xi32");
}

TEST(BinaryKernels, RejectsBadDescriptions) {
  expectCreateError(op("add", {{DType::F32, {7, 13}}, {DType::F32, {7, 12}}},
                       {{DType::F32, {7, 13}}}),
                    "cannot broadcast shapes [7, 13] and [7, 12]");
  expectCreateError(
      op("mul", {{DType::F32, {4}}, {DType::F64, {4}}}, {{DType::F32, {4}}}),
      "different element types");
  expectCreateError(
      op("less", {{DType::F32, {4}}, {DType::F32, {4}}}, {{DType::F32, {4}}}),
      "result 0 is 4xf32 but the op gives 4xi1");
  expectCreateError(op("sub", {{DType::F32, {4}}}, {{DType::F32, {4}}}),
                    "needs 2 operands");
}

//===----------------------------------------------------------------------===//
// Unary and scalar
//===----------------------------------------------------------------------===//

struct UnaryCase {
  const char *name;
  std::function<double(double)> fn;
  double lo, hi;
  double f32Tol = 2e-6;
};

const std::vector<UnaryCase> &unaryCases() {
  static const std::vector<UnaryCase> cases = {
      {"relu", [](double x) { return x > 0 ? x : 0; }, -3, 3},
      {"gelu",
       [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); },
       -4, 4},
      {"tanh", [](double x) { return std::tanh(x); }, -4, 4},
      {"sigmoid", [](double x) { return 1 / (1 + std::exp(-x)); }, -8, 8},
      {"exp", [](double x) { return std::exp(x); }, -5, 5},
      // oneDNN's f32 log is a polynomial approximation, off by up to a few
      // 1e-6 absolute near x = 1.
      {"log", [](double x) { return std::log(x); }, 0.01, 10, 1e-5},
      {"sqrt", [](double x) { return std::sqrt(x); }, 0, 10},
      {"rsqrt", [](double x) { return 1 / std::sqrt(x); }, 0.01, 10},
      {"neg", [](double x) { return -x; }, -3, 3},
      {"abs", [](double x) { return std::abs(x); }, -3, 3},
      {"erf", [](double x) { return std::erf(x); }, -3, 3},
  };
  return cases;
}

TEST(UnaryKernels, FloatFunctions) {
  unsigned seed = 1;
  for (const UnaryCase &c : unaryCases())
    for (DType dtype : {DType::F32, DType::F64}) {
      SCOPED_TRACE(std::string(c.name) + " " + dtypeName(dtype));
      Shape shape = {7, 13};
      Values x = randomValues(count(shape), seed++, c.lo, c.hi);
      Values expected(x.size());
      for (size_t i = 0; i < x.size(); ++i)
        expected[i] = c.fn(x[i]);
      auto out = runOk(c.name, {tensor(dtype, shape, x)}, {{dtype, shape}});
      double tol = dtype == DType::F32 ? c.f32Tol : 1e-12;
      EXPECT_TRUE(near(values(out[0]), expected, tol, tol));
    }
}

// f32 erf runs on glibc's vector math in chunks over the threads: many
// chunks and a ragged tail, the special values, and 4 ulp of accuracy.
TEST(UnaryKernels, ErfOnWholeVectors) {
  Shape shape = {100003};
  Values x = randomValues(count(shape), 77, -6, 6);
  double inf = std::numeric_limits<double>::infinity();
  Values special = {0.0, -0.0, 1e-30, -1e-30, 1e-8, 10, -10, inf, -inf};
  std::copy(special.begin(), special.end(), x.begin());
  Values got = values(runOk("erf", {f32(shape, x)}, {{DType::F32, shape}})[0]);
  ASSERT_EQ(got.size(), x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double want = std::erf(static_cast<double>(static_cast<float>(x[i])));
    ASSERT_NEAR(got[i], want, 4 * std::abs(want) * 0x1p-23 + 1e-38)
        << "erf(" << x[i] << ")";
  }
  EXPECT_TRUE(std::signbit(got[1])) << "erf(-0) = -0";
  Values nan = values(runOk("erf", {f32({1}, {std::nan("")})},
                            {{DType::F32, {1}}})[0]);
  EXPECT_TRUE(std::isnan(nan[0]));
}

TEST(UnaryKernels, IntegerFunctions) {
  for (DType dtype : {DType::I32, DType::I64}) {
    TensorData x = tensor(dtype, {5}, {-3, -1, 0, 2, 7});
    EXPECT_EQ(values(runOk("relu", {x}, {x.desc})[0]), (Values{0, 0, 0, 2, 7}));
    EXPECT_EQ(values(runOk("neg", {x}, {x.desc})[0]),
              (Values{3, 1, 0, -2, -7}));
    EXPECT_EQ(values(runOk("abs", {x}, {x.desc})[0]), (Values{3, 1, 0, 2, 7}));
  }
  expectCreateError(op("tanh", {{DType::I32, {4}}}, {{DType::I32, {4}}}),
                    "needs a floating-point operand");
}

TEST(ScalarKernels, Float) {
  Shape shape = {1, 13, 1};
  Values x = randomValues(13, 7, 0.1, 4);
  struct Case {
    const char *name;
    double scalar;
    std::function<double(double)> fn;
  } cases[] = {
      {"scalar_add", 2.5, [](double v) { return v + 2.5; }},
      {"scalar_mul", -3, [](double v) { return v * -3; }},
      {"scalar_div", 3, [](double v) { return v / 3; }},
      {"scalar_pow", 2, [](double v) { return v * v; }},
      {"scalar_pow", 0.5, [](double v) { return std::sqrt(v); }},
      {"scalar_pow", -1.5, [](double v) { return std::pow(v, -1.5); }},
  };
  for (const Case &c : cases)
    for (DType dtype : {DType::F32, DType::F64}) {
      SCOPED_TRACE(std::string(c.name) + " " + std::to_string(c.scalar) + " " +
                   dtypeName(dtype));
      Values expected;
      for (double v : x)
        expected.push_back(c.fn(v));
      auto out = runOk(c.name, {tensor(dtype, shape, x)}, {{dtype, shape}},
                       {{"scalar", c.scalar}});
      EXPECT_TRUE(near(values(out[0]), expected, 1e-6, 1e-6));
    }
}

TEST(ScalarKernels, Integer) {
  TensorData x = tensor(DType::I64, {4}, {-7, -1, 4, 9});
  auto run1 = [&](const char *name, double s) {
    return values(runOk(name, {x}, {x.desc}, {{"scalar", s}})[0]);
  };
  EXPECT_EQ(run1("scalar_add", 3), (Values{-4, 2, 7, 12}));
  EXPECT_EQ(run1("scalar_mul", 2.5), (Values{-17, -2, 10, 22}));
  EXPECT_EQ(run1("scalar_div", 2), (Values{-3, 0, 2, 4}));
  EXPECT_EQ(run1("scalar_pow", 2), (Values{49, 1, 16, 81}));
  expectCreateError(op("scalar_div", {x.desc}, {x.desc}, {{"scalar", 0.0}}),
                    "divides an integer tensor by zero");
  expectCreateError(op("scalar_add", {x.desc}, {x.desc}),
                    "needs attribute 'scalar'");
  expectCreateError(
      op("scalar_add", {x.desc}, {x.desc}, {{"scalar", std::string("two")}}),
      "attribute 'scalar' must be a float, got a string");
}

//===----------------------------------------------------------------------===//
// where, masked_fill, cast
//===----------------------------------------------------------------------===//

TEST(WhereKernel, Broadcasting) {
  Shape cs = {7, 1}, xs = {7, 13}, ys = {13};
  Values c = randomInts(7, 1, 0, 1), x = randomValues(91, 2),
         y = randomValues(13, 3);
  Values expected(91);
  for (int64_t i = 0; i < 91; ++i) {
    Shape idx = unravel(i, xs);
    expected[i] = c[broadcastIndex(idx, cs)] ? x[broadcastIndex(idx, xs)]
                                             : y[broadcastIndex(idx, ys)];
  }
  for (DType dtype : {DType::F32, DType::I64, DType::F64}) {
    auto out = runOk("where",
                     {tensor(DType::Bool, cs, c), tensor(dtype, xs, x),
                      tensor(dtype, ys, y)},
                     {{dtype, xs}});
    if (dtype == DType::I64) {
      Values truncated = expected;
      for (double &v : truncated)
        v = std::trunc(v);
      EXPECT_EQ(values(out[0]), truncated);
    } else {
      EXPECT_EQ(values(out[0]), expected);
    }
  }
  // A condition dense along the last axis selects whole rows; each branch
  // dense there, one value per row, or one value.
  Shape rowCs = {7, 13};
  Values rowC = randomInts(91, 6, 0, 1);
  for (const Shape &xShape : {Shape{7, 13}, Shape{7, 1}, Shape{}})
    for (const Shape &yShape : {Shape{13}, Shape{7, 1}, Shape{}}) {
      SCOPED_TRACE("x " + shapeStr(xShape) + ", y " + shapeStr(yShape));
      Values xv = randomValues(count(xShape), 7),
             yv = randomValues(count(yShape), 8), want(91);
      for (int64_t i = 0; i < 91; ++i) {
        Shape idx = unravel(i, rowCs);
        want[i] = rowC[i] ? xv[broadcastIndex(idx, xShape)]
                          : yv[broadcastIndex(idx, yShape)];
      }
      auto rows = runOk("where",
                        {tensor(DType::Bool, rowCs, rowC), f32(xShape, xv),
                         f32(yShape, yv)},
                        {{DType::F32, rowCs}});
      EXPECT_EQ(values(rows[0]), want);
    }
  // The result can be larger than every operand.
  auto grown = runOk("where",
                     {tensor(DType::Bool, {2, 1}, {1, 0}),
                      f32({1, 3}, {1, 2, 3}), f32({}, {9})},
                     {{DType::F32, {2, 3}}});
  EXPECT_EQ(values(grown[0]), (Values{1, 2, 3, 9, 9, 9}));
  expectCreateError(
      op("where", {{DType::F32, {2}}, {DType::F32, {2}}, {DType::F32, {2}}},
         {{DType::F32, {2}}}),
      "condition must be i1");
}

TEST(MaskedFillKernel, Broadcasting) {
  Shape xs = {2, 7, 13}, ms = {7, 13};
  Values x = randomValues(count(xs), 4), m = randomInts(count(ms), 5, 0, 1);
  Values expected(x.size());
  for (int64_t i = 0; i < count(xs); ++i)
    expected[i] = m[broadcastIndex(unravel(i, xs), ms)] ? -1e9 : x[i];
  auto out = runOk("masked_fill", {f32(xs, x), tensor(DType::Bool, ms, m)},
                   {{DType::F32, xs}}, {{"value", -1e9}});
  EXPECT_TRUE(near(values(out[0]), expected, 0, 1e-7));

  auto ints = runOk("masked_fill",
                    {tensor(DType::I32, {2, 3}, {1, 2, 3, 4, 5, 6}),
                     tensor(DType::Bool, {1, 3}, {0, 1, 0})},
                    {{DType::I32, {2, 3}}}, {{"value", 7.0}});
  EXPECT_EQ(values(ints[0]), (Values{1, 7, 3, 4, 7, 6}));
  expectCreateError(op("masked_fill",
                       {{DType::F32, {3}}, {DType::Bool, {2, 3}}},
                       {{DType::F32, {3}}}, {{"value", 0.0}}),
                    "does not broadcast to 3xf32");
}

TEST(CastKernel, Conversions) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  TensorData x = f32({6}, {-2.7, 2.7, 1e10, -1e10, nan, 0});
  EXPECT_EQ(values(runOk("cast", {x}, {{DType::I32, {6}}})[0]),
            (Values{-2, 2, 2147483647, -2147483648.0, 0, 0}));
  EXPECT_EQ(values(runOk("cast", {x}, {{DType::Bool, {6}}})[0]),
            (Values{1, 1, 1, 1, 1, 0}));
  TensorData i = tensor(DType::I64, {3}, {-5, 0, 123456789});
  EXPECT_EQ(values(runOk("cast", {i}, {{DType::F64, {3}}})[0]),
            (Values{-5, 0, 123456789}));
  EXPECT_EQ(values(runOk("cast", {i}, {{DType::I32, {3}}})[0]),
            (Values{-5, 0, 123456789}));
  TensorData b = tensor(DType::Bool, {3}, {1, 0, 1});
  EXPECT_EQ(values(runOk("cast", {b}, {{DType::F32, {3}}})[0]),
            (Values{1, 0, 1}));
  // f32 -> bf16 rounds to nearest even (ties: 1 + 2^-8 -> 1, 1 + 3 * 2^-8
  // -> 1 + 2^-6), and back is exact.
  TensorData r = f32({3}, {1.00390625, 1.01171875, -3.5});
  auto bf = runOk("cast", {r}, {{DType::BF16, {3}}});
  EXPECT_EQ(values(bf[0]), (Values{1.0, 1.015625, -3.5}));
  EXPECT_EQ(values(runOk("cast", {bf[0]}, {{DType::F32, {3}}})[0]),
            (Values{1.0, 1.015625, -3.5}));
  expectCreateError(op("cast", {{DType::F32, {3}}}, {{DType::F32, {4}}}),
                    "changes the shape");
}

TEST(CastKernel, EdgeIntegersWrap) {
  // Integer casts keep the low bits: to ui16 from i32, and i64 <-> ui64
  // bit for bit (ONNX's UINT64 is computed in i64).
  auto u16 = runOk("cast", {tensor(DType::I32, {3}, {70000, -1, 5})},
                   {{DType::U16, {3}}});
  uint16_t words[3];
  std::memcpy(words, u16[0].bytes.data(), sizeof words);
  EXPECT_EQ(words[0], 4464);
  EXPECT_EQ(words[1], 65535);
  EXPECT_EQ(words[2], 5);
  auto u64 = runOk("cast", {tensor(DType::I64, {2}, {-1, 12345})},
                   {{DType::U64, {2}}});
  uint64_t quads[2];
  std::memcpy(quads, u64[0].bytes.data(), sizeof quads);
  EXPECT_EQ(quads[0], ~uint64_t(0));
  EXPECT_EQ(quads[1], 12345u);
  auto back = runOk("cast", {u64[0]}, {{DType::I64, {2}}});
  EXPECT_EQ(values(back[0]), (Values{-1, 12345}));
  auto i16 = runOk("cast", {tensor(DType::I32, {2}, {-300, 40000})},
                   {{DType::I16, {2}}});
  EXPECT_EQ(loadElement(DType::I16, i16[0].bytes.data(), 0), -300);
  EXPECT_EQ(loadElement(DType::I16, i16[0].bytes.data(), 1), 40000 - 65536);
  auto f = runOk("cast", {u16[0]}, {{DType::F32, {3}}});
  EXPECT_EQ(values(f[0]), (Values{4464, 65535, 5}));
}

TEST(BitShiftKernel, UnsignedWidths) {
  // 8 bits in i32: 200 << 1 wraps to 144; 200 >> 3 is 25; shifts of 8 or
  // more give 0.
  auto y = runOk("bit_shift",
                 {tensor(DType::I32, {3}, {200, 200, 200}),
                  tensor(DType::I32, {3}, {1, 8, 3})},
                 {{DType::I32, {3}}},
                 {{"direction", std::string("left")}, {"width", int64_t(8)}});
  EXPECT_EQ(values(y[0]), (Values{144, 0, 1600 % 256}));
  auto r = runOk(
      "bit_shift",
      {tensor(DType::I32, {3}, {200, 200, 200}), tensor(DType::I32, {1}, {3})},
      {{DType::I32, {3}}},
      {{"direction", std::string("right")}, {"width", int64_t(8)}});
  EXPECT_EQ(values(r[0]), (Values{25, 25, 25}));
  // 64 bits in i64: -8 is 2^64 - 8, shifted right as unsigned.
  auto q = runOk("bit_shift",
                 {tensor(DType::I64, {1}, {-8}), tensor(DType::I64, {1}, {61})},
                 {{DType::I64, {1}}},
                 {{"direction", std::string("right")}, {"width", int64_t(64)}});
  EXPECT_EQ(values(q[0]), (Values{7}));
  expectCreateError(
      op("bit_shift", {{DType::I32, {3}}, {DType::I32, {3}}},
         {{DType::I32, {3}}},
         {{"direction", std::string("up")}, {"width", int64_t(8)}}),
      "unknown direction 'up'");
  expectCreateError(
      op("bit_shift", {{DType::I32, {3}}, {DType::I32, {3}}},
         {{DType::I32, {3}}},
         {{"direction", std::string("left")}, {"width", int64_t(64)}}),
      "wide enough for 64 bits");
  expectCreateError(
      op("bit_shift", {{DType::I32, {3}}, {DType::I32, {3}}},
         {{DType::I32, {3}}},
         {{"direction", std::string("left")}, {"width", int64_t(12)}}),
      "width 12 is not 8, 16, 32 or 64");
}

} // namespace
