//===- RegistryTest.cpp - Every CPU kernel is registered ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"
#include "KernelUtils.h"

#include "ofrt/Backend.h"

#include <omp.h>

#include <algorithm>

using namespace ofrt;
using namespace ofrt::test;

namespace {

TEST(CpuKernelRegistry, HasEveryComputeOp) {
  const char *ops[] = {"matmul",
                       "batch_matmul",
                       "add",
                       "sub",
                       "mul",
                       "div",
                       "pow",
                       "maximum",
                       "minimum",
                       "equal",
                       "not_equal",
                       "less",
                       "less_equal",
                       "greater",
                       "greater_equal",
                       "logical_and",
                       "logical_or",
                       "logical_xor",
                       "logical_not",
                       "relu",
                       "gelu",
                       "tanh",
                       "sigmoid",
                       "exp",
                       "log",
                       "sqrt",
                       "rsqrt",
                       "neg",
                       "abs",
                       "reciprocal",
                       "sin",
                       "cos",
                       "floor",
                       "ceil",
                       "round",
                       "sign",
                       "softplus",
                       "tan",
                       "asin",
                       "acos",
                       "atan",
                       "sinh",
                       "cosh",
                       "asinh",
                       "acosh",
                       "atanh",
                       "leaky_relu",
                       "elu",
                       "selu",
                       "hard_sigmoid",
                       "erf",
                       "scalar_add",
                       "scalar_mul",
                       "scalar_div",
                       "scalar_pow",
                       "where",
                       "masked_fill",
                       "cast",
                       "softmax",
                       "log_softmax",
                       "sparse_softmax_cross_entropy",
                       "layer_norm",
                       "batch_norm",
                       "dropout",
                       "conv2d",
                       "conv2d_bn",
                       "max_pool2d",
                       "avg_pool2d",
                       "global_avg_pool2d",
                       "reshape",
                       "transpose",
                       "flatten",
                       "concat",
                       "slice",
                       "gather",
                       "gather_elements",
                       "top_k",
                       "reduce_sum",
                       "reduce_mean",
                       "reduce_max",
                       "arg_max",
                       "arg_min",
                       "variable",
                       "constant",
                       "fill",
                       "local_slice",
                       "to_partial",
                       "accumulate",
                       "sgd_update",
                       "adam_update",
                       "moving_average_update",
                       "find_nonfinite",
                       "conv2d_backward_data",
                       "conv2d_backward_filter",
                       "max_pool2d_grad",
                       "avg_pool2d_grad",
                       "resample",
                       "resample_grad",
                       "rnn",
                       "rnn_grad",
                       "bit_shift",
                       "batch_norm_grad",
                       "gather_grad",
                       "gather_elements_grad"};
  for (const char *name : ops)
    EXPECT_TRUE(
        registry().contains(DeviceKind::Cpu, std::string("oneflow.") + name))
        << name;
  EXPECT_EQ(registry().opTypes(DeviceKind::Cpu).size(), std::size(ops));
  // The engine handles inputs and outputs itself.
  EXPECT_FALSE(registry().contains(DeviceKind::Cpu, "oneflow.input"));
  EXPECT_FALSE(registry().contains(DeviceKind::Cpu, "oneflow.output"));
  // Sessions create kernels that talk to other ranks with their pool.
  EXPECT_FALSE(registry().contains(DeviceKind::Cpu, "oneflow.all_reduce"));
  EXPECT_FALSE(registry().contains(DeviceKind::Cpu, "oneflow.transfer"));
  // A build with the CUDA backend has a CUDA kernel (or a staged CPU one)
  // for every CPU op (unittests/Runtime/Cuda); one without has none.
  if (!findBackend(DeviceKind::Cuda).ok())
    EXPECT_TRUE(registry().opTypes(DeviceKind::Cuda).empty());
}

TEST(CpuKernelRegistry, WrongAttributeTypesAndCountsAreErrors) {
  // A present attribute of the wrong type is reported, not defaulted.
  expectCreateError(
      op("softmax", {{DType::F32, {4}}}, {{DType::F32, {4}}}, {{"axis", 0.5}}),
      "attribute 'axis' must be an integer, got a float");
  expectCreateError(op("relu", {{DType::F32, {4}}}, {}),
                    "needs 1 results, got 0");
  expectCreateError(op("relu", {{DType::F32, {-1}}}, {{DType::F32, {-1}}}),
                    "negative size");
}

} // namespace

// Kernels of few bytes are created and run on one OpenMP thread (forking a
// team costs more than they take); larger ones, and sources and sinks, see
// the calling thread's count.
TEST(CpuKernelRegistry, SmallKernelsRunOnOneThread) {
  struct Seen {
    int created = 0, computed = 0;
  };
  class Probe : public Kernel {
  public:
    explicit Probe(Seen &seen) : seen(seen) {
      seen.created = omp_get_max_threads();
    }
    absl::Status compute(const KernelContext &, const std::vector<TensorView> &,
                         const std::vector<TensorView> &) override {
      seen.computed = omp_get_max_threads();
      return absl::OkStatus();
    }

  private:
    Seen &seen;
  };
  KernelRegistry registry;
  Seen seen;
  for (const char *type : {"oneflow.probe", "oneflow.output"})
    cpu::addKernel(registry, type, [&](const OpDesc &) {
      return absl::StatusOr<std::unique_ptr<Kernel>>(
          std::make_unique<Probe>(seen));
    });
  int saved = omp_get_max_threads();
  omp_set_num_threads(3);
  // 128 KiB in all runs on one thread; a byte more, on the caller's three.
  TensorDesc half{DType::F32, {16384}}, more{DType::F32, {16385}};
  struct Case {
    const char *type;
    TensorDesc result;
    int threads;
  } cases[] = {{"probe", half, 1}, {"probe", more, 3}, {"output", half, 3}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(c.type) + " of " + c.result.str());
    OpDesc desc = op(c.type, {half}, {c.result});
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        registry.create(DeviceKind::Cpu, desc);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    ASSERT_TRUE((*kernel)->compute(KernelContext{}, {}, {}).ok());
    EXPECT_EQ(seen.created, c.threads);
    EXPECT_EQ(seen.computed, c.threads);
    // The caller's count is back afterwards.
    EXPECT_EQ(omp_get_max_threads(), 3);
  }
  omp_set_num_threads(saved);
}
