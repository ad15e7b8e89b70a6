//===- DriverTest.cpp - The driver library's compile and run --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Compile.h"
#include "ofdriver/Run.h"

#include "ofrt/Plan.h"

#include "gtest/gtest.h"

namespace {

/// A linear regression: loss = mean((x w)^2) over a batch of 8.
constexpr const char *kModel = R"mlir(
func.func @f() {
  %x = oneflow.input "x" : tensor<8x4xf32>
  %w = oneflow.variable "w" {init = #oneflow.init<ones>} : tensor<4x1xf32>
  %y = oneflow.matmul %x, %w : (tensor<8x4xf32>, tensor<4x1xf32>) -> tensor<8x1xf32>
  %s = oneflow.mul %y, %y : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %m = oneflow.reduce_mean %s {axes = array<i64: 0, 1>} : (tensor<8x1xf32>) -> tensor<f32>
  oneflow.output "loss", %m : tensor<f32>
  return
}
)mlir";

ofdriver::CompileOptions trainingOn(int ranks) {
  ofdriver::CompileOptions options;
  options.ranks = ranks;
  options.diagnostics = ofdriver::Diagnostics::InStatus;
  absl::StatusOr<ofdriver::TrainOptions> train =
      ofdriver::parseTrainOptions("optimizer=sgd lr=0.01");
  EXPECT_TRUE(train.ok()) << train.status();
  options.train = *train;
  options.train->devices = ranks;
  return options;
}

std::vector<double> losses(int ranks, int64_t steps) {
  absl::StatusOr<ofdriver::Compiled> compiled = ofdriver::compile(
      kModel, ofdriver::SourceKind::Mlir, "model", trainingOn(ranks));
  EXPECT_TRUE(compiled.ok()) << compiled.status();
  absl::StatusOr<ofrt::LoadedPlan> plan =
      ofrt::parsePlan(compiled->plan, false, "model");
  EXPECT_TRUE(plan.ok()) << plan.status();
  ofdriver::JobOptions jobOptions;
  jobOptions.devices = "cpu:" + std::to_string(ranks);
  absl::StatusOr<ofdriver::Job> job = ofdriver::makeJob(jobOptions);
  EXPECT_TRUE(job.ok()) << job.status();
  ofdriver::RunOptions options;
  options.steps = steps;
  options.progress = "off";
  options.inputs["x"] = *ofdriver::parseInputSource("fill:0.5");
  absl::StatusOr<ofdriver::RunResult> result =
      ofdriver::run(*job, *plan, options);
  EXPECT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->exitCode, 0);
  return result->scalars["loss"];
}

TEST(Driver, CompilesAStringAndRunsTwoSteps) {
  std::vector<double> one = losses(1, 2);
  ASSERT_EQ(one.size(), 2u);
  // x w = 0.5 * 4 = 2 on every row: loss 4; then SGD lowers it.
  EXPECT_FLOAT_EQ(one[0], 4.0);
  EXPECT_LT(one[1], one[0]);
  std::vector<double> two = losses(2, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_NEAR(two[1], one[1], 1e-6 * one[1]);
}

TEST(Driver, BadOptionsAreStatuses) {
  EXPECT_FALSE(ofdriver::parseTrainOptions("bogus=1").ok());
  ofdriver::CompileOptions options = trainingOn(1);
  absl::StatusOr<ofdriver::Compiled> bad = ofdriver::compile(
      "func.func @f( {", ofdriver::SourceKind::Mlir, "broken", options);
  ASSERT_FALSE(bad.ok());
  // The diagnostic, located, is in the message.
  EXPECT_NE(bad.status().message().find("broken:1:"), std::string::npos)
      << bad.status();
  ofdriver::JobOptions job;
  job.devices = "cpu:0";
  EXPECT_FALSE(ofdriver::makeJob(job).ok());
  ofdriver::RunOptions run;
  run.threads = -1;
  EXPECT_FALSE(ofdriver::checkRunOptions(run, {}).ok());
  run = {};
  run.streamThreads = "many";
  EXPECT_FALSE(ofdriver::checkRunOptions(run, {}).ok());
  EXPECT_FALSE(ofdriver::parseNonfiniteAction("maybe").ok());
  EXPECT_FALSE(ofdriver::runPasses("module {}", "no-such-pass").ok());
}

} // namespace
