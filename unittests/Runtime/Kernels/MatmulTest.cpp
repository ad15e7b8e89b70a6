//===- MatmulTest.cpp - matmul and batch_matmul ---------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// f32 matmuls run on oneDNN or OpenBLAS, whichever is faster on the machine
// (Gemm.h): the matmul tests run on both (OF_CPU_GEMM), whatever this
// machine would choose.
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include <cstdlib>
#include <limits>

using namespace ofrt;
using namespace ofrt::test;

namespace {

/// Naive (batch) matmul on row-major operands with numpy-broadcast batch
/// axes; `a` is [..., m, k] or [..., k, m] when transposed, likewise `b`.
Values naiveMatmul(const Values &a, const Shape &as, bool ta, const Values &b,
                   const Shape &bs, bool tb, Shape &outShape) {
  size_t ra = as.size(), rb = bs.size();
  int64_t m = ta ? as[ra - 1] : as[ra - 2], k = ta ? as[ra - 2] : as[ra - 1];
  int64_t n = tb ? bs[rb - 2] : bs[rb - 1];
  Shape ab(as.begin(), as.end() - 2), bb(bs.begin(), bs.end() - 2);
  size_t rank = std::max(ab.size(), bb.size());
  Shape batch(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    int64_t da = i + ab.size() >= rank ? ab[i + ab.size() - rank] : 1;
    int64_t db = i + bb.size() >= rank ? bb[i + bb.size() - rank] : 1;
    batch[i] = std::max(da, db);
  }
  outShape = batch;
  outShape.push_back(m);
  outShape.push_back(n);
  int64_t batches = count(batch);
  Values out(batches * m * n, 0.0);
  for (int64_t bi = 0; bi < batches; ++bi) {
    Shape idx = unravel(bi, batch);
    int64_t aBase = broadcastIndex(idx, ab) * m * k;
    int64_t bBase = broadcastIndex(idx, bb) * k * n;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          double x = ta ? a[aBase + p * m + i] : a[aBase + i * k + p];
          double y = tb ? b[bBase + j * k + p] : b[bBase + p * n + j];
          sum += x * y;
        }
        out[(bi * m + i) * n + j] = sum;
      }
  }
  return out;
}

void checkMatmul(const std::string &name, const Shape &as, bool ta,
                 const Shape &bs, bool tb, unsigned seed) {
  SCOPED_TRACE(name + " " + std::to_string(ta) + std::to_string(tb));
  Values a = randomValues(count(as), seed),
         b = randomValues(count(bs), seed + 1);
  Shape outShape;
  Values expected = naiveMatmul(a, as, ta, b, bs, tb, outShape);
  std::map<std::string, AttrValue> attrs;
  if (ta)
    attrs["transpose_a"] = true;
  if (tb)
    attrs["transpose_b"] = true;
  auto out =
      runOk(name, {f32(as, a), f32(bs, b)}, {{DType::F32, outShape}}, attrs);
  EXPECT_TRUE(near(values(out[0]), expected, 1e-4, 1e-4));
}

/// Runs `body` with OF_CPU_GEMM set to each library, then unsets it.
template <typename Body> void onEachGemmLibrary(Body body) {
  for (const char *library : {"onednn", "openblas"}) {
    SCOPED_TRACE(std::string("OF_CPU_GEMM=") + library);
    setenv("OF_CPU_GEMM", library, 1);
    body();
  }
  unsetenv("OF_CPU_GEMM");
}

TEST(MatmulKernel, AllTransposesOnPrimeShapes) {
  onEachGemmLibrary([] {
    checkMatmul("matmul", {7, 13}, false, {13, 5}, false, 1);
    checkMatmul("matmul", {13, 7}, true, {13, 5}, false, 2);
    checkMatmul("matmul", {7, 13}, false, {5, 13}, true, 3);
    checkMatmul("matmul", {13, 7}, true, {5, 13}, true, 4);
    // Large enough for the libraries' blocked paths and threads.
    checkMatmul("matmul", {257, 131}, true, {257, 67}, false, 8);
    checkMatmul("matmul", {96, 130}, false, {200, 130}, true, 9);
  });
}

/// matmul_bias: the product plus a bias on every row, also with an empty
/// contraction (the bias alone), and `constant_b` (a packed weight).
void checkMatmulBias(const Shape &as, bool ta, const Shape &bs, bool tb,
                     unsigned seed, bool constantB = false) {
  SCOPED_TRACE("matmul_bias " + std::to_string(ta) + std::to_string(tb));
  Values a = randomValues(count(as), seed),
         b = randomValues(count(bs), seed + 1);
  Shape outShape;
  Values expected = naiveMatmul(a, as, ta, b, bs, tb, outShape);
  int64_t n = outShape[1];
  Values bias = randomValues(n, seed + 2);
  for (size_t i = 0; i < expected.size(); ++i)
    expected[i] += bias[i % n];
  std::map<std::string, AttrValue> attrs;
  if (ta)
    attrs["transpose_a"] = true;
  if (tb)
    attrs["transpose_b"] = true;
  if (constantB)
    attrs["constant_b"] = true;
  auto out = runOk("matmul_bias", {f32(as, a), f32(bs, b), f32({n}, bias)},
                   {{DType::F32, outShape}}, attrs);
  EXPECT_TRUE(near(values(out[0]), expected, 1e-4, 1e-4));
}

TEST(MatmulKernel, BiasOnEveryRow) {
  onEachGemmLibrary([] {
    checkMatmulBias({7, 13}, false, {13, 5}, false, 11);
    checkMatmulBias({13, 7}, true, {5, 13}, true, 12);
    checkMatmulBias({257, 131}, true, {257, 67}, false, 13);
    checkMatmulBias({96, 130}, false, {200, 130}, true, 14, true);
    checkMatmulBias({4, 0}, false, {0, 3}, false, 15);
  });
  TensorDesc a{DType::F32, {4, 3}}, b{DType::F32, {3, 5}};
  expectCreateError(op("matmul_bias", {a, b, {DType::F32, {4}}},
                       {{DType::F32, {4, 5}}}),
                    "bias 4xf32 must be 5xf32 (one value per column of the "
                    "result)");
  expectCreateError(op("matmul_bias", {a, b}, {{DType::F32, {4, 5}}}),
                    "3");
}

TEST(MatmulKernel, VectorShapes) {
  onEachGemmLibrary([] {
    checkMatmul("matmul", {1, 17}, false, {17, 1}, false, 5);
    checkMatmul("matmul", {1, 1}, false, {1, 11}, false, 6);
    checkMatmul("matmul", {64, 3}, true, {64, 1}, false, 7);
  });
}

TEST(MatmulKernel, GemmLibraryFromTheEnvironment) {
  setenv("OF_CPU_GEMM", "mkl", 1);
  expectCreateError(op("matmul", {{DType::F32, {2, 3}}, {DType::F32, {3, 4}}},
                       {{DType::F32, {2, 4}}}),
                    "OF_CPU_GEMM='mkl' is not onednn or openblas");
  unsetenv("OF_CPU_GEMM");
}

TEST(MatmulKernel, EmptyContractionIsZero) {
  auto out = runOk("matmul", {f32({3, 0}, {}), f32({0, 2}, {})},
                   {{DType::F32, {3, 2}}});
  EXPECT_EQ(values(out[0]), Values(6, 0.0));
}

TEST(BatchMatmulKernel, SameBatch) {
  checkMatmul("batch_matmul", {3, 7, 13}, false, {3, 13, 5}, false, 10);
  checkMatmul("batch_matmul", {2, 3, 5, 4}, false, {2, 3, 5, 4}, true, 11);
  checkMatmul("batch_matmul", {2, 3, 4, 5}, true, {2, 3, 4, 6}, false, 12);
}

TEST(BatchMatmulKernel, SharedMatrixAndBroadcastBatches) {
  // A rank-2 operand is shared by every batch.
  checkMatmul("batch_matmul", {4, 7, 13}, false, {13, 5}, false, 20);
  checkMatmul("batch_matmul", {7, 13}, false, {4, 13, 5}, false, 21);
  checkMatmul("batch_matmul", {5, 13}, false, {2, 3, 7, 13}, true, 22);
  // Size-1 batch axes broadcast on both sides.
  checkMatmul("batch_matmul", {2, 1, 3, 5}, false, {4, 5, 6}, false, 23);
  checkMatmul("batch_matmul", {1, 4, 5, 3}, true, {2, 1, 6, 5}, true, 24);
}

// alpha scales every product (oneDNN's output scale); it must be finite.
TEST(BatchMatmulKernel, AlphaScalesTheProducts) {
  Shape as = {2, 3, 7, 13}, bs = {2, 3, 5, 13}, outShape;
  Values a = randomValues(count(as), 30), b = randomValues(count(bs), 31);
  Values expected = naiveMatmul(a, as, false, b, bs, true, outShape);
  for (double &v : expected)
    v *= -0.125;
  auto out =
      runOk("batch_matmul", {f32(as, a), f32(bs, b)}, {{DType::F32, outShape}},
            {{"transpose_b", true}, {"alpha", -0.125}});
  EXPECT_TRUE(near(values(out[0]), expected, 1e-4, 1e-4));
  expectCreateError(op("batch_matmul", {{DType::F32, as}, {DType::F32, bs}},
                       {{DType::F32, outShape}},
                       {{"transpose_b", true},
                        {"alpha", std::numeric_limits<double>::infinity()}}),
                    "alpha must be finite, got inf");
}

TEST(MatmulKernel, RejectsBadDescriptions) {
  TensorDesc a = {DType::F32, {7, 13}}, b = {DType::F32, {12, 5}};
  expectCreateError(op("matmul", {a, b}, {{DType::F32, {7, 5}}}),
                    "contraction sizes differ: 13 (a) and 12 (b)");
  expectCreateError(
      op("matmul", {a, {DType::F32, {13, 5}}}, {{DType::F32, {7, 6}}}),
      "result 0 is 7x6xf32 but the op gives 7x5xf32");
  expectCreateError(
      op("matmul", {{DType::F32, {2, 7, 13}}, b}, {{DType::F32, {7, 5}}}),
      "must be matrices");
  expectCreateError(op("matmul", {a}, {{DType::F32, {7, 5}}}),
                    "needs 2 operands, got 1");
  expectCreateError(op("matmul", {{DType::I32, {7, 13}}, {DType::I32, {13, 5}}},
                       {{DType::I32, {7, 5}}}),
                    "element type i32");
  expectCreateError(op("matmul", {a, {DType::F32, {13, 5}}},
                       {{DType::F32, {7, 5}}}, {{"transpose_a", int64_t(1)}}),
                    "attribute 'transpose_a' must be a unit (bool)");
  expectCreateError(op("batch_matmul",
                       {{DType::F32, {2, 7, 13}}, {DType::F32, {3, 13, 5}}},
                       {{DType::F32, {2, 7, 5}}}),
                    "do not broadcast");
  expectCreateError(
      op("batch_matmul", {a, {DType::F32, {13, 5}}}, {{DType::F32, {7, 5}}}),
      "one with batch axes");
}

TEST(MatmulKernel, RunsAgainWithNewData) {
  // The primitive is built once; each compute reads the current inputs.
  onEachGemmLibrary([] {
    OpDesc desc = op("matmul", {{DType::F32, {2, 2}}, {DType::F32, {2, 2}}},
                     {{DType::F32, {2, 2}}});
    auto kernel = create(desc);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    auto first = compute(
        **kernel, desc, {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {1, 0, 0, 1})});
    auto second = compute(
        **kernel, desc, {f32({2, 2}, {1, 2, 3, 4}), f32({2, 2}, {0, 1, 1, 0})});
    ASSERT_TRUE(first.ok() && second.ok());
    EXPECT_EQ(values((*first)[0]), (Values{1, 2, 3, 4}));
    EXPECT_EQ(values((*second)[0]), (Values{2, 1, 4, 3}));
  });
}

} // namespace

// constant_b packs b into oneDNN's preferred layout once per buffer
// address; given another buffer, the kernel packs that one.
TEST(MatmulKernel, ConstantWeightsArePackedPerBuffer) {
  onEachGemmLibrary([] {
    for (bool tb : {false, true}) {
      SCOPED_TRACE(tb ? "transpose_b" : "plain");
      Shape as{33, 200}, bs = tb ? Shape{300, 200} : Shape{200, 300};
      std::map<std::string, AttrValue> attrs{{"constant_b", true}};
      if (tb)
        attrs["transpose_b"] = true;
      OpDesc desc = op("matmul", {{DType::F32, as}, {DType::F32, bs}},
                       {{DType::F32, {33, 300}}}, attrs);
      absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      Values a = randomValues(count(as), 11);
      TensorData aData = f32(as, a);
      // Both weight buffers live throughout, so their addresses differ.
      std::vector<Values> bs2{randomValues(count(bs), 12),
                              randomValues(count(bs), 13)};
      std::vector<TensorData> bData{f32(bs, bs2[0]), f32(bs, bs2[1])};
      for (int call : {0, 0, 1, 1, 0}) {
        Shape outShape;
        Values expected =
            naiveMatmul(a, as, false, bs2[call], bs, tb, outShape);
        TensorData result{{DType::F32, outShape},
                          std::vector<uint8_t>(33 * 300 * 4, 0xA5)};
        std::vector<TensorView> in{aData.view(), bData[call].view()};
        std::vector<TensorView> out{result.view()};
        ASSERT_TRUE((*kernel)->compute(KernelContext{}, in, out).ok());
        EXPECT_TRUE(near(values(result), expected, 1e-4, 1e-4));
      }
    }
  });
}
