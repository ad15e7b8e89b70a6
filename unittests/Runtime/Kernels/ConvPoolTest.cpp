//===- ConvPoolTest.cpp - conv2d and the pools
//-----------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

using Ints = std::vector<int64_t>;

struct ConvCase {
  Shape x, w;
  Ints strides, pads, dilations;
  int64_t groups;
  bool bias;
};

/// The dialect's output size rule (lib/Dialect/IR/ConvOps.cpp).
int64_t outSize(int64_t in, int64_t k, int64_t s, int64_t p0, int64_t p1,
                int64_t d, bool ceil) {
  int64_t padded = in + p0 + p1, span = d * (k - 1) + 1, steps = padded - span;
  int64_t out = (ceil ? (steps + s - 1) / s : steps / s) + 1;
  if (ceil && (out - 1) * s >= in + p0)
    --out;
  return out;
}

Values naiveConv(const ConvCase &c, const Values &x, const Values &w,
                 const Values &b, Shape &outShape) {
  int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
  int64_t F = c.w[0], Cg = c.w[1], KH = c.w[2], KW = c.w[3];
  int64_t OH =
      outSize(H, KH, c.strides[0], c.pads[0], c.pads[2], c.dilations[0], false);
  int64_t OW =
      outSize(W, KW, c.strides[1], c.pads[1], c.pads[3], c.dilations[1], false);
  outShape = {N, F, OH, OW};
  int64_t Fg = F / c.groups;
  Values y(count(outShape));
  for (int64_t n = 0; n < N; ++n)
    for (int64_t f = 0; f < F; ++f)
      for (int64_t oh = 0; oh < OH; ++oh)
        for (int64_t ow = 0; ow < OW; ++ow) {
          double sum = c.bias ? b[f] : 0;
          int64_t g = f / Fg;
          for (int64_t ci = 0; ci < Cg; ++ci)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih =
                    oh * c.strides[0] - c.pads[0] + kh * c.dilations[0];
                int64_t iw =
                    ow * c.strides[1] - c.pads[1] + kw * c.dilations[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                sum += x[((n * C + g * Cg + ci) * H + ih) * W + iw] *
                       w[((f * Cg + ci) * KH + kh) * KW + kw];
              }
          y[((n * F + f) * OH + oh) * OW + ow] = sum;
        }
  return y;
}

void checkConv(const ConvCase &c, unsigned seed, bool explicitAttrs = true) {
  SCOPED_TRACE("conv seed " + std::to_string(seed));
  Values x = randomValues(count(c.x), seed),
         w = randomValues(count(c.w), seed + 1);
  Values b = randomValues(c.w[0], seed + 2);
  Shape outShape;
  Values expected = naiveConv(c, x, w, b, outShape);
  std::vector<TensorData> inputs = {f32(c.x, x), f32(c.w, w)};
  if (c.bias)
    inputs.push_back(f32({c.w[0]}, b));
  std::map<std::string, AttrValue> attrs;
  if (explicitAttrs)
    attrs = {{"strides", c.strides},
             {"pads", c.pads},
             {"dilations", c.dilations},
             {"groups", c.groups}};
  auto out = runOk("conv2d", inputs, {{DType::F32, outShape}}, attrs);
  EXPECT_TRUE(near(values(out[0]), expected, 1e-4, 1e-4));
}

TEST(Conv2DKernel, Defaults) {
  checkConv(
      {{1, 3, 7, 13}, {5, 3, 3, 3}, {1, 1}, {0, 0, 0, 0}, {1, 1}, 1, false}, 1,
      /*explicitAttrs=*/false);
}

TEST(Conv2DKernel, StridesPadsDilationsGroups) {
  checkConv(
      {{2, 6, 11, 9}, {4, 3, 3, 2}, {2, 1}, {1, 0, 2, 1}, {1, 2}, 2, true}, 2);
  // Depthwise.
  checkConv({{2, 4, 5, 5}, {4, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 4, true},
            3);
  // 1x1 and a kernel as large as the padded input.
  checkConv({{3, 5, 4, 6}, {7, 5, 1, 1}, {1, 2}, {0, 0, 0, 0}, {1, 1}, 1, true},
            4);
  checkConv(
      {{1, 2, 3, 3}, {3, 2, 5, 5}, {1, 1}, {1, 1, 1, 1}, {1, 1}, 1, false}, 5);
  checkConv(
      {{2, 8, 17, 16}, {16, 4, 3, 3}, {2, 2}, {1, 1, 1, 1}, {3, 3}, 2, true},
      6);
  // Channels and filters in multiples of 16: the nChw16c path.
  checkConv(
      {{2, 16, 9, 7}, {32, 16, 3, 3}, {1, 2}, {1, 1, 0, 1}, {1, 1}, 1, true},
      7);
  checkConv(
      {{1, 32, 6, 6}, {16, 32, 3, 3}, {1, 1}, {1, 1, 1, 1}, {2, 2}, 1, false},
      8);
}

TEST(Conv2DKernel, RejectsBadDescriptions) {
  TensorDesc x = {DType::F32, {1, 6, 8, 8}}, w = {DType::F32, {4, 3, 3, 3}};
  TensorDesc y = {DType::F32, {1, 4, 6, 6}};
  expectCreateError(op("conv2d", {x, w}, {y}, {{"groups", int64_t(4)}}),
                    "groups 4 must divide the input channels (6)");
  expectCreateError(op("conv2d", {x, w}, {y}),
                    "has 3 channels per group, the input 6");
  expectCreateError(op("conv2d", {x, w}, {{DType::F32, {1, 4, 5, 6}}},
                       {{"groups", int64_t(2)}}),
                    "result 0 is 1x4x5x6xf32 but the op gives 1x4x6x6xf32");
  expectCreateError(
      op("conv2d", {x, w}, {y}, {{"groups", int64_t(2)}, {"pads", Ints{1, 1}}}),
      "pads needs 4 values, got 2");
  expectCreateError(op("conv2d", {x, w}, {y},
                       {{"groups", int64_t(2)}, {"dilations", Ints{5, 1}}}),
                    "window of 11 does not fit the padded input of 8");
  expectCreateError(
      op("conv2d", {x, w, {DType::F32, {3}}}, {y}, {{"groups", int64_t(2)}}),
      "bias is 3xf32, needs [4]");
}

//===----------------------------------------------------------------------===//
// Pools
//===----------------------------------------------------------------------===//

struct PoolCase {
  Shape x;
  Ints kernel, strides, pads, dilations;
  bool ceil, includePad;
};

/// Naive pooling with PyTorch's rules: max over the window inside the
/// input; average over it, divided by the window clipped to input + given
/// padding (count_include_pad) or by the elements inside the input.
Values naivePool(const PoolCase &c, const Values &x, bool isMax,
                 Shape &outShape) {
  int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
  int64_t OH = outSize(H, c.kernel[0], c.strides[0], c.pads[0], c.pads[2],
                       c.dilations[0], c.ceil);
  int64_t OW = outSize(W, c.kernel[1], c.strides[1], c.pads[1], c.pads[3],
                       c.dilations[1], c.ceil);
  outShape = {N, C, OH, OW};
  Values y(count(outShape));
  for (int64_t p = 0; p < N * C; ++p)
    for (int64_t oh = 0; oh < OH; ++oh)
      for (int64_t ow = 0; ow < OW; ++ow) {
        int64_t h0 = oh * c.strides[0] - c.pads[0];
        int64_t w0 = ow * c.strides[1] - c.pads[1];
        double acc = isMax ? -INFINITY : 0;
        int64_t inside = 0;
        for (int64_t kh = 0; kh < c.kernel[0]; ++kh)
          for (int64_t kw = 0; kw < c.kernel[1]; ++kw) {
            int64_t ih = h0 + kh * c.dilations[0],
                    iw = w0 + kw * c.dilations[1];
            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
              continue;
            double v = x[(p * H + ih) * W + iw];
            acc = isMax ? std::max(acc, v) : acc + v;
            ++inside;
          }
        if (!isMax) {
          int64_t hEnd = std::min(h0 + c.kernel[0], H + c.pads[2]);
          int64_t wEnd = std::min(w0 + c.kernel[1], W + c.pads[3]);
          int64_t padded = (hEnd - h0) * (wEnd - w0);
          acc /= c.includePad ? padded : inside;
        }
        y[(p * OH + oh) * OW + ow] = acc;
      }
  return y;
}

void checkPool(const PoolCase &c, bool isMax, unsigned seed) {
  SCOPED_TRACE(std::string(isMax ? "max" : "avg") + " seed " +
               std::to_string(seed));
  Values x = randomValues(count(c.x), seed, -5, 5);
  Shape outShape;
  Values expected = naivePool(c, x, isMax, outShape);
  std::map<std::string, AttrValue> attrs = {
      {"kernel_size", c.kernel}, {"strides", c.strides}, {"pads", c.pads}};
  if (isMax)
    attrs["dilations"] = c.dilations;
  if (c.ceil)
    attrs["ceil_mode"] = true;
  if (c.includePad)
    attrs["count_include_pad"] = true;
  auto out = runOk(isMax ? "max_pool2d" : "avg_pool2d", {f32(c.x, x)},
                   {{DType::F32, outShape}}, attrs);
  EXPECT_TRUE(near(values(out[0]), expected, 1e-5, 1e-5));
}

TEST(MaxPool2DKernel, PadsDilationsCeilMode) {
  for (bool ceil : {false, true}) {
    checkPool(
        {{2, 3, 11, 9}, {3, 2}, {2, 2}, {1, 0, 1, 1}, {2, 1}, ceil, false},
        true, 1);
    checkPool(
        {{1, 2, 10, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, ceil, false},
        true, 2);
    checkPool({{1, 1, 7, 7}, {3, 3}, {3, 3}, {1, 1, 1, 1}, {1, 1}, ceil, false},
              true, 3);
  }
  // ceil_mode really adds a window here: 9 -> 5 instead of 4.
  Shape outShape;
  naivePool({{1, 1, 9, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, true, false},
            Values(81), true, outShape);
  EXPECT_EQ(outShape, (Shape{1, 1, 5, 5}));
}

TEST(MaxPool2DKernel, DefaultsAndErrors) {
  Values x = randomValues(2 * 13, 4);
  Values expected;
  for (int64_t i = 0; i < 2 * 12; ++i)
    expected.push_back(
        std::max(x[i / 12 * 13 + i % 12], x[i / 12 * 13 + i % 12 + 1]));
  auto out =
      runOk("max_pool2d", {f32({1, 1, 2, 13}, x)},
            {{DType::F32, {1, 1, 2, 12}}}, {{"kernel_size", Ints{1, 2}}});
  EXPECT_TRUE(near(values(out[0]), expected));
  expectCreateError(op("max_pool2d", {{DType::F32, {1, 1, 4, 4}}},
                       {{DType::F32, {1, 1, 2, 2}}}),
                    "needs attribute 'kernel_size'");
  expectCreateError(op("max_pool2d", {{DType::F32, {1, 4, 4}}},
                       {{DType::F32, {1, 2, 2}}},
                       {{"kernel_size", Ints{2, 2}}}),
                    "input must be NCHW (rank 4)");
  expectCreateError(op("avg_pool2d", {{DType::F32, {1, 1, 4, 4}}},
                       {{DType::F32, {1, 1, 3, 3}}},
                       {{"kernel_size", Ints{2, 2}}, {"strides", Ints{2, 2}}}),
                    "result 0 is 1x1x3x3xf32 but the op gives 1x1x2x2xf32");
}

TEST(AvgPool2DKernel, CountIncludePadAndCeilMode) {
  unsigned seed = 10;
  for (bool ceil : {false, true})
    for (bool include : {false, true}) {
      checkPool(
          {{2, 3, 10, 9}, {3, 2}, {2, 2}, {1, 0, 1, 0}, {1, 1}, ceil, include},
          false, seed++);
      checkPool(
          {{1, 2, 11, 13}, {3, 3}, {2, 3}, {1, 1, 1, 1}, {1, 1}, ceil, include},
          false, seed++);
      checkPool(
          {{1, 1, 9, 9}, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, ceil, include},
          false, seed++);
      checkPool(
          {{1, 1, 5, 6}, {3, 3}, {2, 2}, {0, 1, 2, 0}, {1, 1}, ceil, include},
          false, seed++);
    }
}

TEST(GlobalAvgPool2DKernel, MeanOverSpace) {
  Shape shape = {2, 3, 7, 5};
  Values x = randomValues(count(shape), 5);
  Values expected(6, 0);
  for (int64_t i = 0; i < count(shape); ++i)
    expected[i / 35] += x[i] / 35;
  auto out =
      runOk("global_avg_pool2d", {f32(shape, x)}, {{DType::F32, {2, 3, 1, 1}}});
  EXPECT_TRUE(near(values(out[0]), expected));
  expectCreateError(
      op("global_avg_pool2d", {{DType::F32, shape}}, {{DType::F32, {2, 3}}}),
      "result 0 is 2x3xf32 but the op gives 2x3x1x1xf32");
}

} // namespace
