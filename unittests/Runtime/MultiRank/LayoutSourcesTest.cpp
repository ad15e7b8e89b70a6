//===- LayoutSourcesTest.cpp - Sources and sinks with layouts -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Inputs (random and file) and variables laid out S(0), S(1), B or P over 1-4
// ranks produce pieces that assemble into exactly the values one rank
// produces; a mean over a split axis with `divisor` gives the logical mean.
//
//===----------------------------------------------------------------------===//

#include "ProgramBuilder.h"
#include "RankThreads.h"

#include "ofrt/MultiRank.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

using namespace ofrt;
using namespace oftest;

namespace {

enum class Layout { S0, S1, B, P };

/// The layout of rank r's piece of `logical` under `layout` on n ranks: a
/// source's piece, or (`output`) a sink's, partial and primary as the
/// lowering makes them.
ActorLayout pieceLayout(Layout layout, int n, int r, const Shape &logical,
                        bool output, Shape &local) {
  Shape begin(logical.size(), 0);
  local = logical;
  if (layout == Layout::S0 || layout == Layout::S1) {
    int axis = layout == Layout::S0 ? 0 : 1;
    auto [b, s] = part(logical[axis], n, r);
    begin[axis] = b;
    local[axis] = s;
  }
  PieceLayout piece{logical, begin, !output && layout == Layout::P && r != 0};
  if (!output)
    return piece;
  return SinkLayout{piece, layout == Layout::P,
                    layout != Layout::B || r == 0};
}

/// input "x" and (with `variable`) variable "w", each straight to an output
/// of the same name, on every rank. A variable never ends, so plans that run
/// to the end of a file have none.
LoadedPlan sourcesPlan(Layout layout, int n, const Shape &logical,
                       bool variable = true) {
  LoadedPlan plan;
  plan.worldSize = n;
  for (int r = 0; r < n; ++r) {
    ProgramBuilder b(r);
    Shape local;
    ActorLayout piece = pieceLayout(layout, n, r, logical, false, local);
    TensorDesc desc{DType::F32, local};
    int64_t x = b.add("oneflow.input", "x", {{"name", std::string("x")}}, {},
                      {desc}, piece)[0];
    ActorLayout sink = pieceLayout(layout, n, r, logical, true, local);
    b.add("oneflow.output", "out_x", {{"name", std::string("x")}}, {x}, {},
          sink);
    if (variable) {
      int64_t w = b.add("oneflow.variable", "w",
                        {{"init", std::string("xavier_uniform")},
                         {"seed", int64_t(7)}},
                        {}, {desc}, piece)[0];
      b.add("oneflow.output", "out_w", {{"name", std::string("w")}}, {w}, {},
            sink);
    }
    plan.ranks.push_back(b.finish());
  }
  return plan;
}

MultiRankResult runPlan(const LoadedPlan &plan, const SessionOptions &session,
                        int64_t steps) {
  MultiRankOptions options;
  options.session = session;
  options.run.maxSteps = steps;
  options.timeout = std::chrono::milliseconds(5000);
  absl::StatusOr<MultiRankResult> result;
  withWatchdog([&] { result = runAllRanks(plan, options); });
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *result : MultiRankResult();
}

TEST(LayoutSources, RandomInputsAndVariablesAgreeOnOneToFourRanks) {
  Shape logical{5, 7};
  SessionOptions session;
  session.seed = 11;
  MultiRankResult one = runPlan(sourcesPlan(Layout::B, 1, logical),
                                session, 3);
  ASSERT_EQ(one.outputs.count("x"), 1u);
  ASSERT_EQ(one.outputs.at("x").desc, (TensorDesc{DType::F32, logical}));
  for (Layout layout : {Layout::S0, Layout::S1, Layout::B, Layout::P})
    for (int n = 1; n <= 4; ++n) {
      SCOPED_TRACE("layout " + std::to_string(static_cast<int>(layout)) +
                   " on " + std::to_string(n) + " ranks");
      MultiRankResult many =
          runPlan(sourcesPlan(layout, n, logical), session, 3);
      ASSERT_EQ(many.ranks.size(), static_cast<size_t>(n));
      for (const char *name : {"x", "w"}) {
        ASSERT_EQ(many.outputs.count(name), 1u) << name;
        EXPECT_EQ(many.outputs.at(name).desc, one.outputs.at(name).desc);
        EXPECT_EQ(values(many.outputs.at(name)), values(one.outputs.at(name)))
            << name;
      }
    }
}

TEST(LayoutSources, FileInputsReadTheirSliceOfEachLogicalBatch) {
  Shape logical{3, 4};
  std::string path =
      (std::filesystem::temp_directory_path() / "layout-sources-batches.bin")
          .string();
  {
    std::ofstream file(path, std::ios::binary);
    for (int batch = 0; batch < 3; ++batch) {
      TensorData t = iota(logical, 1, 100 * batch);
      file.write(reinterpret_cast<const char *>(t.bytes.data()),
                 t.bytes.size());
    }
  }
  SessionOptions session;
  session.inputs["x"] = InputSource{InputSource::Kind::File, 0, 0, 0, path};
  for (Layout layout : {Layout::S0, Layout::S1, Layout::P})
    for (int n : {1, 2, 3}) {
      MultiRankResult result =
          runPlan(sourcesPlan(layout, n, logical, false), session, -1);
      // Every rank ran to the end of the file: three steps, the last batch.
      for (const RunResult &rank : result.ranks)
        EXPECT_EQ(rank.steps, 3);
      EXPECT_EQ(values(result.outputs["x"]), values(iota(logical, 1, 200)));
    }
  std::filesystem::remove(path);
}

TEST(LayoutSources, MeanOverASplitAxisDividesByTheLogicalCount) {
  Shape logical{2, 6};
  SessionOptions session;
  for (int n : {1, 2, 4}) {
    LoadedPlan plan;
    plan.worldSize = n;
    for (int r = 0; r < n; ++r) {
      ProgramBuilder b(r);
      Shape local;
      ActorLayout piece = pieceLayout(Layout::S1, n, r, logical, false, local);
      int64_t x = b.add("oneflow.input", "x", {{"name", std::string("x")}}, {},
                        {{DType::F32, local}}, piece)[0];
      int64_t mean = b.add("oneflow.reduce_mean", "mean", {{"axes", Shape{1}}},
                           {x}, {{DType::F32, {2}}}, MeanDivisor{6})[0];
      Shape scalar;
      b.add("oneflow.output", "out", {{"name", std::string("mean")}}, {mean},
            {}, pieceLayout(Layout::P, n, r, {2}, true, scalar));
      b.add("oneflow.output", "out_x", {{"name", std::string("x")}}, {x}, {},
            pieceLayout(Layout::S1, n, r, logical, true, scalar));
      plan.ranks.push_back(b.finish());
    }
    MultiRankResult result = runPlan(plan, session, 2);
    std::vector<float> x = values(result.outputs["x"]);
    std::vector<float> mean = values(result.outputs["mean"]);
    ASSERT_EQ(mean.size(), 2u);
    for (int row = 0; row < 2; ++row) {
      double sum = 0;
      for (int c = 0; c < 6; ++c)
        sum += x[row * 6 + c];
      EXPECT_NEAR(mean[row], sum / 6, 1e-6) << n << " ranks, row " << row;
    }
  }
}

/// On a 2x2 mesh (rank = 2 * i + j), each mesh axis has its own SBP: a
/// split of a tensor axis, B or P. Sources and outputs get the layouts the
/// lowering would give them.
enum class Axis { S0, S1, B, P };

LoadedPlan meshPlan(Axis first, Axis second, const Shape &logical) {
  LoadedPlan plan;
  plan.worldSize = 4;
  for (int r = 0; r < 4; ++r) {
    int coordinate[2] = {r / 2, r % 2};
    Axis sbp[2] = {first, second};
    Shape begin(2, 0), local = logical;
    bool zero = false, partial = false, primary = true;
    for (int m = 0; m < 2; ++m) {
      if (sbp[m] == Axis::S0 || sbp[m] == Axis::S1) {
        int axis = sbp[m] == Axis::S0 ? 0 : 1;
        // Mesh axes split in order, each within what the previous left.
        auto [b, size] = part(local[axis], 2, coordinate[m]);
        begin[axis] += b;
        local[axis] = size;
      }
      zero |= sbp[m] == Axis::P && coordinate[m] != 0;
      partial |= sbp[m] == Axis::P;
      primary &= sbp[m] != Axis::B || coordinate[m] == 0;
    }
    ProgramBuilder b(r);
    PieceLayout piece{logical, begin, zero};
    int64_t x = b.add("oneflow.input", "x", {{"name", std::string("x")}}, {},
                      {{DType::F32, local}}, piece)[0];
    int64_t v = b.add("oneflow.variable", "w",
                      {{"init", std::string("normal")},
                       {"init_args", std::vector<double>{0, 1}}},
                      {}, {{DType::F32, local}}, piece)[0];
    SinkLayout sink{{logical, begin, false}, partial, primary};
    b.add("oneflow.output", "out_x", {{"name", std::string("x")}}, {x}, {},
          sink);
    b.add("oneflow.output", "out_w", {{"name", std::string("w")}}, {v}, {},
          sink);
    plan.ranks.push_back(b.finish());
  }
  return plan;
}

TEST(LayoutSources, TwoByTwoMeshLayoutsAgreeWithOneRank) {
  Shape logical{5, 3};
  SessionOptions session;
  session.seed = 5;
  // The same sources on one rank, with no layout attributes at all.
  LoadedPlan single;
  ProgramBuilder b(0);
  TensorDesc whole{DType::F32, logical};
  int64_t x = b.add("oneflow.input", "x", {{"name", std::string("x")}}, {},
                    {whole})[0];
  int64_t w = b.add("oneflow.variable", "w",
                    {{"init", std::string("normal")},
                     {"init_args", std::vector<double>{0, 1}}},
                    {}, {whole})[0];
  b.add("oneflow.output", "out_x", {{"name", std::string("x")}}, {x}, {});
  b.add("oneflow.output", "out_w", {{"name", std::string("w")}}, {w}, {});
  single.ranks.push_back(b.finish());
  MultiRankResult one = runPlan(single, session, 2);
  ASSERT_EQ(one.outputs.size(), 2u);
  for (Axis first : {Axis::S0, Axis::S1, Axis::B, Axis::P})
    for (Axis second : {Axis::S0, Axis::S1, Axis::B, Axis::P}) {
      SCOPED_TRACE("(" + std::to_string(static_cast<int>(first)) + ", " +
                   std::to_string(static_cast<int>(second)) + ")");
      MultiRankResult mesh =
          runPlan(meshPlan(first, second, logical), session, 2);
      for (const char *name : {"x", "w"})
        EXPECT_EQ(values(mesh.outputs[name]), values(one.outputs.at(name)))
            << name;
    }
}

TEST(LayoutSources, PiecesOutsideTheLogicalTensorAreErrors) {
  ProgramBuilder b(0);
  b.add("oneflow.input", "x", {{"name", std::string("x")}}, {},
        {{DType::F32, {2}}}, PieceLayout{{4}, {3}, false});
  absl::StatusOr<std::unique_ptr<Session>> session =
      Session::create(b.finish(), {});
  ASSERT_FALSE(session.ok());
  EXPECT_EQ(session.status().message(),
            "cannot create the kernel of actor 'x' (oneflow.input 'x'): "
            "oneflow.input 'x': its [2] piece at [3] does not fit in the "
            "logical shape [4]");
}

} // namespace
