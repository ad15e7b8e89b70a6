//===- ClusterDescTest.cpp - The cluster description's reader -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The cluster description's JSON reader: every key, every malformed key
// reported with the file and the key, rates by size interpolated.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::oneflow;

namespace {

/// The error `parse` reports for `json`, or "" if it succeeds.
std::string parseError(StringRef json) {
  std::string error;
  if (succeeded(ClusterDesc::parse(json, "c.json", error)))
    return "";
  return error;
}

TEST(ClusterDescTest, ParseOverridesEveryKey) {
  std::string error;
  FailureOr<ClusterDesc> desc = ClusterDesc::parse(
      R"({"ranks_per_node": 8, "intra_node": {"alpha": 1e-6, "beta": 1e11},
          "inter_node": {"alpha": 2e-5, "beta": 1.25e10},
          "memory_bandwidth": 2e11, "flops": 3e14})",
      "c.json", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  EXPECT_EQ(desc->ranksPerNode, 8);
  EXPECT_DOUBLE_EQ(desc->intraNode.alpha, 1e-6);
  EXPECT_DOUBLE_EQ(desc->intraNode.beta, 1e11);
  EXPECT_DOUBLE_EQ(desc->interNode.alpha, 2e-5);
  EXPECT_DOUBLE_EQ(desc->interNode.beta, 1.25e10);
  EXPECT_DOUBLE_EQ(desc->memoryBandwidth, 2e11);
  EXPECT_DOUBLE_EQ(desc->flops, 3e14);
}

TEST(ClusterDescTest, ParsesMeasuredCollectives) {
  std::string error;
  FailureOr<ClusterDesc> desc = ClusterDesc::parse(
      R"({"collectives": {"all_reduce": {"alpha": 2e-6, "beta": 3e9},
                          "all_to_all": {"alpha": 5e-6, "beta": 2e9}}})",
      "c.json", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  ASSERT_TRUE(desc->allReduce.has_value());
  EXPECT_DOUBLE_EQ(desc->allReduce->alpha, 2e-6);
  EXPECT_DOUBLE_EQ(desc->allToAll->beta, 2e9);
  EXPECT_FALSE(desc->allGather.has_value());
  EXPECT_EQ(parseError(R"({"collectives": {"gossip": {"alpha": 1}}})"),
            "c.json: key 'collectives.gossip' is unknown (expected "
            "all_reduce, reduce_scatter, all_gather, all_to_all)");
  EXPECT_EQ(
      parseError(R"({"collectives": {"all_gather": {"alpha": 0, "beta": 0}}})"),
      "c.json: key 'collectives.all_gather.beta' must be a finite positive "
      "number");
  EXPECT_EQ(parseError(R"({"collectives": 3})"),
            "c.json: key 'collectives' must be an object of collectives");
}

TEST(ClusterDescTest, ParsesFiguresPerMeshAxis) {
  std::string error;
  FailureOr<ClusterDesc> desc = ClusterDesc::parse(
      R"({"mesh_axes": [
            {"mesh": [2, 2], "axis": 0,
             "collectives": {"all_gather": {"alpha": 1e-6, "beta": 3e9}}},
            {"mesh": [2, 2], "axis": 1,
             "collectives": {"all_gather": {"alpha": 2e-6, "beta": 7e9}}}]})",
      "c.json", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  ASSERT_EQ(desc->meshAxes.size(), 2u);
  EXPECT_EQ(desc->meshAxes[1].mesh, (SmallVector<int64_t>{2, 2}));
  EXPECT_EQ(desc->meshAxes[1].axis, 1);
  ASSERT_TRUE(desc->meshAxes[1].allGather.has_value());
  EXPECT_DOUBLE_EQ(desc->meshAxes[1].allGather->beta, 7e9);
  EXPECT_FALSE(desc->meshAxes[0].allReduce.has_value());

  EXPECT_EQ(parseError(R"({"mesh_axes": {}})"),
            "c.json: key 'mesh_axes' must be an array of {\"mesh\", "
            "\"axis\", \"collectives\"} objects");
  EXPECT_EQ(parseError(R"({"mesh_axes": [{"mesh": [2, 2], "axis": 0}]})"),
            "c.json: key 'mesh_axes[0]' must be {\"mesh\": [sizes], "
            "\"axis\": a mesh axis, \"collectives\": {...}}");
  EXPECT_EQ(parseError(R"({"mesh_axes": [{"mesh": [2, 0], "axis": 0,
                                          "collectives": {}}]})"),
            "c.json: key 'mesh_axes[0].mesh' must list sizes of at least 1");
  EXPECT_EQ(parseError(R"({"mesh_axes": [{"mesh": [4], "axis": 1,
                                          "collectives": {}}]})"),
            "c.json: key 'mesh_axes[0].axis' must be an axis of the mesh");
  EXPECT_EQ(parseError(R"({"mesh_axes": [{"mesh": [4], "axis": 0,
                          "collectives": {"gossip": {"alpha": 1}}}]})"),
            "c.json: key 'mesh_axes[0].collectives.gossip' is unknown "
            "(expected all_reduce, reduce_scatter, all_gather, all_to_all)");
}

TEST(ClusterDescTest, MissingKeysKeepTheDefaults) {
  std::string error;
  FailureOr<ClusterDesc> desc = ClusterDesc::parse(
      R"({"intra_node": {"alpha": 2e-6, "beta": 5e9}})", "c.json", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  ClusterDesc defaults = ClusterDesc::getDefault();
  EXPECT_DOUBLE_EQ(desc->intraNode.beta, 5e9);
  EXPECT_DOUBLE_EQ(desc->intraNode.alpha, 2e-6);
  EXPECT_DOUBLE_EQ(desc->interNode.alpha, defaults.interNode.alpha);
  EXPECT_EQ(desc->ranksPerNode, defaults.ranksPerNode);
  EXPECT_DOUBLE_EQ(desc->flops, defaults.flops);
}

TEST(ClusterDescTest, MalformedInputNamesFileAndKey) {
  EXPECT_EQ(parseError("{\"flops\": 1e12,").substr(0, 21),
            "c.json: invalid JSON:");
  EXPECT_EQ(parseError("[1, 2]"),
            "c.json: the cluster description must be a JSON object");
  EXPECT_EQ(parseError(R"({"ranks_per_node": 0})"),
            "c.json: key 'ranks_per_node' must be an integer at least 1");
  EXPECT_EQ(parseError(R"({"ranks_per_node": 1.5})"),
            "c.json: key 'ranks_per_node' must be an integer at least 1");
  EXPECT_EQ(parseError(R"({"intra_node": 3})"),
            "c.json: key 'intra_node' must be an object with 'alpha' and "
            "'beta'");
  EXPECT_EQ(parseError(R"({"intra_node": {"alpha": 0, "beta": 0}})"),
            "c.json: key 'intra_node.beta' must be a finite positive number");
  EXPECT_EQ(parseError(R"({"inter_node": {"alpha": -1, "beta": 1}})"),
            "c.json: key 'inter_node.alpha' must be a finite number at least "
            "0");
  EXPECT_EQ(parseError(R"({"intra_node": {"beta": 5e9}})"),
            "c.json: key 'intra_node' has no 'alpha' (a link needs both "
            "'alpha' and 'beta')");
  EXPECT_EQ(
      parseError(R"({"inter_node": {"alpha": 1, "beta": 1, "gamma": 1}})"),
      "c.json: key 'inter_node.gamma' is unknown (expected 'alpha' or "
      "'beta')");
  EXPECT_EQ(parseError(R"({"memory_bandwidth": "fast"})"),
            "c.json: key 'memory_bandwidth' must be a finite positive number");
  EXPECT_EQ(parseError(R"({"flops": 0})"),
            "c.json: key 'flops' must be a finite positive number");
  EXPECT_EQ(parseError(R"({"flops": 1e999})"),
            "c.json: key 'flops' must be a finite positive number");
  EXPECT_EQ(parseError("{}"),
            "c.json: the cluster description is empty; give at least one of "
            "ranks_per_node, intra_node, inter_node, collectives, mesh_axes, "
            "memory_bandwidth, flops, op_overhead (of-calibrate writes them)");
  EXPECT_EQ(parseError(R"({"latency": 1})"),
            "c.json: key 'latency' is unknown (expected ranks_per_node, "
            "intra_node, inter_node, collectives, mesh_axes, "
            "memory_bandwidth, flops, matmul_flops, elementwise_bandwidth, "
            "op_rates, op_overhead)");
  EXPECT_EQ(parseError(R"({"matmul_flops": []})"),
            "c.json: key 'matmul_flops' must be a non-empty array of "
            "{\"flops\", \"rate\"} objects");
  EXPECT_EQ(parseError(R"({"matmul_flops": [{"flops": 8, "rate": 1}, )"
                       R"({"flops": 8, "rate": 2}]})"),
            "c.json: key 'matmul_flops[1].flops' must be larger than the one "
            "before");
  EXPECT_EQ(parseError(R"({"elementwise_bandwidth": [{"bytes": 8}]})"),
            "c.json: key 'elementwise_bandwidth[0]' must be {\"bytes\": the "
            "size of a call, \"rate\": per second}");
  EXPECT_EQ(parseError(R"({"matmul_flops": [{"flops": 8, "rate": -1}]})"),
            "c.json: key 'matmul_flops[0].rate' must be a finite positive "
            "number");
  EXPECT_EQ(parseError(R"({"op_rates": [1]})"),
            "c.json: key 'op_rates' must be an object of op names "
            "(\"oneflow.gelu\") to arrays of {\"bytes\", \"rate\"} objects");
  EXPECT_EQ(parseError(R"({"op_rates": {"gelu": [{"bytes": 8, "rate": 1}]}})"),
            "c.json: key 'op_rates.gelu' is not an op name (dialect.op)");
  EXPECT_EQ(parseError(R"({"op_rates": {"oneflow.gelu": []}})"),
            "c.json: key 'op_rates.oneflow.gelu' must be a non-empty array of "
            "{\"bytes\", \"rate\"} objects");
  EXPECT_EQ(
      parseError(
          R"({"op_rates": {"oneflow.gelu": [{"bytes": 8, "rate": 0}]}})"),
      "c.json: key 'op_rates.oneflow.gelu[0].rate' must be a finite positive "
      "number");
}

// Measured rates by call size are interpolated in log(size) between the
// nearest two and held outside them; without them, the single figures.
TEST(ClusterDescTest, RatesBySize) {
  std::string error;
  FailureOr<ClusterDesc> desc = ClusterDesc::parse(
      R"({"flops": 5, "memory_bandwidth": 7,
          "matmul_flops": [{"flops": 10, "rate": 100},
                           {"flops": 1000, "rate": 300}],
          "elementwise_bandwidth": [{"bytes": 100, "rate": 2}],
          "format": 1, "identity": {"host": "h"}})",
      "c.json", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  EXPECT_DOUBLE_EQ(desc->flopsPerSecond(1), 100);
  EXPECT_DOUBLE_EQ(desc->flopsPerSecond(10), 100);
  EXPECT_DOUBLE_EQ(desc->flopsPerSecond(100), 200);
  EXPECT_DOUBLE_EQ(desc->flopsPerSecond(1e6), 300);
  EXPECT_DOUBLE_EQ(desc->bytesPerSecond(1), 2);
  EXPECT_DOUBLE_EQ(desc->bytesPerSecond(1e9), 2);
  EXPECT_EQ(desc->bytesPerSecondOf("oneflow.gelu", 100), std::nullopt);
  ClusterDesc plain = ClusterDesc::getDefault();
  EXPECT_DOUBLE_EQ(plain.flopsPerSecond(123), plain.flops);
  EXPECT_DOUBLE_EQ(plain.bytesPerSecond(123), plain.memoryBandwidth);
}

// An op measured on its own ("op_rates") has its own rates by size, the
// same way; other ops have none.
TEST(ClusterDescTest, OpRates) {
  std::string error;
  FailureOr<ClusterDesc> desc = ClusterDesc::parse(
      R"({"op_rates": {"oneflow.gelu": [{"bytes": 10, "rate": 100},
                                        {"bytes": 1000, "rate": 300}],
                       "oneflow.softmax": [{"bytes": 8, "rate": 5}]}})",
      "c.json", error);
  ASSERT_TRUE(succeeded(desc)) << error;
  EXPECT_EQ(desc->bytesPerSecondOf("oneflow.gelu", 1), 100);
  EXPECT_EQ(desc->bytesPerSecondOf("oneflow.gelu", 100), 200);
  EXPECT_EQ(desc->bytesPerSecondOf("oneflow.gelu", 1e6), 300);
  EXPECT_EQ(desc->bytesPerSecondOf("oneflow.softmax", 1e6), 5);
  EXPECT_EQ(desc->bytesPerSecondOf("oneflow.relu", 100), std::nullopt);
}

TEST(ClusterDescTest, LoadNamesAMissingFile) {
  std::string error;
  EXPECT_TRUE(failed(ClusterDesc::load("/nonexistent/cluster.json", error)));
  EXPECT_EQ(error.substr(0, 39), "/nonexistent/cluster.json: cannot read:");
}

TEST(ClusterDescTest, GroupsSpanningNodesUseTheInterNodeLink) {
  ClusterDesc desc = ClusterDesc::getDefault();
  desc.ranksPerNode = 2;
  EXPECT_EQ(&desc.linkFor({0, 1}), &desc.intraNode);
  EXPECT_EQ(&desc.linkFor({2, 3}), &desc.intraNode);
  EXPECT_EQ(&desc.linkFor({1, 2}), &desc.interNode);
}

} // namespace
