//===- LayoutKernelsTest.cpp - Copies, reductions, the registry -----------===//
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

#include "Kernels/Cuda/CudaKernels.h"

using namespace ofrt;
using namespace ofrt::test;

namespace {

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
      {{3, 0, 2}, {1}, false, {3, 2}}, {{1000, 3}, {0}, false, {3}},
      // Few results of many elements: two passes, many blocks per result.
      {{300000}, {0}, false, {}},      {{4, 100000}, {1}, false, {4}},
      {{70000, 3}, {0}, true, {1, 3}}};
  unsigned seed = 800;
  for (const char *name :
       {"reduce_sum", "reduce_mean", "reduce_max", "reduce_sum_square"})
    for (DType dtype : {DType::F32, DType::F64, DType::I32})
      for (const Case &c : cases) {
        if (name == std::string("reduce_sum_square") && dtype == DType::I32)
          continue; // float tensors only
        TensorData x = randomTensor(dtype, c.in, seed++);
        // f32 sums of n elements in [-2, 2] differ with the order of the
        // additions by up to about n * 2 * 2^-24 (seen on an H200: 7e-4
        // for 1e5 elements): the tolerance grows with n.
        int64_t n = 1;
        for (int64_t axis : c.axes)
          n *= c.in[axis < 0 ? axis + c.in.size() : axis];
        std::optional<Tolerance> sums;
        // Squares are up to 4, not 2: twice the bound.
        double perElement =
            name == std::string("reduce_sum_square") ? 4.8e-7 : 2.4e-7;
        if (dtype == DType::F32 && n > 1000)
          sums = Tolerance{perElement * n, 1e-5};
        expectSame(op(name, {x.desc}, {{dtype, c.out}},
                      {{"axes", c.axes}, {"keepdims", c.keepdims}}),
                   {x}, 1, sums);
      }
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

TEST_F(CudaKernels, StagedOpsMatchTheCpu) {
  // Ops without a CUDA kernel yet run their CPU kernel on host copies:
  // integer division (whose errors the CPU kernel reports), with a
  // broadcast divisor without zeros.
  TensorData a = randomTensor(DType::I32, {7, 13}, 500, -50, 50);
  TensorData b = randomTensor(DType::I32, {13}, 501, 0.2, 2);
  OpDesc div = op("div", {a.desc, b.desc}, {{DType::I32, {7, 13}}});
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      KernelRegistry::global().create(DeviceKind::Cuda, div);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_TRUE(isStaged(**kernel));
  expectSame(div, {a, b});
}

// bf16 element-wise ops, casts and reductions compute in f32 on the GPU and
// round once, as oneDNN does on the CPU (whose bf16 kernels the comparison
// needs: skipped on a CPU without them).
TEST_F(CudaKernels, Bf16ComputesInF32AsOnTheCpu) {
  absl::StatusOr<const Backend *> cpu = findBackend(DeviceKind::Cpu);
  ASSERT_TRUE(cpu.ok());
  if (absl::Status bf16 = (*cpu)->checkPrecision(DType::BF16); !bf16.ok())
    GTEST_SKIP() << "this CPU's oneDNN has no bf16: " << bf16.message();
  const DType bf = DType::BF16;
  unsigned seed = 1700;
  for (const char *name : {"relu", "gelu", "tanh", "exp", "neg", "sigmoid"}) {
    TensorData x = randomTensor(bf, {7, 13}, seed++);
    expectSame(op(name, {x.desc}, {x.desc}), {x});
  }
  for (const char *name : {"add", "sub", "mul", "div", "maximum"}) {
    TensorData a = randomTensor(bf, {5, 1, 7}, seed++, 0.5, 2);
    TensorData b = randomTensor(bf, {3, 7}, seed++, 0.5, 2);
    expectSame(op(name, {a.desc, b.desc}, {{bf, {5, 3, 7}}}), {a, b});
  }
  TensorData a = randomTensor(bf, {4, 9}, seed++), b = randomTensor(bf, {9}, seed++);
  expectSame(op("less", {a.desc, b.desc}, {{DType::Bool, {4, 9}}}), {a, b});
  TensorData f = randomTensor(DType::F32, {7, 13}, seed++, -50, 50);
  expectSame(op("cast", {f.desc}, {{bf, {7, 13}}}), {f});
  TensorData h = randomTensor(bf, {7, 13}, seed++, -50, 50);
  expectSame(op("cast", {h.desc}, {{DType::F32, {7, 13}}}), {h});
  TensorData r = randomTensor(bf, {6, 300}, seed++);
  for (const char *name :
       {"reduce_sum", "reduce_mean", "reduce_max", "reduce_sum_square"})
    expectSame(op(name, {r.desc}, {{bf, {6}}}, {{"axes", std::vector<int64_t>{1}}}),
               {r});
}

// Without a GPU: creating kernels touches no device.
TEST(CudaRegistry, EveryCpuOpHasACudaKernel) {
  const KernelRegistry &registry = KernelRegistry::global();
  for (const std::string &type : registry.opTypes(DeviceKind::Cpu))
    EXPECT_TRUE(registry.contains(DeviceKind::Cuda, type)) << type;
  // And nothing else: every CUDA kernel is registered under a name of the
  // dialect's ops (ofrt/KernelParams.h) that the CPU has too.
  for (const std::string &type : registry.opTypes(DeviceKind::Cuda))
    EXPECT_TRUE(registry.contains(DeviceKind::Cpu, type))
        << type << " is a CUDA kernel without a CPU one";
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
