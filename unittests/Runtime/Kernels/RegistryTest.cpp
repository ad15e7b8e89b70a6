//===- RegistryTest.cpp - Every CPU kernel is registered
//-------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"

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
                       "reduce_sum",
                       "reduce_mean",
                       "reduce_max",
                       "variable",
                       "constant",
                       "fill",
                       "local_slice",
                       "to_partial",
                       "sgd_update",
                       "adam_update",
                       "conv2d_backward_data",
                       "conv2d_backward_filter",
                       "max_pool2d_grad",
                       "avg_pool2d_grad",
                       "batch_norm_grad",
                       "gather_grad"};
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
