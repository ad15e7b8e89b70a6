//===- NNKernelsTest.cpp - Softmax, gather, norms, convolutions -----------===//
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

#include <cmath>

using namespace ofrt;
using namespace ofrt::test;

namespace {

TEST_F(CudaKernels, SoftmaxWhereMaskedFill) {
  unsigned seed = 550;
  for (DType dtype : {DType::F32, DType::F64})
    for (const Shape &shape : kShapes)
      for (int64_t axis : {int64_t(0), int64_t(-1)}) {
        TensorData x = randomTensor(dtype, shape, seed++, -20, 20);
        expectSame(op("softmax", {x.desc}, {x.desc}, {{"axis", axis}}), {x});
        expectSame(op("log_softmax", {x.desc}, {x.desc}, {{"axis", axis}}),
                   {x});
        // softmax_grad's formula holds for any y: cuDNN against the CPU.
        TensorData y = randomTensor(dtype, shape, seed++, 0, 1),
                   dy = randomTensor(dtype, shape, seed++);
        expectSame(op("softmax_grad", {y.desc, dy.desc}, {y.desc},
                      {{"axis", axis}}),
                   {y, dy});
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
                  {{DType::F32, {10, 7}}},
                  {{"axis", int64_t(0)}, {"dim_size", int64_t(10)}}),
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
  // layer_norm_grad on statistics of x's rows of 33 (atomic sums of dgamma
  // and dbeta: compared within expectSame's tolerance).
  TensorData dy = randomTensor(DType::F32, {4, 6, 33}, seed++);
  Values xs = values(x), mean(24), inv(24);
  for (int64_t r = 0; r < 24; ++r) {
    double sum = 0, sq = 0;
    for (int64_t k = 0; k < 33; ++k)
      sum += xs[r * 33 + k];
    mean[r] = sum / 33;
    for (int64_t k = 0; k < 33; ++k)
      sq += (xs[r * 33 + k] - mean[r]) * (xs[r * 33 + k] - mean[r]);
    inv[r] = 1 / std::sqrt(sq / 33 + 1e-5);
  }
  TensorData m = tensor(DType::F32, {4, 6}, mean),
             iv = tensor(DType::F32, {4, 6}, inv);
  expectSame(
      op("layer_norm_grad", {x.desc, dy.desc, m.desc, iv.desc, gamma.desc},
         {x.desc, gamma.desc, gamma.desc}, {{"begin_norm_axis", int64_t(-1)}}),
      {x, dy, m, iv, gamma});
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
    std::map<std::string, AttrValue> data = attrs, filter = attrs;
    data["input_shape"] = c.x;
    filter["weight_shape"] = c.w;
    expectSame(op("conv2d_backward_data", {dy.desc, w.desc},
                  {{DType::F32, c.x}}, data),
               {dy, w});
    expectSame(op("conv2d_backward_filter", {x.desc, dy.desc},
                  {{DType::F32, c.w}}, filter),
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

} // namespace
