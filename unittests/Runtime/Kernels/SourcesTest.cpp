//===- SourcesTest.cpp - constant, fill, variable
//--------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include "ofrt/Random.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

/// `attrs` with the name every variable has (ODS requires one).
std::map<std::string, AttrValue> named(std::map<std::string, AttrValue> attrs) {
  attrs.emplace("name", std::string("w"));
  return attrs;
}

/// Creates the kernel and computes it at `steps`, expecting equal results.
TensorData source(const std::string &name, const TensorDesc &result,
                  std::map<std::string, AttrValue> attrs) {
  if (name == "variable")
    attrs = named(std::move(attrs));
  OpDesc desc = op(name, {}, {result}, std::move(attrs));
  auto kernel = create(desc);
  EXPECT_TRUE(kernel.ok()) << kernel.status();
  if (!kernel.ok())
    return {};
  auto first = compute(**kernel, desc, {}, 0);
  auto later = compute(**kernel, desc, {}, 5);
  EXPECT_TRUE(first.ok() && later.ok());
  if (!first.ok() || !later.ok())
    return {};
  EXPECT_EQ((*first)[0].bytes, (*later)[0].bytes) << "changed between steps";
  return (*first)[0];
}

TEST(ConstantKernel, ValueAndSplat) {
  TensorData value = tensor(DType::I64, {2, 3}, {1, -2, 3, -4, 5, 1e15});
  EXPECT_EQ(values(source("constant", value.desc, {{"value", value}})),
            values(value));
  TensorData splat = f32({}, {0.25});
  EXPECT_EQ(
      values(source("constant", {DType::F32, {3, 2}}, {{"value", splat}})),
      Values(6, 0.25));
  expectCreateError(
      op("constant", {}, {{DType::F32, {3}}}, {{"value", f32({2}, {1, 2})}}),
      "value of type 2xf32 does not match the result 3xf32");
  expectCreateError(op("constant", {}, {{DType::F32, {3}}}),
                    "needs attribute 'value'");
}

TEST(FillKernel, EveryType) {
  EXPECT_EQ(values(source("fill", {DType::F32, {2, 3}}, {{"value", -1.5}})),
            Values(6, -1.5));
  EXPECT_EQ(values(source("fill", {DType::F64, {4}}, {{"value", 0.1}})),
            Values(4, 0.1));
  EXPECT_EQ(values(source("fill", {DType::I32, {3}}, {{"value", 7.0}})),
            Values(3, 7));
  EXPECT_EQ(values(source("fill", {DType::Bool, {3}}, {{"value", 2.0}})),
            Values(3, 1));
  EXPECT_EQ(values(source("fill", {DType::BF16, {3}}, {{"value", 1.5}})),
            Values(3, 1.5));
  EXPECT_EQ(values(source("fill", {DType::F32, {}}, {{"value", 3.0}})),
            Values{3});
}

TEST(VariableKernel, ValueAttribute) {
  TensorData value = f32({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values(source("variable", value.desc, {{"value", value}})),
            values(value));
  expectCreateError(
      op("variable", {}, {value.desc},
         named({{"value", value}, {"init", std::string("zeros")}})),
      "needs exactly one of 'init' and 'value'");
}

TEST(VariableKernel, DeterministicInitializers) {
  auto init = [](const TensorDesc &desc, const std::string &kind,
                 std::vector<double> args) {
    return values(
        source("variable", desc, {{"init", kind}, {"init_args", args}}));
  };
  EXPECT_EQ(init({DType::F32, {3, 2}}, "zeros", {}), Values(6, 0));
  EXPECT_EQ(init({DType::I64, {4}}, "ones", {}), Values(4, 1));
  EXPECT_EQ(init({DType::F32, {5}}, "constant", {0.5}), Values(5, 0.5));
}

/// Mean, standard deviation, min and max.
struct Stats {
  double mean, std, min, max;
};
Stats stats(const Values &v) {
  Stats s{0, 0, INFINITY, -INFINITY};
  for (double x : v) {
    s.mean += x;
    s.min = std::min(s.min, x);
    s.max = std::max(s.max, x);
  }
  s.mean /= v.size();
  for (double x : v)
    s.std += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(s.std / v.size());
  return s;
}

TEST(VariableKernel, RandomInitializers) {
  auto init = [](const Shape &shape, const std::string &kind,
                 std::vector<double> args, int64_t seed) {
    return values(
        source("variable", {DType::F32, shape},
               {{"init", kind}, {"init_args", args}, {"seed", seed}}));
  };
  Values u = init({200, 300}, "uniform", {-0.1, 0.3}, 1);
  Stats su = stats(u);
  EXPECT_GE(su.min, -0.1);
  EXPECT_LT(su.max, 0.3);
  EXPECT_NEAR(su.mean, 0.1, 0.002);
  EXPECT_NEAR(su.std, 0.4 / std::sqrt(12.0), 0.002);

  Stats sn = stats(init({200, 300}, "normal", {1.0, 0.5}, 2));
  EXPECT_NEAR(sn.mean, 1.0, 0.01);
  EXPECT_NEAR(sn.std, 0.5, 0.01);

  // xavier: bound sqrt(6 / (fan_in + fan_out)); [in, out] for rank 2.
  double bound = std::sqrt(6.0 / (64 + 128));
  Stats sx = stats(init({64, 128}, "xavier_uniform", {}, 3));
  EXPECT_LE(sx.max, bound);
  EXPECT_GE(sx.min, -bound);
  EXPECT_GT(sx.max, 0.98 * bound);
  EXPECT_LT(sx.min, -0.98 * bound);
  // kaiming on a conv weight [F, C, kh, kw]: bound sqrt(6 / (C * kh * kw)).
  double kbound = std::sqrt(6.0 / (3 * 9));
  Stats sk = stats(init({64, 3, 3, 3}, "kaiming_uniform", {}, 4));
  EXPECT_LE(sk.max, kbound);
  EXPECT_GE(sk.min, -kbound);
  EXPECT_GT(sk.max, 0.98 * kbound);
  // xavier on a conv weight: fan_in = 3 * 9, fan_out = 64 * 9.
  double xbound = std::sqrt(6.0 / (27 + 576));
  Stats sxc = stats(init({64, 3, 3, 3}, "xavier_uniform", {}, 4));
  EXPECT_LE(sxc.max, xbound);
  EXPECT_GT(sxc.max, 0.98 * xbound);

  // Seeds matter; the same seed gives the same values.
  EXPECT_NE(init({10}, "normal", {0, 1}, 5), init({10}, "normal", {0, 1}, 6));
  EXPECT_EQ(init({10}, "normal", {0, 1}, 5), init({10}, "normal", {0, 1}, 5));
}

TEST(VariableKernel, ValuesAreFunctionsOfTheLogicalIndex) {
  // A bigger variable with the same seed starts with the smaller one's
  // values (uniform and normal do not depend on the shape) ...
  for (const char *kind : {"uniform", "normal"}) {
    std::vector<double> args = {0.0, 1.0};
    Values small = values(source("variable", {DType::F32, {10, 20}},
                                 {{"init", std::string(kind)},
                                  {"init_args", args},
                                  {"seed", int64_t(9)}}));
    Values big = values(source("variable", {DType::F32, {30, 20}},
                               {{"init", std::string(kind)},
                                {"init_args", args},
                                {"seed", int64_t(9)}}));
    EXPECT_EQ(small, Values(big.begin(), big.begin() + 200)) << kind;
  }
  // ... and every element is initialValue() of its index, which is how a
  // rank holding a piece of a sharded variable computes its part.
  Initializer init{"kaiming_uniform", {}};
  Shape shape = {8, 3, 2, 2};
  Values v = values(source("variable", {DType::F64, shape},
                           {{"init", init.kind}, {"seed", int64_t(12)}}));
  for (size_t i = 0; i < v.size(); ++i)
    ASSERT_EQ(v[i], initialValue(init, shape, 12, i)) << i;
}

TEST(VariableKernel, RejectsBadInitializers) {
  auto desc = [](TensorDesc result, std::string kind,
                 std::vector<double> args) {
    return op("variable", {}, {result},
              named({{"init", kind}, {"init_args", args}}));
  };
  expectCreateError(desc({DType::F32, {4}}, "orthogonal", {}),
                    "unknown initializer 'orthogonal'");
  expectCreateError(desc({DType::F32, {4}}, "uniform", {0}),
                    "initializer 'uniform' takes 2 arguments, got 1");
  expectCreateError(desc({DType::I32, {4}}, "normal", {0, 1}),
                    "needs a floating-point variable");
  expectCreateError(desc({DType::F32, {4}}, "xavier_uniform", {}),
                    "needs a variable of rank 2 or more");
  expectCreateError(op("variable", {}, {{DType::F32, {4}}},
                       named({{"init", std::string("zeros")}, {"seed", 1.5}})),
                    "attribute 'seed' must be an integer");
}

} // namespace
