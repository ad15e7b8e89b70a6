//===- ProgramTest.cpp - Invalid programs are refused by name -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "TestPrograms.h"

#include "ofrt/Device.h"

#include <gtest/gtest.h>

using namespace ofrt;
using namespace ofrt::test;

namespace {

std::string errorOf(const RankProgram &program) {
  absl::Status status = validateProgram(program);
  return status.ok() ? "ok" : std::string(status.message());
}

ProgramBuilder chain() {
  ProgramBuilder b;
  int64_t a = b.actor("a", "compute", {});
  b.actor("b", "compute", {b.out(a)}, 0);
  return b;
}

TEST(ValidateProgram, AcceptsAChain) { EXPECT_EQ(errorOf(chain().program), "ok"); }

TEST(ValidateProgram, StreamOrderAgainstDataIsADeadlock) {
  ProgramBuilder b = chain();
  std::swap(b.program.streams[0].actors[0], b.program.streams[0].actors[1]);
  EXPECT_EQ(errorOf(b.program),
            "actor 0 (test.a 'a' at test.mlir:1:1) is on a cycle of data and "
            "stream-order dependencies (the plan would deadlock)");
}

TEST(ValidateProgram, CountZero) {
  ProgramBuilder b = chain();
  b.program.regsts[0].count = 0;
  EXPECT_EQ(errorOf(b.program),
            "regst 0 has count 0; it needs 1 to 4096 buffers");
}

TEST(ValidateProgram, UnknownRegst) {
  ProgramBuilder b = chain();
  b.program.actors[1].inputs[0] = 9;
  EXPECT_EQ(errorOf(b.program),
            "regst 0 names consumer actor 1 (test.b 'b' at test.mlir:2:1), "
            "which does not list it as an input");
}

TEST(ValidateProgram, ActorOnNoStream) {
  ProgramBuilder b = chain();
  b.program.streams[0].actors.pop_back();
  EXPECT_EQ(errorOf(b.program),
            "actor 1 (test.b 'b' at test.mlir:2:1) is on 0 streams; it must "
            "be on exactly one");
}

TEST(ValidateProgram, DescMismatch) {
  ProgramBuilder b = chain();
  b.program.actors[1].op.inputs[0] = {DType::F32, {4}};
  EXPECT_EQ(errorOf(b.program),
            "actor 1 (test.b 'b' at test.mlir:2:1) expects 4xf32 but regst 0 "
            "holds i64");
}

TEST(ValidateProgram, BufferOutsideTheArena) {
  ProgramBuilder b = chain();
  b.program.arenaBytes = 64;
  b.program.regsts[0].offset = 32;
  EXPECT_EQ(errorOf(b.program), "regst 0 does not fit the 64-byte arena");
}

TEST(ValidateProgram, DuplicateIds) {
  ProgramBuilder b = chain();
  b.program.actors[1].id = 0;
  EXPECT_EQ(errorOf(b.program), "actor id 0 is used twice");
}

TEST(ValidateProgram, EngineRefusesInvalidPrograms) {
  ProgramBuilder b = chain();
  b.program.regsts[0].producer = 5;
  auto engine = Engine::create(b.program, test::cpuDevice(), [](const ActorSpec &) -> absl::StatusOr<std::unique_ptr<Kernel>> {
        return absl::InternalError("not reached");
      });
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().message(),
            "regst 0 names producer 5, which is no actor");
}

} // namespace

namespace {

TEST(Device, CpuAllocatesAlignedMemory) {
  std::shared_ptr<Device> cpu = test::cpuDevice();
  EXPECT_EQ(cpu->name(), "cpu:0");
  absl::StatusOr<void *> p = cpu->allocate(100);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % 64, 0u);
  cpu->deallocate(*p);
  auto second = createDevice(DeviceKind::Cpu, 1);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().message(),
            "there is one CPU device per rank, not cpu:1");
}

TEST(Device, CudaPlansNeedACudaBackend) {
  // The engine runs a program only on a device of its kind.
  ProgramBuilder b = chain();
  b.program.device = DeviceKind::Cuda;
  auto engine = Engine::create(
      b.program, test::cpuDevice(),
      [](const ActorSpec &) -> absl::StatusOr<std::unique_ptr<Kernel>> {
        return absl::InternalError("not reached");
      });
  ASSERT_FALSE(engine.ok());
  EXPECT_EQ(engine.status().message(),
            "rank 0 is for cuda devices, not cpu:0");
  // A build without a CUDA backend says so when asked for a device.
  if (!findBackend(DeviceKind::Cuda).ok()) {
    absl::StatusOr<std::unique_ptr<Device>> cuda =
        createDevice(DeviceKind::Cuda, 0);
    ASSERT_FALSE(cuda.ok());
    EXPECT_EQ(cuda.status().message(),
              "this runtime has no cuda backend; plans for cuda devices "
              "cannot run here");
  }
}

} // namespace
