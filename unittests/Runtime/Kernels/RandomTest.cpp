//===- RandomTest.cpp - Counter-based RNG and dropout
//----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include "ofrt/Random.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

TEST(CounterRng, SplitMix64ReferenceValues) {
  // The first outputs of the reference splitmix64 generator seeded with 0
  // are mix(1 * golden), mix(2 * golden), ...; splitmix64(x) mixes x + golden.
  EXPECT_EQ(splitmix64(0), 0xE220A8397B1DCDAFull);
  EXPECT_EQ(splitmix64(0x9E3779B97F4A7C15ull), 0x6E789E6AA1B965F4ull);
}

TEST(CounterRng, ValuesDependOnlyOnTheLogicalIndex) {
  // Generating 10 or 10,000 values, forwards or backwards, or one index on
  // its own gives the same value at each index.
  std::vector<double> many, few, backwards(10000);
  for (uint64_t i = 0; i < 10000; ++i)
    many.push_back(randomUniform(42, 3, i));
  for (uint64_t i = 0; i < 10; ++i)
    few.push_back(randomUniform(42, 3, i));
  for (uint64_t i = 10000; i-- > 0;)
    backwards[i] = randomUniform(42, 3, i);
  EXPECT_EQ(std::vector<double>(many.begin(), many.begin() + 10), few);
  EXPECT_EQ(many, backwards);
  EXPECT_EQ(randomUniform(42, 3, 7777), many[7777]);
  EXPECT_EQ(randomNormal(42, 3, 5), randomNormal(42, 3, 5));
}

TEST(CounterRng, SeedsStreamsAndIndicesAreIndependent) {
  int sameSeed = 0, sameStream = 0;
  for (uint64_t i = 0; i < 1000; ++i) {
    sameSeed += randomBits(1, 0, i) == randomBits(2, 0, i);
    sameStream += randomBits(1, 0, i) == randomBits(1, 1, i);
  }
  EXPECT_EQ(sameSeed, 0);
  EXPECT_EQ(sameStream, 0);
  // Swapping seed and stream, or seed and index, changes the value.
  EXPECT_NE(randomBits(1, 2, 3), randomBits(2, 1, 3));
  EXPECT_NE(randomBits(1, 2, 3), randomBits(3, 2, 1));
}

TEST(CounterRng, UniformAndNormalStatistics) {
  const int n = 200000;
  double sum = 0, sumSq = 0, lag = 0, prev = 0;
  double nSum = 0, nSumSq = 0, within1 = 0;
  double minU = 1, maxU = 0;
  for (int i = 0; i < n; ++i) {
    double u = randomUniform(7, 0, i);
    minU = std::min(minU, u);
    maxU = std::max(maxU, u);
    sum += u;
    sumSq += u * u;
    lag += (u - 0.5) * (prev - 0.5);
    prev = u;
    double z = randomNormal(7, 0, i);
    nSum += z;
    nSumSq += z * z;
    within1 += std::abs(z) < 1;
  }
  EXPECT_GE(minU, 0.0);
  EXPECT_LT(maxU, 1.0);
  EXPECT_NEAR(sum / n, 0.5, 0.005);
  EXPECT_NEAR(sumSq / n - 0.25, 1.0 / 12, 0.003);
  EXPECT_NEAR(lag / n, 0.0, 0.002); // neighbours are uncorrelated
  EXPECT_NEAR(nSum / n, 0.0, 0.01);
  EXPECT_NEAR(nSumSq / n, 1.0, 0.02);
  EXPECT_NEAR(within1 / n, 0.6827, 0.005);
}

TEST(Initializers, FansAndChecks) {
  int64_t fanIn, fanOut;
  initializerFans({64, 128}, fanIn, fanOut);
  EXPECT_EQ(fanIn, 64);
  EXPECT_EQ(fanOut, 128);
  initializerFans({16, 3, 5, 7}, fanIn, fanOut);
  EXPECT_EQ(fanIn, 3 * 35);
  EXPECT_EQ(fanOut, 16 * 35);
  EXPECT_TRUE(checkInitializer({"normal", {0, 0.02}}, {4}, true).ok());
  EXPECT_FALSE(checkInitializer({"normal", {0}}, {4}, true).ok());
  EXPECT_FALSE(checkInitializer({"normal", {0, -1}}, {4}, true).ok());
  EXPECT_FALSE(checkInitializer({"uniform", {1, 0}}, {4}, true).ok());
  EXPECT_FALSE(checkInitializer({"uniform", {0, 1}}, {4}, false).ok());
  EXPECT_TRUE(checkInitializer({"ones", {}}, {4}, false).ok());
  EXPECT_FALSE(checkInitializer({"xavier_uniform", {}}, {4}, true).ok());
  EXPECT_FALSE(checkInitializer({"orthogonal", {}}, {4, 4}, true).ok());
}

//===----------------------------------------------------------------------===//
// dropout
//===----------------------------------------------------------------------===//

std::vector<TensorData> dropout(const Shape &shape, const Values &x,
                                double rate, int64_t seed, int64_t step) {
  OpDesc desc = op("dropout", {{DType::F32, shape}},
                   {{DType::F32, shape}, {DType::Bool, shape}},
                   {{"rate", rate}, {"seed", seed}});
  auto out = run(desc, {f32(shape, x)}, step);
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<TensorData>(2);
}

TEST(DropoutKernel, MaskRateAndScaling) {
  const int64_t n = 100000;
  Values x = randomValues(n, 1, 0.5, 2);
  for (double rate : {0.1, 0.3, 0.5, 0.9}) {
    SCOPED_TRACE("rate " + std::to_string(rate));
    auto out = dropout({n}, x, rate, 11, 0);
    Values y = values(out[0]), mask = values(out[1]);
    double kept = 0;
    float scale = static_cast<float>(1.0 / (1.0 - rate));
    int wrong = 0;
    for (int64_t i = 0; i < n; ++i) {
      kept += mask[i];
      float want = mask[i] ? static_cast<float>(x[i]) * scale : 0.0f;
      wrong += y[i] != want || (mask[i] != 0 && mask[i] != 1);
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_NEAR(kept / n, 1 - rate, 0.006);
  }
}

TEST(DropoutKernel, MaskDependsOnSeedStepAndLogicalIndexOnly) {
  Values x(1000, 1.0);
  Values a = values(dropout({1000}, x, 0.5, 3, 7)[1]);
  // The contract that other layouts rely on: element i is kept when
  // randomUniform(seed, step, i) >= rate.
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a[i], randomUniform(3, 7, i) >= 0.5 ? 1.0 : 0.0) << i;
  // Same seed and step: same mask, whatever the shape or the length.
  EXPECT_EQ(values(dropout({10, 100}, x, 0.5, 3, 7)[1]), a);
  Values prefix = values(dropout({400}, Values(400, 1.0), 0.5, 3, 7)[1]);
  EXPECT_EQ(prefix, Values(a.begin(), a.begin() + 400));
  // Another step or seed: a different mask (about half the entries differ).
  for (auto [seed, step] : {std::pair<int64_t, int64_t>{3, 8}, {4, 7}}) {
    Values b = values(dropout({1000}, x, 0.5, seed, step)[1]);
    int differ = 0;
    for (size_t i = 0; i < a.size(); ++i)
      differ += a[i] != b[i];
    EXPECT_GT(differ, 400);
    EXPECT_LT(differ, 600);
  }
}

TEST(DropoutKernel, DefaultsAndErrors) {
  // Defaults: rate 0.5, seed 0.
  OpDesc desc = op("dropout", {{DType::F32, {20000}}},
                   {{DType::F32, {20000}}, {DType::Bool, {20000}}});
  auto out = run(desc, {f32({20000}, Values(20000, 3.0))});
  ASSERT_TRUE(out.ok()) << out.status();
  Values y = values((*out)[0]);
  double kept = std::count(y.begin(), y.end(), 6.0);
  EXPECT_EQ(kept + std::count(y.begin(), y.end(), 0.0), 20000);
  EXPECT_NEAR(kept / 20000, 0.5, 0.02);
  // rate 0 keeps everything unscaled.
  Values x = randomValues(50, 2);
  auto none = dropout({50}, x, 0.0, 1, 0);
  EXPECT_EQ(values(none[0]), x);
  EXPECT_EQ(values(none[1]), Values(50, 1.0));
  expectCreateError(op("dropout", {{DType::F32, {4}}},
                       {{DType::F32, {4}}, {DType::Bool, {4}}},
                       {{"rate", 1.0}}),
                    "rate 1.000000 is outside [0, 1)");
  expectCreateError(op("dropout", {{DType::F32, {4}}},
                       {{DType::F32, {4}}, {DType::F32, {4}}}),
                    "result 1 is 4xf32 but the op gives 4xi1");
}

} // namespace
