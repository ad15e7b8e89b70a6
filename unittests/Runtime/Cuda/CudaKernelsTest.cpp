//===- CudaKernelsTest.cpp - Every CUDA kernel against the CPU kernel -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each case creates an op's CPU kernel and its CUDA kernel, runs both on
// the same random inputs (odd, empty, broadcast and batched shapes) and
// compares every result, and every operand an in-place op writes, within
// the tolerance of the element type (kTolerances). Without a usable GPU
// every test is skipped, never passed.
//
//===----------------------------------------------------------------------===//

#include "../Kernels/KernelTestUtils.h"

#include "Kernels/Common/ElementwiseFunctions.h"
#include "Kernels/Cuda/CudaKernels.h"
#include "ofrt/Backend.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

/// |gpu - cpu| <= atol + rtol * |cpu| per element type (f32: the two
/// libraries sum in different orders); integers and i1 agree exactly.
struct Tolerance {
  double atol, rtol;
};
Tolerance toleranceOf(DType dtype) {
  switch (dtype) {
  case DType::F32: // Sums of ~100 products of [-2, 2] differ by ~1e-5.
    return {1e-4, 1e-5};
  case DType::F64:
    return {1e-12, 1e-11};
  case DType::BF16:
  case DType::F16:
    return {1e-2, 1e-2};
  default:
    return {0, 0};
  }
}

class CudaKernels : public ::testing::Test {
protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<Device>> created =
        createDevice(DeviceKind::Cuda, 0);
    if (!created.ok())
      GTEST_SKIP() << "no GPU: " << created.status().message();
    device = std::move(*created);
    absl::StatusOr<std::unique_ptr<Stream>> s = device->createStream("compute");
    ASSERT_TRUE(s.ok()) << s.status();
    stream = std::move(*s);
    absl::StatusOr<std::unique_ptr<ThreadBinding>> b =
        device->bindThread(stream.get());
    ASSERT_TRUE(b.ok()) << b.status();
    binding = std::move(*b);
  }
  void TearDown() override {
    binding.reset();
    stream.reset();
    device.reset();
  }

  /// Runs `desc` on the GPU `firings` times (steps and micro-batches 0, 1,
  /// ...): the results, then the operands as the kernel left them.
  std::vector<TensorData>
  runGpu(const OpDesc &desc, std::vector<TensorData> inputs, int firings = 1) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        KernelRegistry::global().create(DeviceKind::Cuda, desc);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok())
      return {};
    std::vector<TensorData> all = inputs;
    for (const TensorDesc &out : desc.outputs)
      all.push_back({out, std::vector<uint8_t>(out.bytes(), 0xA5)});
    std::vector<void *> buffers;
    std::vector<TensorView> in, out;
    for (size_t i = 0; i < all.size(); ++i) {
      absl::StatusOr<void *> buffer = device->allocate(all[i].bytes.size());
      EXPECT_TRUE(buffer.ok()) << buffer.status();
      buffers.push_back(*buffer);
      EXPECT_TRUE(device
                      ->copyToDevice(*stream, *buffer, all[i].bytes.data(),
                                     all[i].bytes.size())
                      .ok());
      (i < inputs.size() ? in : out).push_back({*buffer, all[i].desc});
    }
    for (int step = 0; step < firings; ++step) {
      KernelContext context{step, stream.get(), device.get(), step, firings};
      absl::Status status = (*kernel)->compute(context, in, out);
      EXPECT_TRUE(status.ok()) << status;
    }
    for (size_t i = 0; i < all.size(); ++i)
      EXPECT_TRUE(device
                      ->copyToHost(*stream, all[i].bytes.data(), buffers[i],
                                   all[i].bytes.size())
                      .ok());
    absl::Status synced = stream->synchronize();
    EXPECT_TRUE(synced.ok()) << synced;
    for (void *buffer : buffers)
      device->deallocate(buffer);
    std::rotate(all.begin(), all.begin() + inputs.size(), all.end());
    return all;
  }

  /// The same on the CPU kernel: results start as 0xA5 bytes and keep
  /// their buffers over the firings, operands are updated in place.
  std::vector<TensorData>
  runCpu(const OpDesc &desc, std::vector<TensorData> inputs, int firings = 1) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel = create(desc);
    EXPECT_TRUE(kernel.ok()) << kernel.status();
    if (!kernel.ok())
      return {};
    std::vector<TensorData> all = inputs;
    for (const TensorDesc &out : desc.outputs)
      all.push_back({out, std::vector<uint8_t>(out.bytes(), 0xA5)});
    std::vector<TensorView> in, out;
    for (size_t i = 0; i < all.size(); ++i)
      (i < inputs.size() ? in : out).push_back(all[i].view());
    for (int step = 0; step < firings; ++step) {
      KernelContext context;
      context.step = step;
      context.micro = step;
      context.microBatches = firings;
      absl::Status status = (*kernel)->compute(context, in, out);
      EXPECT_TRUE(status.ok()) << status;
    }
    std::rotate(all.begin(), all.begin() + inputs.size(), all.end());
    return all;
  }

  /// Runs both and compares every result and operand.
  void expectSame(const OpDesc &desc, const std::vector<TensorData> &inputs,
                  int firings = 1) {
    SCOPED_TRACE(
        desc.type + " on " +
        (inputs.empty() ? std::string("no operands") : inputs[0].desc.str()));
    std::vector<TensorData> cpu = runCpu(desc, inputs, firings);
    std::vector<TensorData> gpu = runGpu(desc, inputs, firings);
    ASSERT_EQ(cpu.size(), gpu.size());
    for (size_t i = 0; i < cpu.size(); ++i) {
      Tolerance tolerance = toleranceOf(cpu[i].desc.dtype);
      EXPECT_TRUE(
          near(values(gpu[i]), values(cpu[i]), tolerance.atol, tolerance.rtol))
          << "tensor #" << i << " (" << cpu[i].desc.str() << ")";
    }
  }

  std::unique_ptr<Device> device;
  std::unique_ptr<Stream> stream;
  std::unique_ptr<ThreadBinding> binding;
};

/// Random values of `dtype` and `shape` in [lo, hi] (integers rounded).
TensorData randomTensor(DType dtype, const Shape &shape, unsigned seed,
                        double lo = -2, double hi = 2) {
  if (dtype == DType::Bool)
    return tensor(dtype, shape, randomInts(count(shape), seed, 0, 1));
  if (!isFloat(dtype))
    return tensor(
        dtype, shape,
        randomInts(count(shape), seed, int64_t(lo * 8), int64_t(hi * 8)));
  return tensor(dtype, shape, randomValues(count(shape), seed, lo, hi));
}

/// NumPy's broadcast of two shapes (the test's shapes broadcast).
Shape broadcastShape(Shape a, Shape b) {
  if (a.size() < b.size())
    std::swap(a, b);
  b.insert(b.begin(), a.size() - b.size(), 1);
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = a[i] == 1 ? b[i] : a[i];
  return a;
}

const std::vector<Shape> kShapes = {{7, 13}, {0, 5}, {1}, {3, 1, 129}};

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
}

TEST_F(CudaKernels, SourcesAndReshapes) {
  TensorDesc w{DType::F32, {33, 17}};
  expectSame(
      op("variable", {}, {w},
         {{"init", std::string("kaiming_uniform")}, {"seed", int64_t(7)}}),
      {}, 2);
  expectSame(op("fill", {}, {w}, {{"value", 0.25}}), {}, 2);
  TensorData value = randomTensor(DType::F32, {4, 5}, 400);
  expectSame(op("constant", {}, {value.desc}, {{"value", value}}), {}, 2);
  TensorData x = randomTensor(DType::F32, {6, 10}, 401);
  expectSame(op("reshape", {x.desc}, {{DType::F32, {3, 20}}}), {x});
  expectSame(op("flatten", {x.desc}, {{DType::F32, {60}}}), {x});
}

TEST_F(CudaKernels, LocalBoxing) {
  unsigned seed = 1500;
  TensorData whole = randomTensor(DType::F32, {8, 6}, seed++);
  TensorData piece = randomTensor(DType::F32, {2, 3}, seed++);
  // Micro-batch m slices rows [2m + 2, 2m + 4) of columns [3, 6).
  OpDesc slice = op("local_slice", {whole.desc}, {piece.desc});
  slice.layout = LocalBoxingLayout{{2, 3}, true, {2, 0}};
  expectSame(slice, {whole}, 3);
  for (bool keep : {true, false}) {
    OpDesc partial = op("to_partial", {piece.desc}, {whole.desc});
    partial.layout = LocalBoxingLayout{{4, 1}, keep, {}};
    expectSame(partial, {piece});
  }
  for (DType dtype : {DType::F32, DType::I64}) {
    TensorData x = randomTensor(dtype, {5, 7}, seed++);
    expectSame(op("accumulate", {x.desc}, {x.desc}), {x}, 4);
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

TEST_F(CudaKernels, StagedOpsMatchTheCpu) {
  // Ops without a CUDA kernel yet run their CPU kernel on host copies.
  TensorData x = randomTensor(DType::F32, {7, 13}, 500, -50, 50);
  expectSame(op("cast", {x.desc}, {{DType::BF16, {7, 13}}}), {x});
}

TEST_F(CudaKernels, ArgReductions) {
  // Integers in a small range: ties, first or last among equals.
  TensorData x = randomTensor(DType::I32, {7, 13, 3}, 1600, -0.25, 0.25);
  for (const char *name : {"arg_max", "arg_min"})
    for (bool last : {false, true}) {
      expectSame(op(name, {x.desc}, {{DType::I64, {7, 3}}},
                    {{"axis", int64_t(1)}, {"select_last_index", last}}),
                 {x});
      TensorData f = randomTensor(DType::F32, {7, 13}, 1601);
      expectSame(op(name, {f.desc}, {{DType::I64, {13}}},
                    {{"axis", int64_t(0)}, {"select_last_index", last}}),
                 {f});
    }
}

TEST_F(CudaKernels, SoftmaxWhereMaskedFill) {
  unsigned seed = 550;
  for (DType dtype : {DType::F32, DType::F64})
    for (const Shape &shape : kShapes)
      for (int64_t axis : {int64_t(0), int64_t(-1)}) {
        TensorData x = randomTensor(dtype, shape, seed++, -20, 20);
        expectSame(op("softmax", {x.desc}, {x.desc}, {{"axis", axis}}), {x});
        expectSame(op("log_softmax", {x.desc}, {x.desc}, {{"axis", axis}}),
                   {x});
      }
  TensorData c = randomTensor(DType::Bool, {4, 1, 6}, seed++);
  for (DType dtype : {DType::F32, DType::I64, DType::Bool}) {
    TensorData x = randomTensor(dtype, {5, 1}, seed++);
    TensorData y = randomTensor(dtype, {4, 5, 6}, seed++);
    expectSame(op("where", {c.desc, x.desc, y.desc}, {{dtype, {4, 5, 6}}}),
               {c, x, y});
    TensorData mask = randomTensor(DType::Bool, {5, 6}, seed++);
    expectSame(
        op("masked_fill", {y.desc, mask.desc}, {y.desc}, {{"value", -3.0}}),
        {y, mask});
  }
}

TEST_F(CudaKernels, GatherCrossEntropyLayerNorm) {
  unsigned seed = 900;
  TensorData table = randomTensor(DType::F32, {10, 7}, seed++);
  for (DType indexType : {DType::I32, DType::I64}) {
    TensorData indices =
        tensor(indexType, {3, 4}, randomInts(12, seed++, -10, 9));
    expectSame(op("gather", {table.desc, indices.desc},
                  {{DType::F32, {3, 4, 7}}}, {{"axis", int64_t(0)}}),
               {table, indices});
    expectSame(
        op("gather", {table.desc, indices.desc}, {{DType::F32, {10, 3, 4}}},
           {{"axis", int64_t(1)}}),
        {table, tensor(indexType, {3, 4}, randomInts(12, seed++, -7, 6))});
    TensorData dy = randomTensor(DType::F32, {3, 4, 7}, seed++);
    expectSame(op("gather_grad", {dy.desc, indices.desc},
                  {{DType::F32, {10, 7}}}, {{"axis", int64_t(0)}}),
               {dy, indices});
  }
  TensorData logits = randomTensor(DType::F32, {6, 11}, seed++, -5, 5);
  TensorData labels = tensor(DType::I64, {6}, randomInts(6, seed++, 0, 10));
  expectSame(op("sparse_softmax_cross_entropy", {logits.desc, labels.desc},
                {logits.desc, {DType::F32, {6}}}),
             {logits, labels});
  TensorData x = randomTensor(DType::F32, {4, 6, 33}, seed++, -3, 3);
  TensorData gamma = randomTensor(DType::F32, {33}, seed++);
  TensorData beta = randomTensor(DType::F32, {33}, seed++);
  for (int64_t normAxis : {int64_t(-1), int64_t(1)}) {
    Shape stat = normAxis == 1 ? Shape{4} : Shape{4, 6};
    expectSame(op("layer_norm", {x.desc, gamma.desc, beta.desc},
                  {x.desc, {DType::F32, stat}, {DType::F32, stat}},
                  {{"begin_norm_axis", normAxis},
                   {"begin_params_axis", int64_t(-1)},
                   {"epsilon", 1e-5}}),
               {x, gamma, beta});
  }
}

TEST_F(CudaKernels, BadIndicesFailLikeTheCpu) {
  TensorData table = randomTensor(DType::F32, {10, 7}, 950);
  TensorData indices = tensor(DType::I64, {4}, {1, -10, 10, 3});
  OpDesc gather = op("gather", {table.desc, indices.desc},
                     {{DType::F32, {4, 7}}}, {{"axis", int64_t(0)}});
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      KernelRegistry::global().create(DeviceKind::Cuda, gather);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<void *> buffers;
  std::vector<TensorView> in, out;
  for (TensorData *t : {&table, &indices}) {
    void *buffer = *device->allocate(t->bytes.size());
    ASSERT_TRUE(
        device->copyToDevice(*stream, buffer, t->bytes.data(), t->bytes.size())
            .ok());
    buffers.push_back(buffer);
    in.push_back({buffer, t->desc});
  }
  void *result = *device->allocate(gather.outputs[0].bytes());
  buffers.push_back(result);
  out.push_back({result, gather.outputs[0]});
  KernelContext context{0, stream.get(), device.get()};
  expectError((*kernel)->compute(context, in, out),
              {"oneflow.gather", "'test_gather'",
               "index 10 at position 2 is outside [-10, 10)"});
  ASSERT_TRUE(stream->synchronize().ok());
  for (void *buffer : buffers)
    device->deallocate(buffer);
}

TEST_F(CudaKernels, Convolutions) {
  using Ints = std::vector<int64_t>;
  struct Case {
    Shape x, w, y;
    Ints strides, pads, dilations;
    int64_t groups;
  };
  std::vector<Case> cases = {{{2, 3, 9, 11},
                              {4, 3, 3, 3},
                              {2, 4, 9, 11},
                              {1, 1},
                              {1, 1, 1, 1},
                              {1, 1},
                              1},
                             {{2, 4, 9, 11},
                              {6, 2, 3, 1},
                              {2, 6, 4, 7},
                              {2, 2},
                              {0, 1, 0, 1},
                              {1, 1},
                              2},
                             {{1, 2, 10, 10},
                              {3, 2, 3, 3},
                              {1, 3, 6, 6},
                              {1, 1},
                              {0, 0, 0, 0},
                              {2, 2},
                              1}};
  unsigned seed = 1000;
  for (const Case &c : cases) {
    std::map<std::string, AttrValue> attrs = {{"strides", c.strides},
                                              {"pads", c.pads},
                                              {"dilations", c.dilations},
                                              {"groups", c.groups}};
    TensorData x = randomTensor(DType::F32, c.x, seed++);
    TensorData w = randomTensor(DType::F32, c.w, seed++);
    TensorData b = randomTensor(DType::F32, {c.w[0]}, seed++);
    TensorData dy = randomTensor(DType::F32, c.y, seed++);
    expectSame(
        op("conv2d", {x.desc, w.desc, b.desc}, {{DType::F32, c.y}}, attrs),
        {x, w, b});
    expectSame(op("conv2d_backward_data", {dy.desc, w.desc},
                  {{DType::F32, c.x}}, attrs),
               {dy, w});
    expectSame(op("conv2d_backward_filter", {x.desc, dy.desc},
                  {{DType::F32, c.w}}, attrs),
               {x, dy});
  }
}

TEST_F(CudaKernels, Pools) {
  using Ints = std::vector<int64_t>;
  unsigned seed = 1100;
  TensorData x = randomTensor(DType::F32, {2, 3, 9, 11}, seed++);
  struct Case {
    const char *name;
    std::map<std::string, AttrValue> attrs;
  };
  std::vector<Case> cases = {{"max_pool2d",
                              {{"kernel_size", Ints{3, 3}},
                               {"strides", Ints{2, 2}},
                               {"pads", Ints{1, 1, 1, 1}}}},
                             {"avg_pool2d",
                              {{"kernel_size", Ints{3, 2}},
                               {"strides", Ints{2, 1}},
                               {"pads", Ints{1, 0, 1, 0}}}},
                             {"avg_pool2d",
                              {{"kernel_size", Ints{3, 3}},
                               {"strides", Ints{2, 2}},
                               {"pads", Ints{1, 1, 1, 1}},
                               {"count_include_pad", true}}}};
  Shape outs[] = {{2, 3, 5, 6}, {2, 3, 5, 10}, {2, 3, 5, 6}};
  for (size_t i = 0; i < cases.size(); ++i) {
    TensorDesc y{DType::F32, outs[i]};
    expectSame(op(cases[i].name, {x.desc}, {y}, cases[i].attrs), {x});
    TensorData dy = randomTensor(DType::F32, outs[i], seed++);
    expectSame(op(std::string(cases[i].name) + "_grad", {x.desc, dy.desc},
                  {x.desc}, cases[i].attrs),
               {x, dy});
  }
  expectSame(op("global_avg_pool2d", {x.desc}, {{DType::F32, {2, 3, 1, 1}}}),
             {x});
}

TEST_F(CudaKernels, BatchNormTraining) {
  unsigned seed = 1200;
  TensorData x = randomTensor(DType::F32, {4, 3, 5, 6}, seed++, -3, 3);
  TensorData dy = randomTensor(DType::F32, {4, 3, 5, 6}, seed++);
  TensorDesc c{DType::F32, {3}};
  TensorData gamma = randomTensor(DType::F32, {3}, seed++);
  TensorData beta = randomTensor(DType::F32, {3}, seed++);
  TensorData moving = randomTensor(DType::F32, {3}, seed++, 0.5, 2);
  for (int64_t groups : {int64_t(1), int64_t(2)}) {
    TensorDesc stats = groups == 1 ? c : TensorDesc{DType::F32, {groups, 3}};
    std::map<std::string, AttrValue> attrs = {
        {"training", true}, {"epsilon", 1e-5}, {"statistics_groups", groups}};
    expectSame(
        op("batch_norm", {x.desc, c, c, c, c}, {x.desc, stats, stats}, attrs),
        {x, gamma, beta, moving, moving});
    TensorData mean = randomTensor(DType::F32, stats.shape, seed++, -1, 1);
    TensorData inv = randomTensor(DType::F32, stats.shape, seed++, 0.5, 2);
    attrs.erase("training");
    expectSame(op("batch_norm_grad", {x.desc, dy.desc, stats, stats, c},
                  {x.desc, c, c}, attrs),
               {x, dy, mean, inv, gamma});
  }
}

TEST_F(CudaKernels, TransposeSliceConcat) {
  using Ints = std::vector<int64_t>;
  unsigned seed = 700;
  for (DType dtype : {DType::F32, DType::F64, DType::I8, DType::Bool}) {
    TensorData x = randomTensor(dtype, {3, 5, 7}, seed++);
    expectSame(op("transpose", {x.desc}, {{dtype, {7, 3, 5}}},
                  {{"perm", Ints{2, 0, 1}}}),
               {x});
    expectSame(op("slice", {x.desc}, {{dtype, {2, 2, 3}}},
                  {{"starts", Ints{1, 0, -6}},
                   {"ends", Ints{3, 5, 7}},
                   {"steps", Ints{1, 3, 2}}}),
               {x});
    TensorData y = randomTensor(dtype, {3, 2, 7}, seed++);
    TensorData empty = randomTensor(dtype, {3, 0, 7}, seed++);
    expectSame(op("concat", {x.desc, empty.desc, y.desc}, {{dtype, {3, 7, 7}}},
                  {{"axis", int64_t(1)}}),
               {x, empty, y});
  }
  TensorData big = randomTensor(DType::F32, {64, 48, 33}, seed++);
  expectSame(op("transpose", {big.desc}, {{DType::F32, {33, 64, 48}}},
                {{"perm", Ints{2, 0, 1}}}),
             {big});
}

TEST_F(CudaKernels, Reductions) {
  using Ints = std::vector<int64_t>;
  struct Case {
    Shape in;
    Ints axes;
    bool keepdims;
    Shape out;
  };
  std::vector<Case> cases = {
      {{7, 13}, {1}, false, {7}},      {{7, 13}, {0}, true, {1, 13}},
      {{4, 5, 6}, {0, 2}, false, {5}}, {{4, 5, 6}, {-1, 0, 1}, false, {}},
      {{3, 0, 2}, {1}, false, {3, 2}}, {{1000, 3}, {0}, false, {3}}};
  unsigned seed = 800;
  for (const char *name : {"reduce_sum", "reduce_mean", "reduce_max"})
    for (DType dtype : {DType::F32, DType::F64, DType::I32})
      for (const Case &c : cases) {
        TensorData x = randomTensor(dtype, c.in, seed++);
        expectSame(op(name, {x.desc}, {{dtype, c.out}},
                      {{"axes", c.axes}, {"keepdims", c.keepdims}}),
                   {x});
      }
}

// Without a GPU: creating kernels touches no device.
TEST(CudaRegistry, EveryCpuOpHasACudaKernel) {
  const KernelRegistry &registry = KernelRegistry::global();
  for (const std::string &type : registry.opTypes(DeviceKind::Cpu))
    EXPECT_TRUE(registry.contains(DeviceKind::Cuda, type)) << type;
  std::set<std::string> staged = cudaStagedOpTypes();
  for (const char *native :
       {"oneflow.matmul", "oneflow.batch_matmul", "oneflow.add", "oneflow.relu",
        "oneflow.adam_update", "oneflow.variable"})
    EXPECT_EQ(staged.count(native), 0u) << native;
}

TEST(CudaRegistry, ErrorsNameTheOp) {
  // The CUDA kernels refuse what the CPU kernels refuse, with their words.
  TensorData a = randomTensor(DType::F32, {3, 4}, 600);
  TensorData b = randomTensor(DType::F32, {5, 6}, 601);
  OpDesc bad = op("matmul", {a.desc, b.desc}, {{DType::F32, {3, 6}}});
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      KernelRegistry::global().create(DeviceKind::Cuda, bad);
  ASSERT_FALSE(kernel.ok());
  expectError(kernel.status(),
              {"oneflow.matmul", "'test_matmul'", "test.mlir:1:1",
               "contraction sizes differ: 4 (a) and 5 (b)"});
}

} // namespace
