//===- SessionTest.cpp - Sessions: sources, sinks, and their memory -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Session.h"
#include "../TestRoles.h"

#include <gtest/gtest.h>

using namespace ofrt;

namespace {

/// variable "w" (4xf32, ones) -> relu -> output "y", all in one arena.
RankProgram program(int64_t variableOffset) {
  RankProgram p;
  TensorDesc t{DType::F32, {4}};
  auto actor = [&](int64_t id, const std::string &type,
                   std::vector<int64_t> in, std::vector<int64_t> out) {
    ActorSpec a;
    a.id = id;
    a.op.type = type;
    a.op.role = oftest::roleOf(type);
    a.op.name = type.substr(8);
    a.inputs = in;
    a.outputs = out;
    a.op.inputs.assign(in.size(), t);
    a.op.outputs.assign(out.size(), t);
    p.actors.push_back(a);
  };
  actor(0, "oneflow.variable", {}, {0});
  p.actors[0].op.attrs["init"] = std::string("ones");
  p.actors[0].op.attrs["name"] = std::string("w");
  actor(1, "oneflow.relu", {0}, {1});
  actor(2, "oneflow.output", {1}, {});
  p.actors[2].op.attrs["name"] = std::string("y");
  p.regsts.push_back({0, t, 1, 0, {1}, variableOffset});
  p.regsts.push_back({1, t, 1, 1, {2}, 64});
  p.streams.push_back({"compute", {0, 1, 2}});
  p.arenaBytes = 128;
  return p;
}

TEST(Session, RunsAndReadsOutputsAfterTheRun) {
  auto session = Session::create(program(0), {});
  ASSERT_TRUE(session.ok()) << session.status();
  auto result = (*session)->run({3, false});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->steps, 3);
  const TensorData &y = (*session)->outputs().at("y");
  ASSERT_EQ(y.desc, (TensorDesc{DType::F32, {4}}));
  for (int i = 0; i < 4; ++i)
    EXPECT_EQ(reinterpret_cast<const float *>(y.bytes.data())[i], 1.0f);
}

TEST(Session, VariablesAndOutputsNeedTheirOwnMemory) {
  auto session = Session::create(program(/*variableOffset=*/64), {});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "regst 0 of oneflow.variable 'variable' shares memory with regst "
            "1; variables and outputs need their own memory");
}

/// input "x" (fill:3) -> neg -> relu -> add(relu, neg) -> output "y" =
/// relu(-3) + -3 = -3, with relu's result in x's memory: x's lifetime ends
/// at neg, and relu overwrites it with zeros every step.
RankProgram inputSharingMemory() {
  RankProgram p;
  TensorDesc t{DType::F32, {4}};
  auto actor = [&](int64_t id, const std::string &type,
                   std::vector<int64_t> in, std::vector<int64_t> out) {
    ActorSpec a;
    a.id = id;
    a.op.type = type;
    a.op.role = oftest::roleOf(type);
    a.op.name = type.substr(8);
    a.inputs = in;
    a.outputs = out;
    a.op.inputs.assign(in.size(), t);
    a.op.outputs.assign(out.size(), t);
    p.actors.push_back(a);
  };
  actor(0, "oneflow.input", {}, {0});
  p.actors[0].op.attrs["name"] = std::string("x");
  actor(1, "oneflow.neg", {0}, {1});
  actor(2, "oneflow.relu", {1}, {2});
  actor(3, "oneflow.add", {2, 1}, {3});
  actor(4, "oneflow.output", {3}, {});
  p.actors[4].op.attrs["name"] = std::string("y");
  p.regsts.push_back({0, t, 1, 0, {1}, 0});
  p.regsts.push_back({1, t, 1, 1, {2, 3}, 64});
  p.regsts.push_back({2, t, 1, 2, {3}, 0});
  p.regsts.push_back({3, t, 1, 3, {4}, 128});
  p.streams.push_back({"compute", {0, 1, 2, 3, 4}});
  p.arenaBytes = 192;
  return p;
}

// A fill source writes a buffer of its own once; one whose memory another
// regst reuses is written again every step.
TEST(Session, FillSourcesRewriteSharedMemory) {
  SessionOptions options;
  InputSource three;
  three.kind = InputSource::Kind::Fill;
  three.value = 3;
  options.inputs["x"] = three;
  for (bool shared : {true, false}) {
    RankProgram p = inputSharingMemory();
    if (!shared)
      p.regsts[2].offset = -1;
    auto session = Session::create(p, options);
    ASSERT_TRUE(session.ok()) << session.status();
    auto result = (*session)->run({3, false});
    ASSERT_TRUE(result.ok()) << result.status();
    const TensorData &y = (*session)->outputs().at("y");
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(reinterpret_cast<const float *>(y.bytes.data())[i], -3.0f)
          << (shared ? "shared" : "own") << " memory, element " << i;
  }
}

TEST(Session, UnknownInputNames) {
  SessionOptions options;
  options.inputs["images"] = InputSource();
  auto session = Session::create(program(0), options);
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "the program has no input named 'images'");
}

// Collective and transfer kernels pack pieces with host code, which cannot
// touch GPU memory: a CUDA rank with one is refused, naming the rank and
// the actor, before any device is created (so this runs without a GPU).
TEST(Session, CollectivesOnCudaRanksAreRefused) {
  RankProgram p = program(0);
  p.device = DeviceKind::Cuda;
  p.rank = 1;
  p.actors[1].op.type = "oneflow.all_reduce";
  p.actors[1].op.role = oftest::roleOf("oneflow.all_reduce");
  p.actors[1].op.name = "grad_sum";
  auto session = Session::create(p, {});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kUnimplemented);
  std::string message(session.status().message());
  EXPECT_EQ(message.rfind("rank 1: ", 0), 0u) << message;
  EXPECT_NE(message.find("grad_sum"), std::string::npos) << message;
  EXPECT_NE(message.find("CUDA ranks cannot do yet"), std::string::npos)
      << message;
}

} // namespace

