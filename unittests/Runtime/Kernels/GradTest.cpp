//===- GradTest.cpp - The backward kernels of the gradient rules ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each backward kernel against the adjoint of a naive forward loop: for a
// linear map y = A x, dx = A^T dy accumulates dy into the elements each
// output read.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <cmath>

using namespace ofrt;
using namespace ofrt::test;

namespace {

using Ints = std::vector<int64_t>;

struct Conv {
  Shape x, w;
  Ints strides, pads;
  int64_t oh, ow;
};

/// Calls f(xIndex, wIndex, yIndex) for every product of the convolution.
template <typename F> void forEachProduct(const Conv &c, F f) {
  int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
  int64_t F_ = c.w[0], KH = c.w[2], KW = c.w[3];
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < F_; ++o)
      for (int64_t i = 0; i < c.oh; ++i)
        for (int64_t j = 0; j < c.ow; ++j)
          for (int64_t ci = 0; ci < C; ++ci)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                int64_t ih = i * c.strides[0] - c.pads[0] + kh;
                int64_t iw = j * c.strides[1] - c.pads[1] + kw;
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                f(((n * C + ci) * H + ih) * W + iw,
                  ((o * C + ci) * KH + kh) * KW + kw,
                  ((n * F_ + o) * c.oh + i) * c.ow + j);
              }
}

TEST(ConvGradKernels, MatchTheAdjointOfTheConvolution) {
  for (const Conv &c : {Conv{{2, 3, 7, 6}, {4, 3, 3, 3}, {2, 1}, {1, 0, 1, 0}, 4, 4},
                        Conv{{1, 16, 5, 5}, {16, 16, 3, 3}, {1, 1}, {1, 1, 1, 1}, 5, 5}}) {
    Shape y = {c.x[0], c.w[0], c.oh, c.ow};
    Values x = randomValues(count(c.x), 1), w = randomValues(count(c.w), 2),
           dy = randomValues(count(y), 3);
    Values dx(x.size()), dw(w.size());
    forEachProduct(c, [&](int64_t xi, int64_t wi, int64_t yi) {
      dx[xi] += w[wi] * dy[yi];
      dw[wi] += x[xi] * dy[yi];
    });
    std::map<std::string, AttrValue> attrs = {{"strides", c.strides},
                                              {"pads", c.pads}};
    attrs["input_shape"] = c.x;
    auto data = runOk("conv2d_backward_data", {f32(y, dy), f32(c.w, w)},
                      {{DType::F32, c.x}}, attrs);
    EXPECT_TRUE(near(values(data[0]), dx, 1e-4, 1e-4));
    attrs.erase("input_shape");
    attrs["weight_shape"] = c.w;
    auto filter = runOk("conv2d_backward_filter", {f32(c.x, x), f32(y, dy)},
                        {{DType::F32, c.w}}, attrs);
    EXPECT_TRUE(near(values(filter[0]), dw, 1e-4, 1e-4));
  }
}

TEST(ConvGradKernels, RejectAMismatchedDy) {
  TensorDesc dy = {DType::F32, {2, 4, 5, 5}}, w = {DType::F32, {4, 3, 3, 3}};
  expectCreateError(op("conv2d_backward_data", {dy, w},
                       {{DType::F32, {2, 3, 8, 8}}},
                       {{"input_shape", Shape{2, 3, 8, 8}}}),
                    "dy is");
}

TEST(PoolGradKernels, MaxRoutesToTheFirstMaximumAvgSpreads) {
  // 2x2 windows, stride 2, one row of top padding over 5x4: out 3x2.
  Shape xs = {2, 3, 5, 4}, ys = {2, 3, 3, 2};
  Values x = randomValues(count(xs), 4), dy = randomValues(count(ys), 5);
  Values dmax(x.size()), davg(x.size());
  for (int64_t p = 0; p < 6; ++p)
    for (int64_t i = 0; i < 3; ++i)
      for (int64_t j = 0; j < 2; ++j) {
        double g = dy[(p * 3 + i) * 2 + j];
        int64_t best = -1, inside = 0;
        for (int64_t kh = 0; kh < 2; ++kh)
          for (int64_t kw = 0; kw < 2; ++kw) {
            int64_t h = i * 2 - 1 + kh, w = j * 2 + kw;
            if (h < 0 || h >= 5)
              continue;
            int64_t at = (p * 5 + h) * 4 + w;
            ++inside;
            if (best < 0 || x[at] > x[best])
              best = at;
          }
        dmax[best] += g;
        for (int64_t kh = 0; kh < 2; ++kh)
          for (int64_t kw = 0; kw < 2; ++kw) {
            int64_t h = i * 2 - 1 + kh, w = j * 2 + kw;
            if (h >= 0 && h < 5)
              davg[(p * 5 + h) * 4 + w] += g / inside;
          }
      }
  std::map<std::string, AttrValue> attrs = {{"kernel_size", Ints{2, 2}},
                                            {"strides", Ints{2, 2}},
                                            {"pads", Ints{1, 0, 0, 0}}};
  auto mx = runOk("max_pool2d_grad", {f32(xs, x), f32(ys, dy)},
                  {{DType::F32, xs}}, attrs);
  EXPECT_TRUE(near(values(mx[0]), dmax, 1e-5, 1e-5));
  auto av = runOk("avg_pool2d_grad", {f32(xs, x), f32(ys, dy)},
                  {{DType::F32, xs}}, attrs);
  EXPECT_TRUE(near(values(av[0]), davg, 1e-5, 1e-5));
}

TEST(BatchNormGradKernel, MatchesTheClosedForm) {
  Shape xs = {3, 2, 4};
  int64_t N = 3, C = 2, S = 4, M = N * S;
  double eps = 1e-5;
  Values x = randomValues(count(xs), 6), dy = randomValues(count(xs), 7),
         gamma = randomValues(C, 8, 0.5, 1.5);
  Values mean(C), inv(C), dx(x.size()), dgamma(C), dbeta(C);
  auto at = [&](int64_t n, int64_t c, int64_t s) { return (n * C + c) * S + s; };
  for (int64_t c = 0; c < C; ++c) {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s)
        sum += x[at(n, c, s)];
    mean[c] = sum / M;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s)
        sq += std::pow(x[at(n, c, s)] - mean[c], 2);
    inv[c] = 1 / std::sqrt(sq / M + eps);
    double sdy = 0, sdyx = 0;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) {
        double xhat = (x[at(n, c, s)] - mean[c]) * inv[c];
        sdy += dy[at(n, c, s)];
        sdyx += dy[at(n, c, s)] * xhat;
      }
    dgamma[c] = sdyx;
    dbeta[c] = sdy;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) {
        double xhat = (x[at(n, c, s)] - mean[c]) * inv[c];
        dx[at(n, c, s)] = gamma[c] * inv[c] / M *
                          (M * dy[at(n, c, s)] - sdy - xhat * sdyx);
      }
  }
  auto out = runOk("batch_norm_grad",
                   {f32(xs, x), f32(xs, dy), f32({C}, mean), f32({C}, inv),
                    f32({C}, gamma)},
                   {{DType::F32, xs}, {DType::F32, {C}}, {DType::F32, {C}}});
  EXPECT_TRUE(near(values(out[0]), dx, 1e-4, 1e-4));
  EXPECT_TRUE(near(values(out[1]), dgamma, 1e-4, 1e-4));
  EXPECT_TRUE(near(values(out[2]), dbeta, 1e-4, 1e-4));
}

// Rows of `inner` elements normalized alone; dgamma and dbeta sum over the
// rows. Three rows of [2, 3, 5] over the last axis, then over the last two.
TEST(SoftmaxGradKernel, MatchesTheClosedForm) {
  // y (dy - sum(dy y)) along each axis of a 2x3x5 tensor, with y a softmax;
  // f32 and f64 on oneDNN and the plain loops, bf16 (natively where oneDNN
  // has it, else in f32) to its 8 bits.
  Shape shape = {2, 3, 5};
  for (int64_t axis : {2, 1, 0, -1})
    for (auto [dtype, tol] : {std::pair{DType::F32, 1e-5},
                              std::pair{DType::F64, 1e-12},
                              std::pair{DType::BF16, 3e-2}}) {
      SCOPED_TRACE("axis " + std::to_string(axis) + ", " + dtypeName(dtype));
      int64_t a = axis < 0 ? axis + 3 : axis;
      Shape st = strides(shape);
      Values x = randomValues(count(shape), 21, -2, 2),
             dy = randomValues(count(shape), 22), y(x.size()), dx(x.size());
      for (int64_t i = 0; i < count(shape); ++i) {
        Shape at = unravel(i, shape);
        if (at[a] != 0)
          continue;
        double sum = 0, dot = 0;
        for (int64_t j = 0; j < shape[a]; ++j)
          sum += std::exp(x[i + j * st[a]]);
        for (int64_t j = 0; j < shape[a]; ++j) {
          y[i + j * st[a]] = std::exp(x[i + j * st[a]]) / sum;
          dot += y[i + j * st[a]] * dy[i + j * st[a]];
        }
        for (int64_t j = 0; j < shape[a]; ++j)
          dx[i + j * st[a]] = y[i + j * st[a]] * (dy[i + j * st[a]] - dot);
      }
      TensorData yt = tensor(dtype, shape, y), dyt = tensor(dtype, shape, dy);
      auto out = runOk("softmax_grad", {yt, dyt}, {{dtype, shape}},
                       {{"axis", axis}});
      EXPECT_TRUE(near(values(out[0]), dx, tol, tol));
    }
  TensorDesc y{DType::F32, {2, 3}};
  expectCreateError(
      op("softmax_grad", {y, {DType::F32, {3, 2}}}, {y}, {{"axis", 1}}),
      "dy 3x2xf32 differs from y 2x3xf32");
  expectCreateError(op("softmax_grad", {y, y}, {y}, {{"axis", 2}}), "axis");
  TensorDesc i{DType::I32, {2, 3}};
  expectCreateError(op("softmax_grad", {i, i}, {i}, {{"axis", 1}}),
                    "floating-point");
}

TEST(LayerNormGradKernel, MatchesTheClosedForm) {
  for (int64_t normAxis : {2, 1}) {
    SCOPED_TRACE("begin_norm_axis " + std::to_string(normAxis));
    Shape xs = {2, 3, 5};
    Shape stats(xs.begin(), xs.begin() + normAxis),
        params(xs.begin() + normAxis, xs.end());
    int64_t rows = count(stats), inner = count(params);
    double eps = 1e-5;
    Values x = randomValues(count(xs), 16), dy = randomValues(count(xs), 17),
           gamma = randomValues(inner, 18, 0.5, 1.5);
    Values mean(rows), inv(rows), dx(x.size()), dgamma(inner), dbeta(inner);
    for (int64_t r = 0; r < rows; ++r) {
      const double *row = &x[r * inner], *d = &dy[r * inner];
      double sum = 0, sq = 0, sumG = 0, sumGX = 0;
      for (int64_t k = 0; k < inner; ++k)
        sum += row[k];
      mean[r] = sum / inner;
      for (int64_t k = 0; k < inner; ++k)
        sq += std::pow(row[k] - mean[r], 2);
      inv[r] = 1 / std::sqrt(sq / inner + eps);
      for (int64_t k = 0; k < inner; ++k) {
        double xhat = (row[k] - mean[r]) * inv[r];
        sumG += d[k] * gamma[k];
        sumGX += d[k] * gamma[k] * xhat;
        dgamma[k] += d[k] * xhat;
        dbeta[k] += d[k];
      }
      for (int64_t k = 0; k < inner; ++k) {
        double xhat = (row[k] - mean[r]) * inv[r];
        dx[r * inner + k] =
            inv[r] * (d[k] * gamma[k] - sumG / inner - xhat * sumGX / inner);
      }
    }
    auto out =
        runOk("layer_norm_grad",
              {f32(xs, x), f32(xs, dy), f32(stats, mean), f32(stats, inv),
               f32(params, gamma)},
              {{DType::F32, xs}, {DType::F32, params}, {DType::F32, params}},
              {{"begin_norm_axis", normAxis}});
    EXPECT_TRUE(near(values(out[0]), dx, 1e-4, 1e-4));
    EXPECT_TRUE(near(values(out[1]), dgamma, 1e-4, 1e-4));
    EXPECT_TRUE(near(values(out[2]), dbeta, 1e-4, 1e-4));
  }
  TensorDesc x{DType::F32, {2, 3}}, s{DType::F32, {2}}, p{DType::F32, {3}};
  expectCreateError(
      op("layer_norm_grad", {x, x, s, s, {DType::F32, {2}}}, {x, p, p}),
      "gamma is 2xf32 but needs shape [3] of f32");
  TensorDesc d{DType::F64, {2, 3}};
  expectCreateError(op("layer_norm_grad", {d, d, s, s, p}, {d, p, p}),
                    "f32 only");
}

TEST(GatherGradKernel, AddsRowsAtTheirIndicesAndOnlyOwnRows) {
  // Indices 1, 3, 1, -1 (= 4) into a table of 5 rows of 2.
  Values ids = {1, 3, 1, -1}, dy = {1, 2, 3, 4, 5, 6, 7, 8};
  TensorData indices = tensor(DType::I64, {4}, ids);
  auto whole = runOk("gather_grad", {f32({4, 2}, dy), indices},
                     {{DType::F32, {5, 2}}}, {{"dim_size", int64_t(5)}});
  EXPECT_TRUE(near(values(whole[0]), {0, 0, 6, 8, 0, 0, 3, 4, 7, 8}));
  // The piece holding rows [3, 5) of a row-split table.
  OpDesc split = op("gather_grad", {{DType::F32, {4, 2}}, indices.desc},
                    {{DType::F32, {2, 2}}}, {{"dim_size", int64_t(5)}});
  split.layout = IndexRange{3, 5};
  auto piece = run(split, {f32({4, 2}, dy), indices});
  ASSERT_TRUE(piece.ok()) << piece.status();
  EXPECT_TRUE(near(values((*piece)[0]), {3, 4, 7, 8}));
  OpDesc bad = op("gather_grad", {whole[0].desc, indices.desc},
                  {{DType::F32, {5, 2}}}, {{"dim_size", int64_t(5)}});
  bad.inputs[0] = {DType::F32, {4, 2}};
  TensorData badIds = tensor(DType::I64, {4}, {1, 9, 0, 0});
  absl::StatusOr<std::vector<TensorData>> result =
      run(bad, {f32({4, 2}, dy), badIds});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(std::string(result.status().message()).find("index 9"),
            std::string::npos);
}

TEST(GatherElementsGradKernel, AddsEachElementWhereItCameFrom) {
  // dy of gather_elements along axis 1 of a 2x3 x; repeated indices add.
  auto dx = runOk(
      "gather_elements_grad",
      {f32({2, 2}, {1, 2, 3, 4}), tensor(DType::I64, {2, 2}, {2, 2, 0, -1})},
      {{DType::F32, {2, 3}}}, {{"axis", int64_t(1)}, {"shape", Shape{2, 3}}});
  EXPECT_TRUE(near(values(dx[0]), {0, 0, 3, 3, 0, 4}));
  expectCreateError(op("gather_elements_grad",
                       {{DType::I32, {2, 2}}, {DType::I64, {2, 2}}},
                       {{DType::I32, {2, 3}}},
                       {{"axis", int64_t(1)}, {"shape", Shape{2, 3}}}),
                    "has a CPU kernel for f32 and f64 only");
  expectCreateError(op("gather_elements_grad",
                       {{DType::F32, {2, 1}}, {DType::I64, {2, 2}}},
                       {{DType::F32, {2, 3}}},
                       {{"axis", int64_t(1)}, {"shape", Shape{2, 3}}}),
                    "dy is 2x1xf32, needs 2x2xf32");
}

} // namespace
