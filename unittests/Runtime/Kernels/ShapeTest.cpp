//===- ShapeTest.cpp - Reductions, layout ops, gather
//----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

#include "ofrt/Backend.h"

#include <cmath>
#include <cstdlib>

using namespace ofrt;
using namespace ofrt::test;

namespace {

using Ints = std::vector<int64_t>;

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

enum class Reduce { Sum, Mean, Max, SumSquare };

Values naiveReduce(const Values &x, const Shape &shape, const Ints &axes,
                   Reduce kind, Shape &kept) {
  kept = shape;
  for (int64_t a : axes)
    kept[a < 0 ? a + shape.size() : a] = 1;
  Values out(count(kept), kind == Reduce::Max ? -INFINITY : 0.0);
  for (int64_t i = 0; i < count(shape); ++i) {
    int64_t o = broadcastIndex(unravel(i, shape), kept);
    out[o] = kind == Reduce::Max         ? std::max(out[o], x[i])
             : kind == Reduce::SumSquare ? out[o] + x[i] * x[i]
                                         : out[o] + x[i];
  }
  if (kind == Reduce::Mean)
    for (double &v : out)
      v /= double(count(shape)) / count(kept);
  return out;
}

void checkReduce(Reduce kind, DType dtype, const Shape &shape, const Ints &axes,
                 bool keepdims, unsigned seed) {
  const char *name = kind == Reduce::Sum    ? "reduce_sum"
                     : kind == Reduce::Mean ? "reduce_mean"
                     : kind == Reduce::Max  ? "reduce_max"
                                            : "reduce_sum_square";
  SCOPED_TRACE(std::string(name) + " " + dtypeName(dtype) + " seed " +
               std::to_string(seed));
  Values x = isFloat(dtype) ? randomValues(count(shape), seed, -4, 4)
                            : randomInts(count(shape), seed, -50, 50);
  Shape kept;
  Values expected = naiveReduce(x, shape, axes, kind, kept);
  if (!isFloat(dtype))
    for (double &v : expected)
      v = std::trunc(v);
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t a : axes)
    reduced[a < 0 ? a + int64_t(shape.size()) : a] = true;
  Shape outShape;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!reduced[i])
      outShape.push_back(shape[i]);
    else if (keepdims)
      outShape.push_back(1);
  }
  std::map<std::string, AttrValue> attrs = {{"axes", axes}};
  if (keepdims)
    attrs["keepdims"] = true;
  auto out = runOk(name, {tensor(dtype, shape, x)}, {{dtype, outShape}}, attrs);
  EXPECT_TRUE(near(values(out[0]), expected, 1e-5, 1e-5));
}

TEST(ReduceKernels, AxesKeepdimsNegativeAxes) {
  unsigned seed = 1;
  for (Reduce kind :
       {Reduce::Sum, Reduce::Mean, Reduce::Max, Reduce::SumSquare})
    for (DType dtype : {DType::F32, DType::F64, DType::I32, DType::I64})
      for (bool keepdims : {false, true}) {
        if (kind == Reduce::SumSquare && !isFloat(dtype))
          continue; // the op takes float tensors only
        checkReduce(kind, dtype, {7, 13}, {1}, keepdims, seed++);
        checkReduce(kind, dtype, {7, 13}, {-2}, keepdims, seed++);
        checkReduce(kind, dtype, {3, 5, 7}, {0, 2}, keepdims, seed++);
        checkReduce(kind, dtype, {3, 5, 7}, {-1, 0, 1}, keepdims, seed++);
        // A copy (the squares, for reduce_sum_square).
        checkReduce(kind, dtype, {2, 1, 3}, {1}, keepdims, seed++);
        checkReduce(kind, dtype, {4, 3}, {}, keepdims, seed++);
      }
}

// f32 sums and means over leading axes, or over short trailing rows, are
// matrix-vector products where OpenBLAS multiplies (Reduction.cpp): both
// forms, on both libraries, against the same loops; size-1 axes between
// the reduced ones do not break the pattern.
TEST(ReduceKernels, LeadingAndShortTrailingAxesOnEitherLibrary) {
  for (const char *library : {"onednn", "openblas"}) {
    SCOPED_TRACE(std::string("OF_CPU_GEMM=") + library);
    setenv("OF_CPU_GEMM", library, 1);
    unsigned seed = 100;
    for (Reduce kind :
         {Reduce::Sum, Reduce::Mean, Reduce::Max, Reduce::SumSquare}) {
      checkReduce(kind, DType::F32, {300, 7}, {0}, false, seed++);
      checkReduce(kind, DType::F32, {5, 1, 6, 11}, {0, 1, 2}, true, seed++);
      checkReduce(kind, DType::F32, {1, 9, 1, 40}, {1}, false, seed++);
      checkReduce(kind, DType::F32, {257, 8}, {1}, false, seed++);
      checkReduce(kind, DType::F32, {6, 4, 3}, {1, 2}, true, seed++);
      // Long trailing rows stay on oneDNN's reduction.
      checkReduce(kind, DType::F32, {3, 500}, {-1}, false, seed++);
    }
  }
  unsetenv("OF_CPU_GEMM");
}

TEST(ReduceKernels, RejectsBadAxes) {
  TensorDesc x = {DType::F32, {4, 3}};
  expectCreateError(
      op("reduce_sum", {x}, {{DType::F32, {4}}}, {{"axes", Ints{1, -1}}}),
      "reduction axis -1 is listed twice");
  expectCreateError(
      op("reduce_mean", {x}, {{DType::F32, {4}}}, {{"axes", Ints{2}}}),
      "reduction axis 2 is out of range for rank 2");
  expectCreateError(op("reduce_max", {x}, {{DType::F32, {4}}}),
                    "needs attribute 'axes'");
  expectCreateError(op("reduce_sum_square", {{DType::I32, {4, 3}}},
                       {{DType::I32, {4}}}, {{"axes", Ints{1}}}),
                    "has no sum of squares of i32 tensors");
  expectCreateError(op("reduce_max", {x}, {{DType::F32, {4}}},
                       {{"axes", Ints{1}}, {"keepdims", true}}),
                    "result 0 is 4xf32 but the op gives 4x1xf32");
}

//===----------------------------------------------------------------------===//
// transpose, concat, reshape, flatten
//===----------------------------------------------------------------------===//

void checkTranspose(DType dtype, const Shape &shape, const Ints &perm,
                    unsigned seed) {
  SCOPED_TRACE(std::string("transpose ") + dtypeName(dtype));
  int64_t range = dtype == DType::Bool ? 1 : dtype == DType::I8 ? 100 : 1000;
  Values x =
      randomInts(count(shape), seed, dtype == DType::Bool ? 0 : -range, range);
  Shape outShape;
  for (int64_t p : perm)
    outShape.push_back(shape[p]);
  Values expected(x.size());
  Shape inStrides = strides(shape);
  for (int64_t i = 0; i < count(outShape); ++i) {
    Shape idx = unravel(i, outShape);
    int64_t src = 0;
    for (size_t d = 0; d < perm.size(); ++d)
      src += idx[d] * inStrides[perm[d]];
    expected[i] = x[src];
  }
  auto out = runOk("transpose", {tensor(dtype, shape, x)}, {{dtype, outShape}},
                   {{"perm", perm}});
  EXPECT_EQ(values(out[0]), expected);
}

TEST(TransposeKernel, EveryElementType) {
  unsigned seed = 1;
  for (DType dtype : {DType::F32, DType::F64, DType::I32, DType::I64, DType::I8,
                      DType::Bool}) {
    checkTranspose(dtype, {7, 13}, {1, 0}, seed++);
    checkTranspose(dtype, {2, 3, 5, 7}, {0, 2, 3, 1}, seed++);
    checkTranspose(dtype, {2, 1, 5}, {2, 0, 1}, seed++);
    checkTranspose(dtype, {3, 4}, {0, 1}, seed++);
    // The last axis kept: rows of 32 elements are copied whole from 4-byte
    // elements up (at least 64 bytes), 1-byte ones go to oneDNN's reorder.
    checkTranspose(dtype, {2, 3, 5, 32}, {2, 0, 1, 3}, seed++);
  }
  // Exact bits survive (no float conversion): a large i64 and a NaN payload.
  TensorData big = tensor(DType::I64, {2, 1}, {0, 0});
  int64_t v[2] = {(int64_t(1) << 62) + 3, -7};
  std::memcpy(big.bytes.data(), v, 16);
  auto out =
      runOk("transpose", {big}, {{DType::I64, {1, 2}}}, {{"perm", Ints{1, 0}}});
  EXPECT_EQ(0, std::memcmp(out[0].bytes.data(), v, 16));
  expectCreateError(op("transpose", {{DType::F32, {2, 3}}},
                       {{DType::F32, {3, 2}}}, {{"perm", Ints{1, 1}}}),
                    "is not a permutation of 0..1");
}

TEST(ConcatKernel, AxesAndTypes) {
  for (DType dtype : {DType::F32, DType::I64, DType::Bool}) {
    for (int64_t axis : {0, 1, -1}) {
      SCOPED_TRACE(std::string(dtypeName(dtype)) + " axis " +
                   std::to_string(axis));
      int64_t a = axis < 0 ? axis + 2 : axis;
      Shape s0 = {3, 4}, s1 = {3, 4}, s2 = {3, 4};
      s0[a] = 2;
      s1[a] = 0;
      s2[a] = 5;
      Values x0 = randomInts(count(s0), 1, 0, 1), x1,
             x2 = randomInts(count(s2), 2, 0, 1);
      if (dtype != DType::Bool) {
        x0 = randomInts(count(s0), 3, -99, 99);
        x2 = randomInts(count(s2), 4, -99, 99);
      }
      Shape outShape = s0;
      outShape[a] = 7;
      Values expected(count(outShape));
      for (int64_t i = 0; i < count(outShape); ++i) {
        Shape idx = unravel(i, outShape);
        if (idx[a] < 2) {
          expected[i] = x0[idx[0] * s0[1] + idx[1]];
        } else {
          idx[a] -= 2;
          expected[i] = x2[idx[0] * s2[1] + idx[1]];
        }
      }
      auto out = runOk(
          "concat",
          {tensor(dtype, s0, x0), tensor(dtype, s1, x1), tensor(dtype, s2, x2)},
          {{dtype, outShape}}, {{"axis", axis}});
      EXPECT_EQ(values(out[0]), expected);
    }
  }
  expectCreateError(op("concat", {{DType::F32, {2, 3}}, {DType::F32, {3, 3}}},
                       {{DType::F32, {2, 6}}}, {{"axis", int64_t(1)}}),
                    "input 1 has size 3 on axis 0 where input 0 has 2");
  expectCreateError(
      op("concat", {{DType::F32, {2, 3}}}, {{DType::F32, {2, 3}}}),
      "needs attribute 'axis'");
}

TEST(ReshapeFlattenKernels, CopyAndCheckShapes) {
  Values x = randomValues(2 * 3 * 5, 9);
  auto r = runOk("reshape", {f32({2, 3, 5}, x)}, {{DType::F32, {5, 6}}});
  EXPECT_EQ(values(r[0]), x);
  expectCreateError(op("reshape", {{DType::F32, {2, 3}}}, {{DType::F32, {7}}}),
                    "cannot reshape 2x3xf32 into 7xf32");

  auto all = runOk("flatten", {f32({2, 3, 5}, x)}, {{DType::F32, {30}}});
  EXPECT_EQ(values(all[0]), x);
  auto mid = runOk("flatten", {f32({2, 3, 5}, x)}, {{DType::F32, {2, 15}}},
                   {{"start_dim", int64_t(1)}});
  EXPECT_EQ(values(mid[0]), x);
  auto neg = runOk("flatten", {f32({2, 3, 5}, x)}, {{DType::F32, {6, 5}}},
                   {{"start_dim", int64_t(-3)}, {"end_dim", int64_t(-2)}});
  EXPECT_EQ(values(neg[0]), x);
  auto scalar = runOk("flatten", {f32({}, {4})}, {{DType::F32, {1}}});
  EXPECT_EQ(values(scalar[0]), (Values{4}));
  expectCreateError(
      op("flatten", {{DType::F32, {2, 3, 5}}}, {{DType::F32, {2, 15}}}),
      "result 0 is 2x15xf32 but the op gives 30xf32");
  expectCreateError(op("flatten", {{DType::F32, {2, 3, 5}}},
                       {{DType::F32, {30}}},
                       {{"start_dim", int64_t(2)}, {"end_dim", int64_t(1)}}),
                    "start_dim 2 is after end_dim 1");
}

//===----------------------------------------------------------------------===//
// slice, gather
//===----------------------------------------------------------------------===//

TEST(SliceKernel, PythonSemantics) {
  Shape shape = {7, 13};
  Values x = randomInts(count(shape), 3, -500, 500);
  struct Case {
    Ints starts, ends, steps;
  } cases[] = {
      {{0, 0}, {7, 13}, {1, 1}},       {{1, 2}, {6, 13}, {2, 3}},
      {{-3, -100}, {100, -1}, {1, 4}}, // negative and clamped
      {{5, 0}, {2, 13}, {1, 1}},       // empty
      {{6, 12}, {7, 13}, {5, 7}},
  };
  for (const Case &c : cases)
    for (DType dtype : {DType::F32, DType::I64}) {
      Shape outShape;
      Ints begin;
      for (int d = 0; d < 2; ++d) {
        auto clamp = [&](int64_t v) {
          if (v < 0)
            v += shape[d];
          return std::min<int64_t>(std::max<int64_t>(v, 0), shape[d]);
        };
        int64_t b = clamp(c.starts[d]), e = clamp(c.ends[d]);
        begin.push_back(b);
        outShape.push_back(e > b ? (e - b + c.steps[d] - 1) / c.steps[d] : 0);
      }
      Values expected;
      for (int64_t i = 0; i < outShape[0]; ++i)
        for (int64_t j = 0; j < outShape[1]; ++j)
          expected.push_back(
              x[(begin[0] + i * c.steps[0]) * 13 + begin[1] + j * c.steps[1]]);
      auto out =
          runOk("slice", {tensor(dtype, shape, x)}, {{dtype, outShape}},
                {{"starts", c.starts}, {"ends", c.ends}, {"steps", c.steps}});
      EXPECT_EQ(values(out[0]), expected);
    }
  expectCreateError(
      op("slice", {{DType::F32, {4}}}, {{DType::F32, {4}}},
         {{"starts", Ints{0}}, {"ends", Ints{4}}, {"steps", Ints{0}}}),
      "step 0 on axis 0 is not positive");
  expectCreateError(
      op("slice", {{DType::F32, {4}}}, {{DType::F32, {4}}},
         {{"starts", Ints{0, 0}}, {"ends", Ints{4}}, {"steps", Ints{1}}}),
      "needs one start, end and step per axis (1)");
}

TEST(GatherKernel, AxesAndIndexTypes) {
  Shape shape = {5, 7, 3};
  Values x = randomValues(count(shape), 4);
  for (int64_t axis : {0, 1, -1})
    for (DType indexType : {DType::I32, DType::I64}) {
      SCOPED_TRACE("axis " + std::to_string(axis));
      int64_t a = axis < 0 ? axis + 3 : axis, dim = shape[a];
      Shape idxShape = {2, 4};
      Values idx = randomInts(8, 5 + a, -dim, dim - 1);
      Shape outShape(shape.begin(), shape.begin() + a);
      outShape.insert(outShape.end(), idxShape.begin(), idxShape.end());
      outShape.insert(outShape.end(), shape.begin() + a + 1, shape.end());
      Values expected;
      for (int64_t i = 0; i < count(outShape); ++i) {
        Shape o = unravel(i, outShape), in;
        in.assign(o.begin(), o.begin() + a);
        int64_t k = int64_t(idx[o[a] * 4 + o[a + 1]]);
        in.push_back(k < 0 ? k + dim : k);
        in.insert(in.end(), o.begin() + a + 2, o.end());
        int64_t flat = 0;
        for (size_t d = 0; d < 3; ++d)
          flat = flat * shape[d] + in[d];
        expected.push_back(x[flat]);
      }
      auto out =
          runOk("gather", {f32(shape, x), tensor(indexType, idxShape, idx)},
                {{DType::F32, outShape}}, {{"axis", axis}});
      EXPECT_EQ(values(out[0]), expected);
    }
}

TEST(GatherKernel, EmbeddingLookupAndBadIndices) {
  // The default axis 0 on a (vocab, hidden) table.
  Values table = {0, 1, 10, 11, 20, 21};
  auto out = runOk(
      "gather", {f32({3, 2}, table), tensor(DType::I64, {2, 2}, {2, 0, 1, 2})},
      {{DType::F32, {2, 2, 2}}});
  EXPECT_EQ(values(out[0]), (Values{20, 21, 0, 1, 10, 11, 20, 21}));

  OpDesc desc = op("gather", {{DType::F32, {3, 2}}, {DType::I32, {3}}},
                   {{DType::F32, {3, 2}}});
  for (double bad : {3.0, -4.0}) {
    auto result =
        run(desc, {f32({3, 2}, table), tensor(DType::I32, {3}, {0, 1, bad})});
    expectError(result.status(),
                {"oneflow.gather 'test_gather'",
                 "index " + std::to_string(int(bad)) + " at position 2",
                 "outside [-3, 3)"});
  }
  expectCreateError(op("gather", {{DType::F32, {3, 2}}, {DType::F32, {3}}},
                       {{DType::F32, {3, 2}}}),
                    "indices must be i32 or i64");
  expectCreateError(
      op("gather", {{DType::F32, {}}, {DType::I32, {3}}}, {{DType::F32, {3}}}),
      "cannot gather from a scalar");
}

TEST(GatherElementsKernel, PicksAlongTheAxisAndChecks) {
  // x = [[0, 1, 2], [10, 11, 12]]; along axis 1 with narrower indices
  // (torch.gather), and along axis 0 with a negative index.
  Values x = {0, 1, 2, 10, 11, 12};
  auto cols = runOk("gather_elements",
                    {f32({2, 3}, x), tensor(DType::I64, {2, 2}, {2, 0, 1, 1})},
                    {{DType::F32, {2, 2}}}, {{"axis", int64_t(1)}});
  EXPECT_EQ(values(cols[0]), (Values{2, 0, 11, 11}));
  auto rows = runOk("gather_elements",
                    {f32({2, 3}, x), tensor(DType::I32, {1, 3}, {1, -2, 1})},
                    {{DType::F32, {1, 3}}}, {{"axis", int64_t(0)}});
  EXPECT_EQ(values(rows[0]), (Values{10, 1, 12}));

  OpDesc desc =
      op("gather_elements", {{DType::F32, {2, 3}}, {DType::I64, {2, 1}}},
         {{DType::F32, {2, 1}}}, {{"axis", int64_t(1)}});
  auto result = run(desc, {f32({2, 3}, x), tensor(DType::I64, {2, 1}, {0, 3})});
  expectError(result.status(),
              {"oneflow.gather_elements 'test_gather_elements'",
               "index 3 at position 1", "outside [-3, 3)"});
  expectCreateError(op("gather_elements",
                       {{DType::F32, {2, 3}}, {DType::F32, {2, 1}}},
                       {{DType::F32, {2, 1}}}),
                    "indices must be i32 or i64");
  expectCreateError(op("gather_elements",
                       {{DType::F32, {2, 3}}, {DType::I64, {2}}},
                       {{DType::F32, {2}}}),
                    "must have the rank of");
  expectCreateError(op("gather_elements",
                       {{DType::F32, {2, 3}}, {DType::I64, {3, 1}}},
                       {{DType::F32, {3, 1}}}, {{"axis", int64_t(1)}}),
                    "are larger than 2x3xf32 on axis 0");
  expectCreateError(op("gather_elements",
                       {{DType::F32, {2, 3}}, {DType::I64, {2, 1}}},
                       {{DType::F32, {2, 2}}}),
                    "the result is 2x2xf32, needs 2x1xf32");
}

TEST(TopKKernel, SortsLinesAndPrefersLowerIndices) {
  // Along axis 1 of [[1, 3, 3, 2], [4, 0, 4, 4]]: the two largest, equal
  // values by position; the smallest along axis 0.
  Values x = {1, 3, 3, 2, 4, 0, 4, 4};
  auto top = runOk("top_k", {f32({2, 4}, x)},
                   {{DType::F32, {2, 2}}, {DType::I64, {2, 2}}},
                   {{"k", int64_t(2)}, {"axis", int64_t(1)}});
  EXPECT_EQ(values(top[0]), (Values{3, 3, 4, 4}));
  EXPECT_EQ(values(top[1]), (Values{1, 2, 0, 2}));
  auto low = runOk(
      "top_k", {f32({2, 4}, x)}, {{DType::F32, {1, 4}}, {DType::I64, {1, 4}}},
      {{"k", int64_t(1)}, {"axis", int64_t(0)}, {"smallest", true}});
  EXPECT_EQ(values(low[0]), (Values{1, 0, 3, 2}));
  EXPECT_EQ(values(low[1]), (Values{0, 1, 0, 0}));
  expectCreateError(op("top_k", {{DType::F32, {2, 4}}},
                       {{DType::F32, {2, 5}}, {DType::I64, {2, 5}}},
                       {{"k", int64_t(5)}}),
                    "k 5 is outside [0, 4]");
  expectCreateError(op("top_k", {{DType::F32, {2, 4}}},
                       {{DType::F32, {2, 2}}, {DType::I64, {2, 2}}}),
                    "k");
}

TEST(GatherKernel, PieceOfASplitTable) {
  // Rows [2, 4) of a 5-row table: indices elsewhere give zero rows, and
  // indices are checked against the whole table.
  Values rows = {20, 21, 30, 31};
  auto piece = [](std::vector<TensorDesc> inputs,
                  std::vector<TensorDesc> outputs, int64_t begin) {
    OpDesc desc = op("gather", std::move(inputs), std::move(outputs));
    desc.layout = IndexRange{begin, 5};
    return desc;
  };
  auto out = run(piece({{DType::F32, {2, 2}}, {DType::I64, {4}}},
                       {{DType::F32, {4, 2}}}, 2),
                 {f32({2, 2}, rows), tensor(DType::I64, {4}, {3, 0, -3, 4})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(values((*out)[0]), (Values{30, 31, 0, 0, 20, 21, 0, 0}));
  OpDesc desc = piece({{DType::F32, {2, 2}}, {DType::I64, {1}}},
                      {{DType::F32, {1, 2}}}, 2);
  expectError(run(desc, {f32({2, 2}, rows), tensor(DType::I64, {1}, {5})})
                  .status(),
              {"index 5 at position 0", "outside [-5, 5)"});
  expectCreateError(piece({{DType::F32, {2, 2}}, {DType::I64, {1}}},
                          {{DType::F32, {1, 2}}}, 4),
      "rows [4, 6) of the table are outside its 5 rows");
}

} // namespace

namespace {

TEST(EdgeShapes, ScalarsAndEmptyTensors) {
  // Rank-0 tensors.
  EXPECT_EQ(values(runOk("add", {f32({}, {1.5}), f32({}, {2})},
                         {{DType::F32, {}}})[0]),
            Values{3.5});
  EXPECT_EQ(values(runOk("relu", {f32({}, {-1})}, {{DType::F32, {}}})[0]),
            Values{0});
  EXPECT_EQ(values(runOk("reduce_sum", {f32({3, 4}, Values(12, 0.5))},
                         {{DType::F32, {}}}, {{"axes", Ints{0, 1}}})[0]),
            Values{6});
  // Reductions over no elements.
  Values none;
  EXPECT_EQ(values(runOk("reduce_sum", {f32({3, 0}, none)}, {{DType::F32, {3}}},
                         {{"axes", Ints{1}}})[0]),
            Values(3, 0.0));
  EXPECT_EQ(values(runOk("reduce_max", {f32({3, 0}, none)}, {{DType::F32, {3}}},
                         {{"axes", Ints{1}}})[0]),
            Values(3, -INFINITY));
  // Empty results are fine for every family.
  runOk("matmul", {f32({0, 5}, none), f32({5, 3}, randomValues(15, 1))},
        {{DType::F32, {0, 3}}});
  runOk("add", {f32({0, 4}, none), f32({4}, {1, 2, 3, 4})},
        {{DType::F32, {0, 4}}});
  runOk("softmax", {f32({0, 4}, none)}, {{DType::F32, {0, 4}}});
  runOk("transpose", {f32({0, 3}, none)}, {{DType::F32, {3, 0}}},
        {{"perm", Ints{1, 0}}});
  runOk("gather", {f32({3, 2}, Values(6, 1.0)), tensor(DType::I64, {0}, none)},
        {{DType::F32, {0, 2}}});
  runOk("conv2d", {f32({0, 2, 4, 4}, none), f32({3, 2, 3, 3}, Values(54, 1.0))},
        {{DType::F32, {0, 3, 2, 2}}});
}

TEST(EdgeShapes, Bf16ThroughOneDnn) {
  // oneDNN has bf16 element-wise primitives on processors with AVX-512
  // (BF16) or AMX only; elsewhere --precision bf16 is refused, and so is
  // this test.
  absl::StatusOr<const Backend *> cpu = findBackend(DeviceKind::Cpu);
  ASSERT_TRUE(cpu.ok());
  if (absl::Status bf16 = (*cpu)->checkPrecision(DType::BF16); !bf16.ok())
    GTEST_SKIP() << "this CPU's oneDNN has no bf16: " << bf16.message();
  // Values exact in bf16.
  TensorData a = tensor(DType::BF16, {2, 3}, {1, 2, 3, -4, 5.5, 0.25});
  TensorData b = tensor(DType::BF16, {3}, {0.5, 2, -1});
  EXPECT_EQ(values(runOk("add", {a, b}, {{DType::BF16, {2, 3}}})[0]),
            (Values{1.5, 4, 2, -3.5, 7.5, -0.75}));
  EXPECT_EQ(values(runOk("less", {a, b}, {{DType::Bool, {2, 3}}})[0]),
            (Values{0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(values(runOk("relu", {a}, {{DType::BF16, {2, 3}}})[0]),
            (Values{1, 2, 3, 0, 5.5, 0.25}));
  // Squares exact in bf16 too (the second row's sum, 46.3125, rounds to
  // 46.25); over the rows, the columns, and no axis.
  EXPECT_EQ(values(runOk("reduce_sum_square", {a}, {{DType::BF16, {2}}},
                         {{"axes", Ints{1}}})[0]),
            (Values{14, 46.25}));
  EXPECT_EQ(values(runOk("reduce_sum_square", {a}, {{DType::BF16, {3}}},
                         {{"axes", Ints{0}}})[0]),
            (Values{17, 34.25, 9.0625}));
  EXPECT_EQ(values(runOk("reduce_sum_square", {b}, {{DType::BF16, {3}}},
                         {{"axes", Ints{}}, {"keepdims", true}})[0]),
            (Values{0.25, 4, 1}));
}

TEST(EdgeShapes, Bf16FunctionsOneDnnLacksRunInF32) {
  // erf and floor have no oneDNN algorithm: bf16 goes through f32 and
  // rounds the result to the nearest bf16 (8 significant bits).
  TensorData x = tensor(DType::BF16, {4}, {0, 0.5, -1, 2.5});
  Values erf = values(runOk("erf", {x}, {{DType::BF16, {4}}})[0]);
  Values expected = {0, std::erf(0.5), std::erf(-1.0), std::erf(2.5)};
  ASSERT_EQ(erf.size(), expected.size());
  for (size_t i = 0; i < erf.size(); ++i)
    EXPECT_NEAR(erf[i], expected[i], std::abs(expected[i]) / 256) << i;
  EXPECT_NE(erf[1], std::erf(0.5)) << "rounded to bf16";
  EXPECT_EQ(values(runOk("floor", {x}, {{DType::BF16, {4}}})[0]),
            (Values{0, 0, -1, 2}));
}

} // namespace
