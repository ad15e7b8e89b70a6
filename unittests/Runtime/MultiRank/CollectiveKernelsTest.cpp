//===- CollectiveKernelsTest.cpp - Collective kernels on 1-4 ranks --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each collective kernel on 1-4 in-process ranks, split on axis 0 and on
// axis 1 with uneven sizes, against logical tensors cut here with an
// independent balanced split; 2x2-mesh axis groups; bad attributes.
//
//===----------------------------------------------------------------------===//

#include "RankThreads.h"

#include "ofrt/CollectiveKernels.h"

using namespace ofrt;
using namespace oftest;

namespace {

/// Creates `op`'s kernel on this rank and runs it once on `input`.
absl::Status runOnce(const OpDesc &op, CommunicatorPool &pool,
                     TensorData input, TensorData &output) {
  absl::StatusOr<std::unique_ptr<Kernel>> kernel =
      createCollectiveKernel(op, pool);
  if (!kernel.ok())
    return kernel.status();
  output = TensorData{op.outputs[0], {}};
  output.bytes.assign(output.desc.bytes(), 0xFF);
  return (*kernel)->compute({}, {input.view()}, {output.view()});
}

std::vector<int64_t> everyRank(int world) {
  std::vector<int64_t> group;
  for (int r = 0; r < world; ++r)
    group.push_back(r);
  return group;
}

TEST(CollectiveKernels, AllReduceSumsOnOneToFourRanks) {
  Shape shape{5, 3};
  for (int world = 1; world <= 4; ++world) {
    std::vector<float> sum(15, 0);
    for (int r = 0; r < world; ++r) {
      std::vector<float> v = values(iota(shape, 1, 100 * r));
      for (size_t i = 0; i < v.size(); ++i)
        sum[i] += v[i];
    }
    OpDesc op = makeOp("oneflow.all_reduce", {}, {{DType::F32, shape}},
                       {{DType::F32, shape}},
                       CollectiveLayout{everyRank(world)});
    expectAllOk(onRanks(world, [&](int r, CommunicatorPool &pool) {
      TensorData out;
      absl::Status s = runOnce(op, pool, iota(shape, 1, 100 * r), out);
      if (s.ok())
        EXPECT_EQ(values(out), sum) << world << " ranks, rank " << r;
      return s;
    }));
  }
}

TEST(CollectiveKernels, ReduceScatterAndAllGatherOnAxis0And1Uneven) {
  for (Shape shape : {Shape{5, 7}, Shape{2, 5, 3}})
    for (int64_t axis : {0, 1})
      for (int world = 1; world <= 4; ++world) {
        SCOPED_TRACE(std::to_string(world) + " ranks, axis " +
                     std::to_string(axis) + ", rank " +
                     std::to_string(shape.size()));
        TensorData full = iota(shape, 1, 0.5);
        std::vector<int64_t> group = everyRank(world);
        expectAllOk(onRanks(world, [&](int r, CommunicatorPool &pool) {
          TensorData mine = splitPiece(full, axis, world, r);
          // all_gather: pieces -> the full tensor.
          OpDesc gather = makeOp("oneflow.all_gather", {}, {mine.desc},
                                 {full.desc}, CollectiveLayout{group, axis});
          TensorData out;
          absl::Status s = runOnce(gather, pool, mine, out);
          if (!s.ok())
            return s;
          EXPECT_EQ(values(out), values(full)) << "all_gather rank " << r;
          // reduce_scatter: rank q contributes (q + 1) * full; this rank
          // gets its piece of the sum, (1 + .. + world) * full.
          OpDesc scatter = makeOp("oneflow.reduce_scatter", {}, {full.desc},
                                  {mine.desc}, CollectiveLayout{group, axis});
          s = runOnce(scatter, pool, iota(shape, r + 1, 0.5 * (r + 1)), out);
          if (!s.ok())
            return s;
          float factor = world * (world + 1) / 2.0f;
          EXPECT_EQ(values(out),
                    values(splitPiece(iota(shape, factor, 0.5 * factor), axis,
                                      world, r)))
              << "reduce_scatter rank " << r;
          return absl::OkStatus();
        }));
      }
}

TEST(CollectiveKernels, AllToAllMovesTheSplitBetweenAxes) {
  for (Shape shape : {Shape{5, 7}, Shape{3, 5, 2}})
    for (auto [inAxis, outAxis] :
         {std::pair<int64_t, int64_t>{0, 1}, {1, 0}, {2, 1}}) {
      if (inAxis >= static_cast<int64_t>(shape.size()))
        continue;
      for (int world = 1; world <= 4; ++world) {
        SCOPED_TRACE(std::to_string(world) + " ranks, S(" +
                     std::to_string(inAxis) + ") -> S(" +
                     std::to_string(outAxis) + ")");
        TensorData full = iota(shape);
        expectAllOk(onRanks(world, [&](int r, CommunicatorPool &pool) {
          TensorData in = splitPiece(full, inAxis, world, r);
          TensorData expected = splitPiece(full, outAxis, world, r);
          OpDesc op =
              makeOp("oneflow.all_to_all", {}, {in.desc}, {expected.desc},
                     CollectiveLayout{everyRank(world), 0, inAxis, outAxis});
          TensorData out;
          absl::Status s = runOnce(op, pool, in, out);
          if (s.ok())
            EXPECT_EQ(values(out), values(expected)) << "rank " << r;
          return s;
        }));
      }
    }
}

/// On a 2x2 mesh (rank = 2 * row + column), rows are the groups of mesh
/// axis 1 and columns those of mesh axis 0. A P -> B on axis 1 then an
/// S(0) -> B on axis 0: every rank joins its row, then its column, in the
/// same program order, so all four groups connect.
TEST(CollectiveKernels, MeshRowAndColumnGroupsAllConnect) {
  Shape shape{4, 3};
  TensorData full = iota(shape);
  expectAllOk(onRanks(4, [&](int r, CommunicatorPool &pool) {
    int row = r / 2, column = r % 2;
    std::vector<int64_t> rowGroup{2 * row, 2 * row + 1};
    std::vector<int64_t> columnGroup{column, 2 + column};
    TensorData piece = splitPiece(full, 0, 2, row);
    // Each rank of a row holds half of the row's piece (a partial sum).
    TensorData half = piece;
    auto *h = reinterpret_cast<float *>(half.bytes.data());
    for (int64_t i = 0; i < half.desc.numel(); ++i)
      h[i] = column == 0 ? h[i] * 0.25f : h[i] * 0.75f;
    OpDesc reduce = makeOp("oneflow.all_reduce", {}, {piece.desc},
                           {piece.desc}, CollectiveLayout{rowGroup});
    TensorData summed, gathered;
    absl::Status s = runOnce(reduce, pool, half, summed);
    if (!s.ok())
      return s;
    EXPECT_EQ(values(summed), values(piece)) << "rank " << r;
    OpDesc gather = makeOp("oneflow.all_gather", {}, {piece.desc},
                           {full.desc}, CollectiveLayout{columnGroup, 0});
    s = runOnce(gather, pool, summed, gathered);
    if (!s.ok())
      return s;
    EXPECT_EQ(values(gathered), values(full)) << "rank " << r;
    EXPECT_EQ(pool.numGroups(), 2u);
    // The same group again is the same communicator: nothing new to join.
    absl::StatusOr<Communicator *> again = pool.get(rowGroup);
    EXPECT_TRUE(again.ok());
    EXPECT_EQ(pool.numGroups(), 2u);
    return absl::OkStatus();
  }));
}

/// The rule the pool relies on: ranks that join overlapping groups in
/// different orders wait for each other and fail after the timeout, naming
/// the group, instead of hanging.
TEST(CollectiveKernels, GroupsJoinedOutOfOrderTimeOutNamingTheGroup) {
  std::vector<absl::Status> statuses = onRanks(
      3,
      [&](int r, CommunicatorPool &pool) -> absl::Status {
        std::vector<std::vector<int64_t>> order =
            r == 0 ? std::vector<std::vector<int64_t>>{{0, 1}, {0, 2}}
            : r == 1 ? std::vector<std::vector<int64_t>>{{1, 2}, {0, 1}}
                     : std::vector<std::vector<int64_t>>{{0, 2}, {1, 2}};
        for (const auto &group : order)
          if (absl::StatusOr<Communicator *> comm = pool.get(group);
              !comm.ok())
            return comm.status();
        return absl::OkStatus();
      },
      300ms);
  for (int r = 0; r < 3; ++r) {
    ASSERT_FALSE(statuses[r].ok()) << "rank " << r;
    EXPECT_TRUE(absl::IsDeadlineExceeded(statuses[r])) << statuses[r];
    EXPECT_NE(statuses[r].message().find("rank " + std::to_string(r) +
                                         " of 3: group ["),
              std::string::npos)
        << statuses[r];
  }
}

TEST(CollectiveKernels, BadLayoutsAreErrorsNamingTheActor) {
  TensorDesc t{DType::F32, {4, 2}};
  TensorDesc half{DType::F32, {2, 2}};
  struct Case {
    OpDesc op;
    std::string message;
  };
  std::vector<Case> cases = {
      {makeOp("oneflow.all_reduce", {}, {t}, {t}),
       "oneflow.all_reduce 'all_reduce': needs a collective layout (its "
       "group and axes)"},
      {makeOp("oneflow.all_gather", {}, {half}, {t},
              CollectiveLayout{{0, 1}, 2}),
       "oneflow.all_gather 'all_gather': the collective's axis is 2 but the "
       "tensor has rank 2"},
      {makeOp("oneflow.all_gather", {}, {half}, {t},
              CollectiveLayout{{0, 1}, 1}),
       "oneflow.all_gather 'all_gather': operand is 2x2xf32 but rank 0 of its "
       "group of 2 holds [4, 1] of the 4x2xf32 split along axis 1"},
      {makeOp("oneflow.all_to_all", {}, {half}, {half},
              CollectiveLayout{{0, 1}, 0, 0, 0}),
       "oneflow.all_to_all 'all_to_all': in_axis and out_axis are both 0"},
      {makeOp("oneflow.all_reduce", {}, {t}, {t}, CollectiveLayout{{1}}),
       "oneflow.all_reduce 'all_reduce': rank 0 of 2: group [1] does not "
       "contain this rank"},
      {makeOp("oneflow.all_reduce", {}, {t}, {t}, CollectiveLayout{{0, 5}}),
       "oneflow.all_reduce 'all_reduce': rank 0 of 2: group [0, 5] names "
       "rank 5, outside the job"},
      {makeOp("oneflow.all_reduce", {}, {{DType::I8, {4}}}, {{DType::I8, {4}}},
              CollectiveLayout{{0, 1}}),
       "oneflow.all_reduce 'all_reduce': cannot sum i8 (f32, f64, i32, i64 "
       "only)"},
  };
  std::unique_ptr<CommunicatorPool> owned =
      makePool(0, 2, createInProcessStore(), 200ms);
  CommunicatorPool &pool = *owned;
  for (const Case &c : cases) {
    absl::StatusOr<std::unique_ptr<Kernel>> kernel =
        createCollectiveKernel(c.op, pool);
    ASSERT_FALSE(kernel.ok()) << c.message;
    EXPECT_EQ(kernel.status().message(), c.message);
  }
  EXPECT_EQ(pool.numGroups(), 0u);
}

} // namespace
