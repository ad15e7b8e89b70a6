//===- NNTest.cpp - softmax, cross entropy, layer_norm, batch_norm --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

/// Naive softmax (or log-softmax) of `x` of `shape` along `axis`.
Values naiveSoftmax(const Values &x, const Shape &shape, int64_t axis,
                    bool log) {
  int64_t outer = 1, inner = 1, n = shape[axis];
  for (int64_t i = 0; i < axis; ++i)
    outer *= shape[i];
  for (size_t i = axis + 1; i < shape.size(); ++i)
    inner *= shape[i];
  Values y(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      double max = -INFINITY, sum = 0;
      for (int64_t j = 0; j < n; ++j)
        max = std::max(max, x[(o * n + j) * inner + i]);
      for (int64_t j = 0; j < n; ++j)
        sum += std::exp(x[(o * n + j) * inner + i] - max);
      for (int64_t j = 0; j < n; ++j) {
        double v = x[(o * n + j) * inner + i] - max;
        y[(o * n + j) * inner + i] =
            log ? v - std::log(sum) : std::exp(v) / sum;
      }
    }
  return y;
}

TEST(SoftmaxKernels, AlongEveryAxis) {
  Shape shape = {3, 7, 5};
  Values x = randomValues(count(shape), 1, -6, 6);
  for (bool log : {false, true})
    for (int64_t axis : {0, 1, 2, -1, -2})
      for (DType dtype : {DType::F32, DType::F64}) {
        SCOPED_TRACE(std::to_string(log) + " axis " + std::to_string(axis) +
                     " " + dtypeName(dtype));
        Values expected =
            naiveSoftmax(x, shape, axis < 0 ? axis + 3 : axis, log);
        auto out =
            runOk(log ? "log_softmax" : "softmax", {tensor(dtype, shape, x)},
                  {{dtype, shape}}, {{"axis", axis}});
        // oneDNN's f32 log is a polynomial approximation: log_softmax is
        // off by up to a few 1e-6 absolute.
        double atol = log && dtype == DType::F32 ? 1e-5 : 1e-6;
        EXPECT_TRUE(near(values(out[0]), expected, atol, 1e-5));
      }
}

TEST(SoftmaxKernels, DefaultAxisIsLast) {
  Values x = randomValues(13, 2, -3, 3);
  auto out = runOk("softmax", {f32({1, 13}, x)}, {{DType::F32, {1, 13}}});
  EXPECT_TRUE(near(values(out[0]), naiveSoftmax(x, {1, 13}, 1, false)));
  expectCreateError(op("softmax", {{DType::F32, {4, 5}}},
                       {{DType::F32, {4, 5}}}, {{"axis", int64_t(2)}}),
                    "axis 2 is out of range for rank 2");
  expectCreateError(op("softmax", {{DType::I32, {4}}}, {{DType::I32, {4}}}),
                    "needs a floating-point operand");
}

void checkCrossEntropy(DType dtype, DType labelType, const Shape &batch,
                       int64_t classes, unsigned seed) {
  SCOPED_TRACE(std::string(dtypeName(dtype)) + " labels " +
               dtypeName(labelType));
  Shape shape = batch;
  shape.push_back(classes);
  int64_t rows = count(batch);
  Values logits = randomValues(count(shape), seed, -5, 5);
  // One row with a huge margin: its loss must not be log(0).
  for (int64_t c = 0; c < classes; ++c)
    logits[c] = c == 0 ? 60 : -60;
  Values labels = randomInts(rows, seed + 1, 0, classes - 1);
  labels[0] = classes - 1;
  Values prob = naiveSoftmax(logits, {rows, classes}, 1, false);
  Values logProb = naiveSoftmax(logits, {rows, classes}, 1, true);
  Values loss(rows);
  for (int64_t r = 0; r < rows; ++r)
    loss[r] = -logProb[r * classes + int64_t(labels[r])];
  auto out =
      runOk("sparse_softmax_cross_entropy",
            {tensor(dtype, shape, logits), tensor(labelType, batch, labels)},
            {{dtype, shape}, {dtype, batch}});
  EXPECT_TRUE(near(values(out[0]), prob, 1e-6, 1e-5));
  EXPECT_TRUE(near(values(out[1]), loss, 1e-5, 1e-5));
  if (classes > 1) {
    EXPECT_NEAR(values(out[1])[0], 120.0, 1e-3);
  }
}

TEST(CrossEntropyKernel, MatchesNaive) {
  checkCrossEntropy(DType::F32, DType::I64, {64}, 10, 1);
  checkCrossEntropy(DType::F32, DType::I32, {3, 7}, 13, 2);
  checkCrossEntropy(DType::F64, DType::I64, {5}, 7, 3);
  checkCrossEntropy(DType::F32, DType::I32, {1}, 1, 4);
}

TEST(CrossEntropyKernel, LabelOutOfRangeFailsCompute) {
  OpDesc desc = op("sparse_softmax_cross_entropy",
                   {{DType::F32, {3, 4}}, {DType::I64, {3}}},
                   {{DType::F32, {3, 4}}, {DType::F32, {3}}});
  for (double bad : {4.0, -1.0}) {
    auto result = run(desc, {f32({3, 4}, Values(12, 0.5)),
                             tensor(DType::I64, {3}, {0, bad, 3})});
    expectError(result.status(),
                {"oneflow.sparse_softmax_cross_entropy",
                 "label " + std::to_string(int(bad)) + " at position 1",
                 "outside [0, 4)"});
  }
  expectCreateError(op("sparse_softmax_cross_entropy",
                       {{DType::F32, {3, 4}}, {DType::I64, {4}}},
                       {{DType::F32, {3, 4}}, {DType::F32, {3}}}),
                    "do not match the batch axes");
  expectCreateError(op("sparse_softmax_cross_entropy",
                       {{DType::F32, {3, 4}}, {DType::F32, {3}}},
                       {{DType::F32, {3, 4}}, {DType::F32, {3}}}),
                    "labels must be i32 or i64");
}

//===----------------------------------------------------------------------===//
// layer_norm
//===----------------------------------------------------------------------===//

struct LayerNormRef {
  Values y, mean, inv;
};

LayerNormRef naiveLayerNorm(const Values &x, const Shape &shape,
                            int64_t normAxis, int64_t paramsAxis,
                            const Values &gamma, const Values &beta,
                            double eps) {
  int64_t outer = 1, paramSize = 1;
  for (int64_t i = 0; i < normAxis; ++i)
    outer *= shape[i];
  for (size_t i = paramsAxis; i < shape.size(); ++i)
    paramSize *= shape[i];
  int64_t inner = count(shape) / outer;
  LayerNormRef r{Values(x.size()), Values(outer), Values(outer)};
  for (int64_t o = 0; o < outer; ++o) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < inner; ++i)
      mean += x[o * inner + i];
    mean /= inner;
    for (int64_t i = 0; i < inner; ++i)
      var += (x[o * inner + i] - mean) * (x[o * inner + i] - mean);
    var /= inner;
    r.mean[o] = mean;
    r.inv[o] = 1 / std::sqrt(var + eps);
    for (int64_t i = 0; i < inner; ++i) {
      int64_t flat = o * inner + i, p = flat % paramSize;
      r.y[flat] = (x[flat] - mean) * r.inv[o] * gamma[p] + beta[p];
    }
  }
  return r;
}

void checkLayerNorm(const Shape &shape, int64_t normAxis, int64_t paramsAxis,
                    bool defaults, unsigned seed) {
  SCOPED_TRACE("norm " + std::to_string(normAxis) + " params " +
               std::to_string(paramsAxis));
  int64_t rank = shape.size();
  int64_t na = normAxis < 0 ? normAxis + rank : normAxis;
  int64_t pa = paramsAxis < 0 ? paramsAxis + rank : paramsAxis;
  Shape paramShape(shape.begin() + pa, shape.end()),
      statShape(shape.begin(), shape.begin() + na);
  Values x = randomValues(count(shape), seed, -2, 3);
  Values gamma = randomValues(count(paramShape), seed + 1, 0.5, 1.5);
  Values beta = randomValues(count(paramShape), seed + 2, -1, 1);
  double eps = defaults ? 1e-5 : 0.1;
  LayerNormRef ref = naiveLayerNorm(x, shape, na, pa, gamma, beta, eps);
  std::map<std::string, AttrValue> attrs;
  if (!defaults)
    attrs = {{"begin_norm_axis", normAxis},
             {"begin_params_axis", paramsAxis},
             {"epsilon", eps}};
  auto out = runOk(
      "layer_norm",
      {f32(shape, x), f32(paramShape, gamma), f32(paramShape, beta)},
      {{DType::F32, shape}, {DType::F32, statShape}, {DType::F32, statShape}},
      attrs);
  EXPECT_TRUE(near(values(out[0]), ref.y, 1e-4, 1e-4));
  EXPECT_TRUE(near(values(out[1]), ref.mean, 1e-5, 1e-5));
  EXPECT_TRUE(near(values(out[2]), ref.inv, 1e-4, 1e-4));
}

TEST(LayerNormKernel, ParamsOnNormalizedAxes) {
  checkLayerNorm({2, 7, 13}, -1, -1, /*defaults=*/true, 1);
  checkLayerNorm({2, 7, 13}, 1, 1, false, 2);
  checkLayerNorm({5, 1, 3}, 0, 0, false, 3);
}

TEST(LayerNormKernel, ParamsOnOtherAxes) {
  // gamma/beta cover more axes than are normalized, and fewer.
  checkLayerNorm({2, 7, 13}, 2, 1, false, 4);
  checkLayerNorm({3, 7, 13}, 1, 2, false, 5);
  checkLayerNorm({4, 3, 5, 2}, 1, -1, false, 6);
}

TEST(LayerNormKernel, RejectsBadDescriptions) {
  TensorDesc x = {DType::F32, {2, 8}}, p = {DType::F32, {8}},
             s = {DType::F32, {2}};
  expectCreateError(op("layer_norm", {x, {DType::F32, {7}}, p}, {x, s, s}),
                    "gamma is 7xf32 but needs shape [8] of f32");
  expectCreateError(
      op("layer_norm", {x, p, p}, {x, s, s}, {{"begin_norm_axis", int64_t(2)}}),
      "begin_norm_axis 2 is out of range");
  expectCreateError(op("layer_norm", {x, p, p}, {x, x, s}),
                    "result 1 is 2x8xf32 but the op gives 2xf32");
  expectCreateError(op("layer_norm", {x, p}, {x, s, s}), "needs 3 operands");
}

//===----------------------------------------------------------------------===//
// batch_norm
//===----------------------------------------------------------------------===//

void checkBatchNorm(const Shape &shape, int64_t axis, bool training,
                    unsigned seed) {
  SCOPED_TRACE("axis " + std::to_string(axis) + " training " +
               std::to_string(training));
  int64_t rank = shape.size(), a = axis < 0 ? axis + rank : axis;
  int64_t channels = shape[a], inner = 1;
  for (int64_t i = a + 1; i < rank; ++i)
    inner *= shape[i];
  Values x = randomValues(count(shape), seed, -2, 4);
  Values gamma = randomValues(channels, seed + 1, 0.5, 1.5),
         beta = randomValues(channels, seed + 2, -1, 1),
         movingMean = randomValues(channels, seed + 3, -1, 1),
         movingVar = randomValues(channels, seed + 4, 0.5, 2);
  double eps = 1e-3;
  Values mean(channels, 0), var(channels, 0), n(channels, 0);
  for (int64_t i = 0; i < count(shape); ++i) {
    int64_t c = (i / inner) % channels;
    mean[c] += x[i];
    n[c] += 1;
  }
  for (int64_t c = 0; c < channels; ++c)
    mean[c] /= n[c];
  for (int64_t i = 0; i < count(shape); ++i) {
    int64_t c = (i / inner) % channels;
    var[c] += (x[i] - mean[c]) * (x[i] - mean[c]);
  }
  Values inv(channels);
  for (int64_t c = 0; c < channels; ++c) {
    var[c] /= n[c];
    if (!training) {
      mean[c] = movingMean[c];
      var[c] = movingVar[c];
    }
    inv[c] = 1 / std::sqrt(var[c] + eps);
  }
  Values y(x.size());
  for (int64_t i = 0; i < count(shape); ++i) {
    int64_t c = (i / inner) % channels;
    y[i] = (x[i] - mean[c]) * inv[c] * gamma[c] + beta[c];
  }
  std::map<std::string, AttrValue> attrs = {{"axis", axis}, {"epsilon", eps}};
  if (training)
    attrs["training"] = true;
  auto out = runOk(
      "batch_norm",
      {f32(shape, x), f32({channels}, gamma), f32({channels}, beta),
       f32({channels}, movingMean), f32({channels}, movingVar)},
      {{DType::F32, shape}, {DType::F32, {channels}}, {DType::F32, {channels}}},
      attrs);
  EXPECT_TRUE(near(values(out[0]), y, 1e-4, 1e-4));
  EXPECT_TRUE(near(values(out[1]), mean, 1e-5, 1e-5));
  EXPECT_TRUE(near(values(out[2]), inv, 1e-4, 1e-4));
}

TEST(BatchNormKernel, TrainingUsesBatchStatistics) {
  checkBatchNorm({4, 3, 5, 7}, 1, true, 1);
  checkBatchNorm({13, 7}, 1, true, 2);
  checkBatchNorm({2, 5, 3}, -1, true, 3);
  checkBatchNorm({1, 2, 1, 1}, 1, true, 4);
}

TEST(BatchNormKernel, InferenceUsesMovingStatistics) {
  checkBatchNorm({4, 3, 5, 7}, 1, false, 5);
  checkBatchNorm({6, 2, 3}, 0, false, 6);
}

TEST(BatchNormKernel, DefaultsAndErrors) {
  // Defaults: axis 1, epsilon 1e-5, inference.
  Values x = {1, 2, 3, 4};
  auto out =
      runOk("batch_norm",
            {f32({2, 2}, x), f32({2}, {1, 1}), f32({2}, {0, 0}),
             f32({2}, {1, 2}), f32({2}, {4, 9})},
            {{DType::F32, {2, 2}}, {DType::F32, {2}}, {DType::F32, {2}}});
  double i0 = 1 / std::sqrt(4 + 1e-5), i1 = 1 / std::sqrt(9 + 1e-5);
  EXPECT_TRUE(near(values(out[0]), {0, 0, 2 * i0, 2 * i1}));
  EXPECT_TRUE(near(values(out[2]), {i0, i1}));
  TensorDesc xd = {DType::F32, {2, 3}}, c = {DType::F32, {3}};
  expectCreateError(
      op("batch_norm", {xd, c, c, c, c}, {xd, c, c}, {{"momentum", 1.5}}),
      "momentum 1.5");
  expectCreateError(
      op("batch_norm", {xd, c, c, {DType::F32, {2}}, c}, {xd, c, c}),
      "moving_mean is 2xf32 but needs shape [3]");
  expectCreateError(op("batch_norm", {{DType::F32, {3}}, c, c, c, c},
                       {{DType::F32, {3}}, c, c}),
                    "rank 2 or more");
}

TEST(BatchNormKernel, StatisticsGroupsNormalizeEachGroupAlone) {
  // 3 groups of 2 rows of [6, 4, 5]: each equals batch_norm of its rows.
  Shape shape = {6, 4, 5}, group = {2, 4, 5};
  Values x = randomValues(count(shape), 7, -2, 4);
  Values gamma = randomValues(4, 8, 0.5, 1.5), beta = randomValues(4, 9, -1, 1);
  Values zeros(4, 0.0), ones(4, 1.0);
  std::map<std::string, AttrValue> attrs = {{"training", true},
                                            {"statistics_groups", int64_t(3)}};
  auto out = runOk(
      "batch_norm",
      {f32(shape, x), f32({4}, gamma), f32({4}, beta), f32({4}, zeros),
       f32({4}, ones)},
      {{DType::F32, shape}, {DType::F32, {3, 4}}, {DType::F32, {3, 4}}}, attrs);
  Values y = values(out[0]), mean = values(out[1]), inv = values(out[2]);
  size_t rows = count(group);
  for (size_t g = 0; g < 3; ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    Values part(x.begin() + g * rows, x.begin() + (g + 1) * rows);
    auto alone =
        runOk("batch_norm",
              {f32(group, part), f32({4}, gamma), f32({4}, beta),
               f32({4}, zeros), f32({4}, ones)},
              {{DType::F32, group}, {DType::F32, {4}}, {DType::F32, {4}}},
              {{"training", true}});
    EXPECT_TRUE(near(Values(y.begin() + g * rows, y.begin() + (g + 1) * rows),
                     values(alone[0]), 1e-6, 1e-6));
    EXPECT_TRUE(near(Values(mean.begin() + g * 4, mean.begin() + (g + 1) * 4),
                     values(alone[1]), 1e-6, 1e-6));
    EXPECT_TRUE(near(Values(inv.begin() + g * 4, inv.begin() + (g + 1) * 4),
                     values(alone[2]), 1e-6, 1e-6));
  }
}

TEST(BatchNormKernel, StatisticsGroupErrors) {
  TensorDesc x = {DType::F32, {8, 3}}, c = {DType::F32, {3}};
  TensorDesc four = {DType::F32, {4, 3}}, three = {DType::F32, {3, 3}};
  std::map<std::string, AttrValue> groups = {{"training", true},
                                             {"statistics_groups", int64_t(4)}};
  expectCreateError(op("batch_norm", {x, c, c, c, c}, {x, four, four},
                       {{"statistics_groups", int64_t(4)}}),
                    "statistics_groups 4 needs training");
  expectCreateError(op("batch_norm", {x, c, c, c, c}, {x, c, c}, groups),
                    "statistics of shape [3] are not groups x 3");
  // A layout that cuts a group: 8 local rows, 3 local groups.
  expectCreateError(
      op("batch_norm", {x, c, c, c, c}, {x, three, three}, groups),
      "this rank's 8 rows do not split into its 3 statistics "
      "groups");
  expectCreateError(op("batch_norm_grad", {x, x, three, three, c}, {x, c, c},
                       {{"statistics_groups", int64_t(4)}}),
                    "this rank's 8 rows do not split into its 3 statistics "
                    "groups");
}

} // namespace
