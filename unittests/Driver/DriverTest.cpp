//===- DriverTest.cpp - The driver library's compile and run --------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofdriver/Compile.h"
#include "ofdriver/Run.h"

#include "ofrt/Plan.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <optional>

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

/// The run's status on `ranks` ranks for `steps` steps with input `x`
/// fed by `source` (fill:0.5 when unset); `losses` gets the loss at each
/// step.
absl::Status runModel(int ranks, int64_t steps, std::vector<double> &losses,
                      std::optional<ofrt::InputSource> source = std::nullopt) {
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
  options.inputs["x"] =
      source ? *source : *ofdriver::parseInputSource("fill:0.5");
  absl::StatusOr<ofdriver::RunResult> result =
      ofdriver::run(*job, *plan, options);
  if (!result.ok())
    return result.status();
  EXPECT_EQ(result->exitCode, 0);
  losses = result->scalars["loss"];
  return absl::OkStatus();
}

std::vector<double> losses(int ranks, int64_t steps) {
  std::vector<double> out;
  absl::Status status = runModel(ranks, steps, out);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

/// An array of `rows` rows of 4 floats: the first 8 rows 0.5, the rest 0.
ofrt::InputSource arrayOf(int64_t rows) {
  auto tensor = std::make_shared<ofrt::TensorData>();
  tensor->desc = {ofrt::DType::F32, {rows, 4}};
  std::vector<float> values(rows * 4, 0.0f);
  std::fill(values.begin(), values.begin() + std::min<int64_t>(rows, 8) * 4,
            0.5f);
  const auto *bytes = reinterpret_cast<const uint8_t *>(values.data());
  tensor->bytes.assign(bytes, bytes + values.size() * sizeof(float));
  ofrt::InputSource source;
  source.kind = ofrt::InputSource::Kind::Array;
  source.array = std::move(tensor);
  return source;
}

TEST(Driver, FeedsArraysFromMemory) {
  // Batch 0 is fill:0.5's (loss 4), batch 1 all zeros (loss 0), on one
  // rank and on two, each keeping its piece of every batch.
  for (int ranks : {1, 2}) {
    std::vector<double> got;
    ASSERT_TRUE(runModel(ranks, 2, got, arrayOf(16)).ok());
    ASSERT_EQ(got.size(), 2u);
    EXPECT_FLOAT_EQ(got[0], 4.0);
    EXPECT_FLOAT_EQ(got[1], 0.0);
  }
  std::vector<double> got;
  absl::Status short_ = runModel(1, 1, got, arrayOf(4));
  ASSERT_FALSE(short_.ok());
  EXPECT_NE(short_.message().find("the array for input 'x' holds 4x4xf32, "
                                  "which has no whole 8x4xf32 batch"),
            std::string::npos)
      << short_;
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

/// The message checkTrainOptions gives `text`'s options on `devices`
/// devices ("" when they are fine).
std::string trainError(const std::string &text, int64_t devices = 4) {
  absl::StatusOr<ofdriver::TrainOptions> options =
      ofdriver::parseTrainOptions(text);
  EXPECT_TRUE(options.ok()) << options.status();
  if (!options.ok())
    return "";
  options->devices = devices;
  return std::string(ofdriver::checkTrainOptions(*options).message());
}

TEST(Driver, ChecksTrainingOptionsAsOfRunDoes) {
  // The defaults (one declaration, TrainingOptions.def) are fine.
  EXPECT_EQ(trainError(""), "");
  ofdriver::TrainOptions defaults;
  EXPECT_EQ(defaults.optimizer.nonfinite, "skip");
  EXPECT_EQ(defaults.optimizer.kind, "sgd");
  EXPECT_EQ(trainError("strategy=auto mesh=2,2 search=exact"), "");
  EXPECT_EQ(trainError("optimizer=lamb"),
            "--optimizer 'lamb' is not sgd, adam or adamw");
  EXPECT_EQ(trainError("nonfinite=maybe"),
            "nonfinite 'maybe' is not off, report or skip");
  EXPECT_EQ(trainError("stages=3"),
            "--stages 3 does not divide the 4 devices into stages of equal "
            "size (each stage needs its own devices)");
  EXPECT_EQ(trainError("strategy=auto mesh=3,2"),
            "--mesh 3x2 has 6 devices but --devices gives 4");
  EXPECT_EQ(trainError("strategy=auto mesh=0,4"),
            "--mesh size 0 is not between 1 and 4096");
  EXPECT_EQ(trainError("memory-limit=-1"), "--memory-limit -1 is not at least 0");
  EXPECT_EQ(trainError("batch-norm-groups=2"),
            "--batch-norm-groups groups local statistics; it needs "
            "--batch-norm-statistics local");
  EXPECT_EQ(trainError("precision=f8"), "--precision 'f8' is not f32 or bf16");
  EXPECT_EQ(trainError("lr=inf"), "--lr inf is not a finite number");
  EXPECT_EQ(trainError("strategy=auto micro-batches=2"),
            "--strategy auto searches the layouts of a step without "
            "--micro-batches or --stages; give a hand strategy for those");
  // compile() checks them before it parses anything.
  ofdriver::CompileOptions options = trainingOn(1);
  options.train->optimizer.kind = "lamb";
  absl::StatusOr<ofdriver::Compiled> bad = ofdriver::compile(
      "not parsed", ofdriver::SourceKind::Mlir, "m", options);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "--optimizer 'lamb' is not sgd, adam or adamw");
}

} // namespace
