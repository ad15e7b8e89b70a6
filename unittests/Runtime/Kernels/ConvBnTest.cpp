//===- ConvBnTest.cpp - conv2d_bn against the unfused kernels -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// conv2d_bn must equal conv2d -> batch_norm (inference) [-> add] [-> relu]
// run kernel by kernel (each of those is tested against plain loops in
// ConvPoolTest.cpp, NNTest.cpp and ElementwiseTest.cpp), including when its
// weights or statistics change between steps.
//
//===----------------------------------------------------------------------===//

#include "ConvUtils.h"
#include "KernelTestUtils.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

using Ints = std::vector<int64_t>;

struct ConvBnCase {
  Shape x, w;
  Ints strides, pads;
  int64_t groups;
  bool addend, relu;
};

/// The inputs of one step: x, weight, gamma, beta, mean, variance[, addend].
std::vector<TensorData> makeInputs(const ConvBnCase &c, const Shape &yShape,
                                   unsigned seed) {
  int64_t filters = c.w[0];
  std::vector<TensorData> inputs = {
      f32(c.x, randomValues(count(c.x), seed)),
      f32(c.w, randomValues(count(c.w), seed + 1)),
      f32({filters}, randomValues(filters, seed + 2, 0.5, 2.0)),
      f32({filters}, randomValues(filters, seed + 3)),
      f32({filters}, randomValues(filters, seed + 4)),
      f32({filters}, randomValues(filters, seed + 5, 0.1, 3.0))};
  if (c.addend)
    inputs.push_back(f32(yShape, randomValues(count(yShape), seed + 6)));
  return inputs;
}

std::map<std::string, AttrValue> convAttrs(const ConvBnCase &c) {
  return {{"strides", c.strides}, {"pads", c.pads}, {"groups", c.groups}};
}

/// The unfused kernels, one after the other.
Values unfused(const ConvBnCase &c, const Shape &yShape,
               const std::vector<TensorData> &in, double eps) {
  TensorDesc y = {DType::F32, yShape}, stat = {DType::F32, {c.w[0]}};
  TensorData conv =
      runOk("conv2d", {in[0], in[1]}, {y}, convAttrs(c)).front();
  TensorData out = runOk("batch_norm", {conv, in[2], in[3], in[4], in[5]},
                         {y, stat, stat}, {{"epsilon", eps}})
                       .front();
  if (c.addend)
    out = runOk("add", {out, in[6]}, {y}).front();
  if (c.relu)
    out = runOk("relu", {out}, {y}).front();
  return values(out);
}

/// NCHW values in the blocked order the kernel uses on this machine,
/// (N, C / B, H, W, B): nChw16c with AVX-512, nChw8c below.
Values toBlocked(const Values &v, const Shape &shape) {
  int64_t B = cpu::blockedChannels();
  int64_t C = shape[1], HW = shape[2] * shape[3];
  Values out(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    int64_t n = i / (C * HW), c = i / HW % C, hw = i % HW;
    out[((n * (C / B) + c / B) * HW + hw) * B + c % B] = v[i];
  }
  return out;
}

/// One conv2d_bn kernel over three steps: new inputs, then new parameters
/// with the same x, then the same parameters with a new x. With `blockedX`
/// the kernel reads x blocked (toBlocked), with `blockedResult` it writes it.
void checkConvBn(const ConvBnCase &c, const Shape &yShape, unsigned seed,
                 bool blockedX = false, bool blockedResult = false) {
  SCOPED_TRACE("conv2d_bn seed " + std::to_string(seed));
  double eps = 1e-3;
  std::map<std::string, AttrValue> attrs = convAttrs(c);
  attrs["epsilon"] = eps;
  if (c.relu)
    attrs["relu"] = true;
  if (blockedX)
    attrs["blocked_x"] = true;
  if (blockedResult)
    attrs["blocked_result"] = true;
  std::vector<TensorData> inputs = makeInputs(c, yShape, seed);
  OpDesc desc = op("conv2d_bn", descs(inputs), {{DType::F32, yShape}}, attrs);
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<TensorData> changed = makeInputs(c, yShape, seed + 100);
  for (int step = 0; step < 3; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    if (step == 1) // The weights and statistics change, x stays.
      for (size_t i = 1; i < 6; ++i)
        inputs[i] = changed[i];
    if (step == 2) // x and the addend change, the parameters stay.
      for (size_t i : {size_t(0), size_t(6)})
        if (i < inputs.size())
          inputs[i] = changed[i];
    std::vector<TensorData> kernelInputs = inputs;
    if (blockedX)
      kernelInputs[0] = f32(c.x, toBlocked(values(inputs[0]), c.x));
    auto out = compute(**kernel, desc, kernelInputs, step);
    ASSERT_TRUE(out.ok()) << out.status();
    Values expected = unfused(c, yShape, inputs, eps);
    if (blockedResult)
      expected = toBlocked(expected, yShape);
    EXPECT_TRUE(near(values((*out)[0]), expected, 1e-4, 1e-4));
  }
}

TEST(Conv2DBnKernel, MatchesUnfusedBlocked) {
  // Channels and filters in multiples of 16: oneDNN's blocked layouts,
  // with the addend reordered into the destination.
  checkConvBn({{2, 16, 9, 7}, {32, 16, 3, 3}, {1, 1}, {1, 1, 1, 1}, 1, false,
               true},
              {2, 32, 9, 7}, 1);
  checkConvBn({{2, 32, 6, 5}, {32, 32, 3, 3}, {1, 1}, {1, 1, 1, 1}, 1, true,
               true},
              {2, 32, 6, 5}, 2);
  checkConvBn({{1, 16, 8, 8}, {16, 16, 1, 1}, {2, 2}, {0, 0, 0, 0}, 1, true,
               false},
              {1, 16, 4, 4}, 3);
}

TEST(Conv2DBnKernel, BlockedInputAndResult) {
  ConvBnCase c = {{2, 16, 5, 6}, {32, 16, 3, 3}, {1, 1}, {1, 1, 1, 1}, 1,
                  false, true};
  checkConvBn(c, {2, 32, 5, 6}, 11, /*blockedX=*/true);
  checkConvBn(c, {2, 32, 5, 6}, 12, false, /*blockedResult=*/true);
  c.addend = true;
  checkConvBn(c, {2, 32, 5, 6}, 13, true, true);
}

TEST(Conv2DBnKernel, MatchesUnfusedOddShapes) {
  checkConvBn({{2, 3, 7, 5}, {5, 3, 3, 3}, {1, 1}, {1, 0, 1, 2}, 1, true,
               true},
              {2, 5, 7, 5}, 4);
  checkConvBn({{1, 6, 5, 5}, {4, 3, 2, 2}, {2, 1}, {0, 0, 0, 0}, 2, false,
               false},
              {1, 4, 2, 4}, 5);
  // Depthwise, with the addend and no relu.
  checkConvBn({{3, 4, 4, 4}, {4, 1, 3, 3}, {1, 1}, {1, 1, 1, 1}, 4, true,
               false},
              {3, 4, 4, 4}, 6);
}

TEST(Conv2DBnKernel, NoInputChannelsGivesTheShift) {
  // The convolution is zero: relu(beta - mean * s + addend).
  checkConvBn({{2, 0, 3, 3}, {3, 0, 3, 3}, {1, 1}, {1, 1, 1, 1}, 1, true,
               true},
              {2, 3, 3, 3}, 7);
}

TEST(Conv2DBnKernel, RejectsBadDescriptions) {
  TensorDesc x = {DType::F32, {1, 4, 6, 6}}, w = {DType::F32, {8, 4, 3, 3}};
  TensorDesc p = {DType::F32, {8}}, y = {DType::F32, {1, 8, 4, 4}};
  expectCreateError(op("conv2d_bn", {x, w, p, p, p, p, x}, {y}),
                    "addend is 1x4x6x6xf32, needs the result's 1x8x4x4xf32");
  expectCreateError(op("conv2d_bn", {x, w, p, p, p, p}, {y},
                       {{"epsilon", 0.0}}),
                    "epsilon must be positive");
  expectCreateError(op("conv2d_bn", {x, w, p, p, p, p}, {x}),
                    "result 0 is 1x4x6x6xf32 but the op gives 1x8x4x4xf32");
  TensorDesc x16 = {DType::F32, {1, 16, 6, 6}};
  TensorDesc w16 = {DType::F32, {8, 16, 3, 3}};
  expectCreateError(op("conv2d_bn", {x16, w16, p, p, p, p}, {y},
                       {{"blocked_x", true}}),
                    "blocked_x and blocked_result need one group and channels "
                    "and filters in positive multiples of 16");
  expectCreateError(op("conv2d_bn", {x, w, p, p, {DType::F32, {4}}, p}, {y}),
                    "moving_mean is 4xf32, needs 8xf32");
  expectCreateError(op("conv2d_bn", {x, w, p, p, p}, {y}),
                    "needs 6 to 7 operands, got 5");
}

} // namespace
