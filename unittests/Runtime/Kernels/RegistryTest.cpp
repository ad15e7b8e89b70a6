//===- RegistryTest.cpp - Every CPU kernel is registered ------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "KernelTestUtils.h"
#include "KernelUtils.h"

#include "ofrt/Backend.h"
#include "ofrt/KernelParams.h"

#include <omp.h>

#include <algorithm>
#include <set>

using namespace ofrt;
using namespace ofrt::test;

namespace {

TEST(CpuKernelRegistry, HasEveryComputeOp) {
  // Every op of the dialect (from its ODS, ofrt/KernelParams.h) whose actor
  // computes with a kernel (variables initialize theirs) has a CPU kernel,
  // but oneflow.boxing, which oneflow-lower-boxing turns into collectives
  // and local slices before a plan is made; nothing else is registered.
  const std::set<std::string> loweredAway = {"oneflow.boxing"};
  std::set<std::string> expected;
  for (const char *name : params::kOps) {
    if (loweredAway.count(name)) {
      EXPECT_FALSE(registry().contains(DeviceKind::Cpu, name)) << name;
      continue;
    }
    OpRole role = roleOfOp(name);
    if (role != OpRole::Kernel && role != OpRole::Optimizer &&
        role != OpRole::Variable)
      continue;
    expected.insert(name);
    EXPECT_TRUE(registry().contains(DeviceKind::Cpu, name))
        << name << " has no CPU kernel";
  }
  std::vector<std::string> registered = registry().opTypes(DeviceKind::Cpu);
  for (const std::string &type : registered)
    EXPECT_TRUE(expected.count(type)) << type << " is not an op of the dialect";
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

// The generated parameters (ofrt/KernelParams.h) read what the op declares,
// with its declared type and default.
TEST(KernelParams, ReadTypedWithTheDeclaredDefaults) {
  absl::StatusOr<params::GatherOp> gather =
      params::GatherOp::read(op("gather", {}, {}));
  ASSERT_TRUE(gather.ok()) << gather.status();
  EXPECT_EQ(gather->axis, 0); // DefaultValuedAttr<I64Attr, "0">
  gather = params::GatherOp::read(op("gather", {}, {}, {{"axis", int64_t{2}}}));
  ASSERT_TRUE(gather.ok()) << gather.status();
  EXPECT_EQ(gather->axis, 2);

  absl::StatusOr<params::AdamUpdateOp> adam = params::AdamUpdateOp::read(
      op("adam_update", {}, {},
         {{"lr", 0.5}, {"beta1", 0.9}, {"beta2", 0.99}}));
  ASSERT_TRUE(adam.ok()) << adam.status();
  EXPECT_EQ(adam->lr, 0.5);
  EXPECT_EQ(adam->epsilon, 1e-8);
  EXPECT_FALSE(adam->decoupled); // A UnitAttr left out.

  absl::StatusOr<params::BitShiftOp> shift = params::BitShiftOp::read(
      op("bit_shift", {}, {}, {{"direction", std::string("left")}}));
  ASSERT_FALSE(shift.ok());
  expectError(shift.status(),
              {"oneflow.bit_shift", "needs attribute 'width'"});
  gather = params::GatherOp::read(
      op("gather", {}, {}, {{"axis", std::string("rows")}}));
  ASSERT_FALSE(gather.ok());
  expectError(gather.status(),
              {"oneflow.gather", "attribute 'axis' must be an integer"});
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
