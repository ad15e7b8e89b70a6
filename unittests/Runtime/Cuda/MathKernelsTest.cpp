//===- MathKernelsTest.cpp - Element-wise ops, matmuls, updates -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// CUDA kernels against the CPU kernels of the same ops (CudaKernelTests.h);
// skipped without a GPU.
//
//===----------------------------------------------------------------------===//

#include "CudaKernelTests.h"

#include <limits>

using namespace ofrt;
using namespace ofrt::test;

namespace {

TEST_F(CudaKernels, UnaryFloat) {
  struct Case {
    const char *name;
    double lo, hi;
    std::map<std::string, AttrValue> attrs;
  };
  std::vector<Case> cases = {
      {"relu", -2, 2, {}},
      {"gelu", -3, 3, {}},
      {"tanh", -3, 3, {}},
      {"sigmoid", -8, 8, {}},
      {"exp", -5, 5, {}},
      {"log", 0.01, 5, {}},
      {"sqrt", 0, 5, {}},
      {"rsqrt", 0.01, 5, {}},
      {"neg", -2, 2, {}},
      {"abs", -2, 2, {}},
      {"erf", -3, 3, {}},
      {"reciprocal", 0.1, 3, {}},
      {"sin", -4, 4, {}},
      {"cos", -4, 4, {}},
      {"floor", -4, 4, {}},
      {"ceil", -4, 4, {}},
      {"round", -4, 4, {}},
      {"sign", -2, 2, {}},
      {"softplus", -30, 30, {}},
      {"tan", -1.5, 1.5, {}},
      {"asin", -1, 1, {}},
      {"acos", -1, 1, {}},
      {"atan", -5, 5, {}},
      {"sinh", -4, 4, {}},
      {"cosh", -4, 4, {}},
      {"asinh", -4, 4, {}},
      {"acosh", 1, 5, {}},
      {"atanh", -0.99, 0.99, {}},
      {"leaky_relu", -2, 2, {{"alpha", 0.1}}},
      {"elu", -2, 2, {}},
      {"selu", -2, 2, {}},
      {"hard_sigmoid", -4, 4, {}},
      {"scalar_add", -2, 2, {{"scalar", 1.5}}},
      {"scalar_mul", -2, 2, {{"scalar", -3.0}}},
      {"scalar_div", -2, 2, {{"scalar", 7.0}}},
      {"scalar_pow", 0, 2, {{"scalar", 2.5}}},
  };
  unsigned seed = 1;
  for (DType dtype : {DType::F32, DType::F64})
    for (const Case &c : cases)
      for (const Shape &shape : kShapes) {
        TensorData x = randomTensor(dtype, shape, seed++, c.lo, c.hi);
        expectSame(op(c.name, {x.desc}, {x.desc}, c.attrs), {x});
      }
}

TEST_F(CudaKernels, UnaryIntegerAndBool) {
  std::vector<std::pair<const char *, double>> cases = {
      {"relu", 0},       {"neg", 0},          {"abs", 0},
      {"sign", 0},       {"scalar_add", 3},   {"scalar_mul", -2},
      {"scalar_div", 3}, {"scalar_div", 2.5}, {"scalar_pow", 2}};
  unsigned seed = 100;
  for (DType dtype : {DType::I8, DType::I32, DType::I64})
    for (auto [name, scalar] : cases) {
      TensorData x = randomTensor(dtype, {5, 17}, seed++);
      std::map<std::string, AttrValue> attrs;
      if (std::string(name).rfind("scalar_", 0) == 0)
        attrs["scalar"] = scalar;
      expectSame(op(name, {x.desc}, {x.desc}, attrs), {x});
    }
  TensorData b = randomTensor(DType::Bool, {9, 3}, seed);
  expectSame(op("logical_not", {b.desc}, {b.desc}), {b});
}

TEST_F(CudaKernels, BinaryBroadcasting) {
  std::vector<std::pair<Shape, Shape>> shapes = {
      {{5, 7}, {5, 7}}, {{5, 1}, {1, 7}}, {{}, {3, 4, 5}},
      {{2, 3, 4}, {4}}, {{0, 3}, {1, 3}}, {{2, 1, 3, 1}, {1, 4, 1, 5}},
      {{3, 4, 5}, {}},  {{1}, {1}}};
  unsigned seed = 200;
  for (const elementwise::OpInfo &info : elementwise::kOps) {
    bool logical = elementwise::isLogical(info.op);
    std::vector<DType> dtypes =
        logical ? std::vector<DType>{DType::Bool}
        : info.op == elementwise::Op::GeluGrad // floating point only
            ? std::vector<DType>{DType::F32, DType::F64}
            : std::vector<DType>{DType::F32, DType::F64, DType::I32,
                                 DType::I64};
    for (DType dtype : dtypes)
      for (auto [sa, sb] : shapes) {
        double lo = info.op == elementwise::Op::Pow ? 0.1 : -2;
        TensorData a = randomTensor(dtype, sa, seed++, lo, 2);
        TensorData b = randomTensor(dtype, sb, seed++, lo, 2);
        if (info.op == elementwise::Op::Div && !isFloat(dtype))
          b = randomTensor(dtype, sb, seed++, 0.2, 2); // no zero divisors
        if (info.op == elementwise::Op::Pow && !isFloat(dtype))
          b = randomTensor(dtype, sb, seed++, 0, 0.5);
        Shape out = broadcastShape(sa, sb);
        DType result = info.comparison ? DType::Bool : dtype;
        expectSame(op(info.name, {a.desc, b.desc}, {{result, out}}), {a, b});
      }
  }
}

TEST_F(CudaKernels, Matmul) {
  struct Case {
    Shape a, b, c;
    bool ta, tb;
  };
  std::vector<Case> cases = {{{7, 13}, {13, 5}, {7, 5}, false, false},
                             {{13, 7}, {13, 5}, {7, 5}, true, false},
                             {{7, 13}, {5, 13}, {7, 5}, false, true},
                             {{13, 7}, {5, 13}, {7, 5}, true, true},
                             {{64, 128}, {128, 96}, {64, 96}, false, false},
                             {{4, 0}, {0, 3}, {4, 3}, false, false},
                             {{0, 8}, {8, 3}, {0, 3}, false, false}};
  unsigned seed = 300;
  for (DType dtype : {DType::F32}) // the CPU has no f64 matmul
    for (const Case &c : cases) {
      TensorData a = randomTensor(dtype, c.a, seed++);
      TensorData b = randomTensor(dtype, c.b, seed++);
      expectSame(op("matmul", {a.desc, b.desc}, {{dtype, c.c}},
                    {{"transpose_a", c.ta}, {"transpose_b", c.tb}}),
                 {a, b});
      // matmul_bias: the bias copied into the rows, then beta = 1.
      TensorData bias = randomTensor(dtype, {c.c[1]}, seed++);
      expectSame(op("matmul_bias", {a.desc, b.desc, bias.desc}, {{dtype, c.c}},
                    {{"transpose_a", c.ta}, {"transpose_b", c.tb}}),
                 {a, b, bias});
    }
  std::vector<Case> batched = {
      {{3, 4, 5}, {3, 5, 2}, {3, 4, 2}, false, false},
      {{3, 4, 5}, {5, 2}, {3, 4, 2}, false, false},
      {{4, 5}, {3, 5, 2}, {3, 4, 2}, false, false},
      {{2, 1, 3, 4}, {1, 5, 4, 6}, {2, 5, 3, 6}, false, false},
      {{2, 3, 5, 4}, {2, 3, 6, 5}, {2, 3, 4, 6}, true, true}};
  for (const Case &c : batched) {
    TensorData a = randomTensor(DType::F32, c.a, seed++);
    TensorData b = randomTensor(DType::F32, c.b, seed++);
    expectSame(op("batch_matmul", {a.desc, b.desc}, {{DType::F32, c.c}},
                  {{"transpose_a", c.ta}, {"transpose_b", c.tb}}),
               {a, b});
    // alpha: cuBLASLt's scale of the product.
    expectSame(
        op("batch_matmul", {a.desc, b.desc}, {{DType::F32, c.c}},
           {{"transpose_a", c.ta}, {"transpose_b", c.tb}, {"alpha", -0.125}}),
        {a, b});
  }
}

TEST_F(CudaKernels, OptimizerUpdatesInPlace) {
  TensorDesc p{DType::F32, {37, 3}};
  auto t = [&](unsigned seed) {
    return randomTensor(DType::F32, p.shape, seed);
  };
  TensorData scale = f32({}, {0.5});
  std::map<std::string, AttrValue> schedule = {
      {"lr", 0.1}, {"warmup_steps", int64_t(2)}, {"total_steps", int64_t(10)}};
  auto with = [&](std::map<std::string, AttrValue> extra) {
    std::map<std::string, AttrValue> attrs = schedule;
    attrs.insert(extra.begin(), extra.end());
    return attrs;
  };
  expectSame(op("sgd_update", {p, p}, {}, with({{"weight_decay", 0.01}})),
             {t(1), t(2)}, 3);
  expectSame(op("sgd_update", {p, p, p, scale.desc}, {},
                with({{"momentum", 0.9}, {"nesterov", true}})),
             {t(3), t(4), t(5), scale}, 3);
  for (bool decoupled : {false, true})
    expectSame(op("adam_update", {p, p, p, p}, {},
                  with({{"weight_decay", 0.1}, {"decoupled", decoupled}})),
               {t(6), t(7), t(8), randomTensor(DType::F32, p.shape, 9, 0, 1)},
               4);
  expectSame(op("moving_average_update", {p, p}, {}, {{"momentum", 0.1}}),
             {t(10), t(11)}, 2);
  // A set skip flag (read on the device) changes nothing, as on the CPU.
  for (double flag : {0.0, 2.0}) {
    TensorData skip = f32({}, {flag});
    expectSame(op("sgd_update", {p, p, p, scale.desc, skip.desc}, {},
                  with({{"momentum", 0.9}})),
               {t(12), t(13), t(14), scale, skip}, 2);
    expectSame(op("adam_update", {p, p, p, p, scale.desc, skip.desc}, {},
                  with({{"weight_decay", 0.1}})),
               {t(15), t(16), t(17), randomTensor(DType::F32, p.shape, 18, 0, 1),
                scale, skip},
               2);
  }
}

TEST_F(CudaKernels, FindNonfinite) {
  const double bad[] = {0.0, std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity()};
  unsigned seed = 1900;
  for (DType dtype : {DType::F32, DType::F64, DType::BF16})
    for (double value : bad) {
      Values x = randomValues(5000, seed++, -100, 100);
      if (value != 0.0)
        x[4321] = value;
      expectSame(op("find_nonfinite", {{dtype, {5000}}}, {{DType::F32, {}}},
                    {{"codes", std::vector<int64_t>{9}},
                     {"labels", std::vector<std::string>{"x"}}}),
                 {tensor(dtype, {5000}, x)});
    }
  // Several tensors: the largest code of those that are not finite, though
  // the tensors are not in order of code.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int bad = 0; bad < 8; ++bad) {
    std::vector<TensorData> in;
    std::vector<TensorDesc> descs;
    for (int i = 0; i < 3; ++i) {
      Values x = randomValues(3000 + i, seed++, -1, 1);
      if (bad & (1 << i))
        x[1000 * i] = nan;
      in.push_back(tensor(i == 2 ? DType::BF16 : DType::F32, {3000 + i}, x));
      descs.push_back(in.back().desc);
    }
    expectSame(op("find_nonfinite", descs, {{DType::F32, {}}},
                  {{"codes", std::vector<int64_t>{4, 9, 2}},
                   {"labels", std::vector<std::string>{"a", "b", "c"}}}),
               in);
  }
}

TEST_F(CudaKernels, Casts) {
  unsigned seed = 1400;
  std::vector<DType> types = {DType::F32, DType::F64, DType::I8,
                              DType::I32, DType::I64, DType::Bool};
  for (DType from : types) {
    TensorData x = randomTensor(from, {5, 19}, seed++, -300, 300);
    for (DType to : types)
      expectSame(op("cast", {x.desc}, {{to, {5, 19}}}), {x});
  }
  // Saturation and NaN.
  TensorData odd = f32({4}, {1e10, -1e10, std::nan(""), -2.7});
  expectSame(op("cast", {odd.desc}, {{DType::I32, {4}}}), {odd});
}

TEST_F(CudaKernels, DropoutDrawsTheCpuMask) {
  TensorData x = randomTensor(DType::F32, {37, 129}, 1300);
  for (double rate : {0.0, 0.1, 0.5})
    expectSame(op("dropout", {x.desc}, {x.desc, {DType::Bool, x.desc.shape}},
                  {{"rate", rate}, {"seed", int64_t(42)}}),
               {x}, 3);
}

TEST_F(CudaKernels, SourcesAndReshapes) {
  TensorDesc w{DType::F32, {33, 17}};
  expectSame(
      op("variable", {}, {w},
         {{"init", std::string("kaiming_uniform")},
          {"seed", int64_t(7)},
          {"name", std::string("w")}}),
      {}, 2);
  expectSame(op("fill", {}, {w}, {{"value", 0.25}}), {}, 2);
  TensorData value = randomTensor(DType::F32, {4, 5}, 400);
  expectSame(op("constant", {}, {value.desc}, {{"value", value}}), {}, 2);
  TensorData x = randomTensor(DType::F32, {6, 10}, 401);
  expectSame(op("reshape", {x.desc}, {{DType::F32, {3, 20}}}), {x});
  expectSame(op("flatten", {x.desc}, {{DType::F32, {60}}}), {x});
}

} // namespace
