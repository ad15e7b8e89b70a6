//===- PlanLoaderTest.cpp - Reading plans, and refusing bad ones ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Plan.h"

#include "plan.pb.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

using namespace ofrt;

namespace {

/// A plan of one rank: a constant feeding relu.
proto::Plan reluPlan() {
  proto::Plan plan;
  plan.set_version(proto::CURRENT);
  plan.set_world_size(1);
  plan.set_source("relu.mlir");
  proto::RankPlan *rank = plan.add_ranks();
  rank->set_rank(0);
  rank->mutable_device()->set_kind(proto::CPU);
  for (int i = 0; i < 2; ++i) {
    proto::Regst *regst = rank->add_regsts();
    regst->set_id(i);
    regst->mutable_desc()->set_dtype(proto::F32);
    regst->mutable_desc()->add_shape(4);
    regst->set_count(1);
    regst->set_producer(i);
    regst->set_offset(-1);
    if (i == 0)
      regst->add_consumers(1);
  }
  proto::Actor *constant = rank->add_actors();
  constant->set_id(0);
  constant->set_op("oneflow.constant");
  constant->set_name("c");
  constant->set_location("relu.mlir:2:8");
  constant->set_stream("compute");
  constant->set_firings_per_step(1);
  constant->add_outputs(0);
  proto::Tensor *value = (*constant->mutable_attrs())["value"].mutable_tensor();
  value->mutable_desc()->set_dtype(proto::F32);
  value->mutable_desc()->add_shape(4);
  float data[4] = {-1, 2, -3, 4};
  value->set_data(std::string(reinterpret_cast<char *>(data), sizeof(data)));
  proto::Actor *relu = rank->add_actors();
  relu->set_id(1);
  relu->set_op("oneflow.relu");
  relu->set_name("r");
  relu->set_stream("compute");
  relu->set_firings_per_step(1);
  relu->add_inputs(0);
  relu->add_outputs(1);
  (*relu->mutable_attrs())["axes"].mutable_ints()->add_values(3);
  proto::Stream *stream = rank->add_streams();
  stream->set_name("compute");
  stream->add_actors(0);
  stream->add_actors(1);
  return plan;
}

TEST(PlanLoader, ReadsBinaryAndText) {
  proto::Plan plan = reluPlan();
  auto loaded = parsePlan(plan.SerializeAsString(), false, "relu.plan");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->ranks.size(), 1u);
  const RankProgram &program = loaded->ranks[0];
  EXPECT_EQ(loaded->source, "relu.mlir");
  ASSERT_EQ(program.actors.size(), 2u);
  const OpDesc &c = program.actors[0].op;
  EXPECT_EQ(c.type, "oneflow.constant");
  EXPECT_EQ(c.location, "relu.mlir:2:8");
  const TensorData *value = std::get_if<TensorData>(&c.attrs.at("value"));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->desc, (TensorDesc{DType::F32, {4}}));
  EXPECT_EQ(reinterpret_cast<const float *>(value->bytes.data())[3], 4.0f);
  EXPECT_EQ(program.actors[1].op.get<std::vector<int64_t>>("axes", {}),
            std::vector<int64_t>{3});
  EXPECT_EQ(program.actors[1].op.inputs[0], (TensorDesc{DType::F32, {4}}));

  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(plan, &text));
  auto fromText = parsePlan(text, true, "relu.plantxt");
  ASSERT_TRUE(fromText.ok()) << fromText.status();
  EXPECT_EQ(fromText->ranks[0].actors.size(), 2u);
}

TEST(PlanLoader, RefusesAnotherVersion) {
  proto::Plan plan = reluPlan();
  plan.set_version(proto::VERSION_UNSPECIFIED);
  auto loaded = parsePlan(plan.SerializeAsString(), false, "old.plan");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "'old.plan' has no schema version: it is not a plan, or one "
            "older than version 1 (compile the model with of-translate "
            "--export-plan or of-run --emit-plan)");
}

// A version 1 plan (string-keyed layouts, the device as a string) is
// refused with the recompile message, in binary and in text format, where
// its fields do not even parse strictly any more.
TEST(PlanLoader, RefusesAVersionOnePlanAskingForARecompile) {
  const char *text = R"(
    version: VERSION_1
    world_size: 1
    ranks {
      rank: 0 device: "cpu"
      actors {
        id: 0 op: "oneflow.all_reduce" name: "ar" stream: "collective"
        attrs { key: "group" value { ints { values: 0 } } }
      }
    })";
  auto loaded = parsePlan(text, true, "v1.plantxt");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(loaded.status().message(),
            "plan 'v1.plantxt' has schema version 1 but this runtime reads "
            "version 3; recompile the model");
  proto::Plan plan = reluPlan();
  plan.set_version(proto::VERSION_1);
  auto binary = parsePlan(plan.SerializeAsString(), false, "v1.plan");
  ASSERT_FALSE(binary.ok());
  EXPECT_EQ(binary.status().code(), absl::StatusCode::kFailedPrecondition);
  // Version 2 knew the runtime's own actors by their op names only.
  plan.set_version(proto::VERSION_2);
  auto v2 = parsePlan(plan.SerializeAsString(), false, "v2.plan");
  ASSERT_FALSE(v2.ok());
  EXPECT_EQ(v2.status().message(),
            "plan 'v2.plan' has schema version 2 but this runtime reads "
            "version 3; recompile the model");
}

// The runtime takes each actor's role from the plan and checks that it fits
// the op (as the exporter gives it: the runtime's own actors by their ops'
// names, a kernel for every other op) and the layout; a role or reduction
// it does not know is an error naming the actor.
TEST(PlanLoader, ReadsRolesAndRefusesOnesThatDisagreeWithTheOpOrLayout) {
  proto::Plan plan = reluPlan();
  proto::Actor &relu = *plan.mutable_ranks(0)->mutable_actors(1);
  auto loaded = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->ranks[0].actors[1].op.role, OpRole::Kernel);
  // An op named like a collective is not a kernel (an edited plan).
  relu.set_op("oneflow.all_reduce");
  auto kernel = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().message(),
            "plan 'roles.plan', rank 0: oneflow.all_reduce 'r' has role "
            "ROLE_KERNEL, but an actor of oneflow.all_reduce has role "
            "ROLE_ALL_REDUCE");
  relu.set_role(proto::ROLE_ALL_REDUCE);
  relu.mutable_collective()->add_group(0);
  loaded = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->ranks[0].actors[1].op.role, OpRole::AllReduce);
  EXPECT_TRUE(isCollective(loaded->ranks[0].actors[1].op.role));
  // A reduction this runtime does not know.
  relu.mutable_collective()->set_reduction(static_cast<proto::Reduction>(7));
  auto reduction = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_FALSE(reduction.ok());
  EXPECT_EQ(reduction.status().message(),
            "plan 'roles.plan', rank 0: oneflow.all_reduce 'r' reduces with "
            "reduction 7, which this runtime does not know (sum, max or min)");
  relu.mutable_collective()->set_reduction(proto::REDUCTION_SUM);
  // A kernel marked as one of the runtime's own actors (a matmul marked
  // as an input would read a fed tensor instead of multiplying).
  relu.set_op("oneflow.matmul");
  auto input = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_FALSE(input.ok());
  EXPECT_EQ(input.status().message(),
            "plan 'roles.plan', rank 0: oneflow.matmul 'r' has role "
            "ROLE_ALL_REDUCE, but an actor of oneflow.matmul has role "
            "ROLE_KERNEL");

  relu.set_op("oneflow.output");
  relu.set_role(proto::ROLE_OUTPUT);
  auto mismatch = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().message(),
            "plan 'roles.plan', rank 0: oneflow.output 'r' has role "
            "ROLE_OUTPUT but a layout only another role reads");
  relu.set_role(static_cast<proto::Role>(42));
  auto unknown = parsePlan(plan.SerializeAsString(), false, "roles.plan");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "plan 'roles.plan', rank 0: oneflow.output 'r' has role 42, "
            "which this runtime does not know");
}

TEST(PlanLoader, ReadsTypedLayoutsDeviceAndFiringRate) {
  proto::Plan plan = reluPlan();
  plan.mutable_ranks(0)->mutable_device()->set_ordinal(3);
  proto::Actor &relu = *plan.mutable_ranks(0)->mutable_actors(1);
  relu.set_op("oneflow.all_reduce");
  relu.set_role(proto::ROLE_ALL_REDUCE);
  proto::Collective &collective = *relu.mutable_collective();
  collective.add_group(0);
  collective.set_axis(1);
  proto::Actor &constant = *plan.mutable_ranks(0)->mutable_actors(0);
  constant.set_op("oneflow.transfer");
  constant.set_role(proto::ROLE_TRANSFER);
  proto::PointToPoint &send =
      *constant.mutable_transfer()->add_sends();
  send.set_peer(1);
  send.set_tag(7);
  send.add_begin(2);
  send.add_size(2);
  auto loaded = parsePlan(plan.SerializeAsString(), false, "typed.plan");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const RankProgram &program = loaded->ranks[0];
  EXPECT_EQ(program.device, DeviceKind::Cpu);
  EXPECT_EQ(program.deviceOrdinal, 3);
  const CollectiveLayout *c =
      program.actors[1].op.layoutAs<CollectiveLayout>();
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->group, std::vector<int64_t>{0});
  EXPECT_EQ(c->axis, 1);
  const TransferLayout *t = program.actors[0].op.layoutAs<TransferLayout>();
  ASSERT_NE(t, nullptr);
  ASSERT_EQ(t->sends.size(), 1u);
  EXPECT_EQ(t->sends[0].tag, 7u);
  EXPECT_EQ(t->sends[0].begin, std::vector<int64_t>{2});
  EXPECT_EQ(program.actors[0].firingsPerStep, 1);

  relu.set_firings_per_step(0);
  auto none = parsePlan(plan.SerializeAsString(), false, "rate.plan");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "plan 'rate.plan', rank 0: actor 1 (oneflow.all_reduce 'r') "
            "fires 0 times per step; it needs at least 1");
  relu.set_firings_per_step(4);
  auto micro = parsePlan(plan.SerializeAsString(), false, "rate.plan");
  ASSERT_FALSE(micro.ok());
  EXPECT_NE(micro.status().message().find(
                "fires 4 times per step but its stream lists it 1 times"),
            std::string::npos)
      << micro.status();
  // Listed once per firing, it loads; an output every 3 of 4 firings not.
  for (proto::Stream &stream : *plan.mutable_ranks(0)->mutable_streams())
    if (std::count(stream.actors().begin(), stream.actors().end(), relu.id()))
      for (int i = 1; i < 4; ++i)
        stream.add_actors(relu.id());
  auto listed = parsePlan(plan.SerializeAsString(), false, "rate.plan");
  ASSERT_TRUE(listed.ok()) << listed.status();
  EXPECT_EQ(listed->ranks[0].actors[1].firingsPerStep, 4);
  relu.set_firings_per_output(3);
  auto uneven = parsePlan(plan.SerializeAsString(), false, "rate.plan");
  ASSERT_FALSE(uneven.ok());
  EXPECT_NE(uneven.status().message().find(
                "writes an output every 3 firings, which does not divide its "
                "4 firings per step"),
            std::string::npos)
      << uneven.status();
}

TEST(PlanLoader, RefusesCorruptBytes) {
  std::string bytes = reluPlan().SerializeAsString();
  bytes.resize(bytes.size() / 2);
  auto loaded = parsePlan(bytes, false, "cut.plan");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "cannot read plan 'cut.plan': not a valid plan in binary format "
            "(corrupt or not a plan)");
  auto text = parsePlan("ranks { rank: oops }", true, "bad.plantxt");
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("not a valid plan in text format"),
            std::string::npos);
}

TEST(PlanLoader, RefusesBrokenReferencesByName) {
  proto::Plan plan = reluPlan();
  plan.mutable_ranks(0)->mutable_actors(1)->set_inputs(0, 7);
  auto loaded = parsePlan(plan.SerializeAsString(), false, "x.plan");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "plan 'x.plan', rank 0: regst 0 names consumer actor 1 "
            "(oneflow.relu 'r'), which does not list it as an input");
}

TEST(PlanLoader, RefusesShortTensorData) {
  proto::Plan plan = reluPlan();
  (*plan.mutable_ranks(0)->mutable_actors(0)->mutable_attrs())["value"]
      .mutable_tensor()
      ->set_data("abc");
  auto loaded = parsePlan(plan.SerializeAsString(), false, "x.plan");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "plan 'x.plan', attribute 'value' of oneflow.constant 'c' at "
            "relu.mlir:2:8: tensor of 4xf32 needs 16 bytes but holds 3");
}

TEST(PlanLoader, RefusesUnknownDeviceAndEmptyPlans) {
  proto::Plan plan = reluPlan();
  plan.mutable_ranks(0)->mutable_device()->set_kind(
      proto::DEVICE_KIND_UNSPECIFIED);
  auto loaded = parsePlan(plan.SerializeAsString(), false, "x.plan");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "plan 'x.plan', rank 0 has no device kind "
            "(DEVICE_KIND_UNSPECIFIED)");
  plan.mutable_ranks(0)->mutable_device()->set_kind(proto::CPU);
  plan.mutable_ranks(0)->mutable_device()->set_ordinal(-2);
  auto ordinal = parsePlan(plan.SerializeAsString(), false, "x.plan");
  ASSERT_FALSE(ordinal.ok());
  EXPECT_EQ(ordinal.status().message(),
            "plan 'x.plan', rank 0 has device ordinal -2");
  proto::Plan empty;
  empty.set_version(proto::CURRENT);
  auto none = parsePlan(empty.SerializeAsString(), false, "e.plan");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "plan 'e.plan' has no ranks");
}

TEST(PlanLoader, MissingFile) {
  auto loaded = loadPlanFile("/nonexistent/model.plan");
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().message(),
            "cannot open plan file '/nonexistent/model.plan': No such file or "
            "directory");
}

} // namespace
