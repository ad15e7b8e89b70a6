//===- RecurrentTest.cpp - rnn and rnn_grad on oneDNN's RNN primitives ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The forward kernel against the cells' equations written out for one
// hidden unit (the gate order is oneDNN's: i f c o, u r o), the reverse
// direction, the gradient's weight gradients starting from zero at every
// call (oneDNN's backward pass adds to them), and the kernels' errors.
// Gradients against finite differences: test/Check/gradients-rnn.mlir.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::test;

namespace {

double sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

using Attrs = std::map<std::string, AttrValue>;

Attrs cell(const std::string &name, const std::string &direction = "forward") {
  return {{"cell", name}, {"direction", direction}};
}

TEST(RnnKernel, VanillaTanhSteps) {
  // H = tanh(w x + r H + b), one unit, two steps from h0 = 0.2.
  auto out = runOk(
      "rnn",
      {f32({2, 1, 1}, {1, -1}), f32({1, 1, 1, 1}, {0.5}),
       f32({1, 1, 1, 1}, {0.25}), f32({1, 1, 1}, {0.1}), f32({1, 1, 1}, {0.2})},
      {{DType::F32, {2, 1, 1}}, {DType::F32, {1, 1, 1}}}, cell("rnn_tanh"));
  double h1 = std::tanh(0.5 + 0.25 * 0.2 + 0.1);
  double h2 = std::tanh(-0.5 + 0.25 * h1 + 0.1);
  EXPECT_TRUE(near(values(out[0]), {h1, h2}));
  EXPECT_TRUE(near(values(out[1]), {h2}));
}

TEST(RnnKernel, ReverseStartsAtTheLastStep) {
  auto out = runOk("rnn",
                   {f32({2, 1, 1}, {1, -1}), f32({1, 1, 1, 1}, {0.5}),
                    f32({1, 1, 1, 1}, {0.25}), f32({1, 1, 1}, {0.1}),
                    f32({1, 1, 1}, {0.2})},
                   {{DType::F32, {2, 1, 1}}, {DType::F32, {1, 1, 1}}},
                   cell("rnn_tanh", "reverse"));
  double h1 = std::tanh(-0.5 + 0.25 * 0.2 + 0.1); // step 1 first
  double h0 = std::tanh(0.5 + 0.25 * h1 + 0.1);
  EXPECT_TRUE(near(values(out[0]), {h0, h1}));
  EXPECT_TRUE(near(values(out[1]), {h0}));
}

TEST(RnnKernel, LstmGateOrder) {
  // Gates i f c o with distinct weights; one step from h0, c0.
  double w[] = {0.1, 0.2, 0.3, 0.4}, r[] = {-0.1, 0.5, 0.2, -0.3},
         b[] = {0.05, -0.05, 0.1, 0.2};
  double x = 0.7, h0 = 0.3, c0 = -0.4;
  auto out =
      runOk("rnn",
            {f32({1, 1, 1}, {x}), f32({1, 4, 1, 1}, {w[0], w[1], w[2], w[3]}),
             f32({1, 4, 1, 1}, {r[0], r[1], r[2], r[3]}),
             f32({1, 4, 1}, {b[0], b[1], b[2], b[3]}), f32({1, 1, 1}, {h0}),
             f32({1, 1, 1}, {c0})},
            {{DType::F32, {1, 1, 1}},
             {DType::F32, {1, 1, 1}},
             {DType::F32, {1, 1, 1}}},
            cell("lstm"));
  auto pre = [&](int g) { return w[g] * x + r[g] * h0 + b[g]; };
  double i = sigmoid(pre(0)), f = sigmoid(pre(1)), cc = std::tanh(pre(2)),
         o = sigmoid(pre(3));
  double c = f * c0 + i * cc, h = o * std::tanh(c);
  EXPECT_TRUE(near(values(out[0]), {h}));
  EXPECT_TRUE(near(values(out[1]), {h}));
  EXPECT_TRUE(near(values(out[2]), {c}));
}

TEST(RnnKernel, LinearBeforeResetGru) {
  // u, r = sigmoid(.); o = tanh(w_o x + b_o + r (r_o H + b_r));
  // H = u H + (1 - u) o. The bias has a 4th gate, b_r.
  double w[] = {0.3, -0.2, 0.6}, r[] = {0.4, 0.1, -0.5},
         b[] = {0.1, 0.2, -0.1, 0.3};
  double x = 0.9, h0 = -0.6;
  auto out = runOk(
      "rnn",
      {f32({1, 1, 1}, {x}), f32({1, 3, 1, 1}, {w[0], w[1], w[2]}),
       f32({1, 3, 1, 1}, {r[0], r[1], r[2]}),
       f32({1, 4, 1}, {b[0], b[1], b[2], b[3]}), f32({1, 1, 1}, {h0})},
      {{DType::F32, {1, 1, 1}}, {DType::F32, {1, 1, 1}}}, cell("lbr_gru"));
  double u = sigmoid(w[0] * x + r[0] * h0 + b[0]);
  double rg = sigmoid(w[1] * x + r[1] * h0 + b[1]);
  double o = std::tanh(w[2] * x + b[2] + rg * (r[2] * h0 + b[3]));
  EXPECT_TRUE(near(values(out[1]), {u * h0 + (1 - u) * o}));
}

TEST(RnnGradKernel, WeightGradientsStartFromZero) {
  // The same call twice gives the same gradients: oneDNN adds to them.
  std::vector<TensorData> in = {
      f32({3, 2, 2},
          {0.1, -0.2, 0.3, 0.4, -0.5, 0.6, 0.7, 0.8, -0.9, 1.0, 0.2, -0.3}),
      f32({1, 3, 2, 2},
          {0.1, 0.2, -0.3, 0.4, 0.5, -0.1, 0.2, 0.3, -0.2, 0.1, 0.4, -0.5}),
      f32({1, 3, 2, 2},
          {0.2, -0.1, 0.3, 0.1, -0.4, 0.2, 0.1, 0.3, 0.2, -0.2, 0.1, 0.4}),
      f32({1, 3, 2}, {0.1, 0.0, -0.1, 0.2, 0.05, -0.05}),
      f32({1, 2, 2}, {0.1, -0.1, 0.2, 0.3}),
      f32({3, 2, 2}, {1, 0.5, -1, 0.25, 0.5, 1, -0.5, 2, 1, 1, 0.5, -0.25}),
      f32({1, 2, 2}, {0.5, -0.5, 1, 0.25})};
  OpDesc desc = op("rnn_grad", descs(in),
                   {{DType::F32, {3, 2, 2}},
                    {DType::F32, {1, 3, 2, 2}},
                    {DType::F32, {1, 3, 2, 2}},
                    {DType::F32, {1, 3, 2}},
                    {DType::F32, {1, 2, 2}}},
                   cell("gru"));
  absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto first = compute(**kernel, desc, in);
  auto second = compute(**kernel, desc, in);
  ASSERT_TRUE(first.ok() && second.ok());
  for (size_t k = 0; k < first->size(); ++k)
    EXPECT_EQ(values((*first)[k]), values((*second)[k])) << "result " << k;
}

TEST(RnnKernel, Errors) {
  auto descsOf = [](Shape w) {
    return std::vector<TensorDesc>{{DType::F32, {2, 1, 3}},
                                   {DType::F32, w},
                                   {DType::F32, {1, 1, 4, 4}},
                                   {DType::F32, {1, 1, 4}},
                                   {DType::F32, {1, 1, 4}}};
  };
  std::vector<TensorDesc> results = {{DType::F32, {2, 1, 4}},
                                     {DType::F32, {1, 1, 4}}};
  expectCreateError(op("rnn", descsOf({1, 1, 4, 3}), results, cell("gelu")),
                    "unknown cell 'gelu'");
  expectCreateError(
      op("rnn", descsOf({1, 1, 4, 3}), results, cell("rnn_tanh", "sideways")),
      "unknown direction 'sideways'");
  expectCreateError(op("rnn", descsOf({1, 1, 4, 2}), results, cell("rnn_tanh")),
                    "w 1x1x4x2xf32 does not fit the layer (f32 [1, 1, 4, 3])");
  // An LSTM needs c0 and gives cn.
  expectCreateError(op("rnn", descsOf({1, 1, 4, 3}), results, cell("lstm")),
                    "needs 6 operands, got 5");
  std::vector<TensorDesc> none = descsOf({1, 1, 4, 3});
  none[0] = {DType::F32, {0, 1, 3}};
  expectCreateError(op("rnn", none,
                       {{DType::F32, {0, 1, 4}}, {DType::F32, {1, 1, 4}}},
                       cell("rnn_tanh")),
                    "needs at least one step");
}

} // namespace
