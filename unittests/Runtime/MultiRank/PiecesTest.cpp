//===- PiecesTest.cpp - Box copies, logical indices, assembly -------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "RankThreads.h"

#include "ofrt/Pieces.h"

using namespace ofrt;
using namespace oftest;

namespace {

TEST(Pieces, CopyAndAddBoxes) {
  TensorData src = iota({3, 4});
  TensorData dst = iota({2, 5}, 0, -1);
  copyBox(src.view(), {1, 1}, dst.view(), {0, 2}, {2, 3});
  EXPECT_EQ(values(dst), (std::vector<float>{-1, -1, 5, 6, 7, -1, -1, 9, 10,
                                             11}));
  ASSERT_TRUE(addBox(src.view(), {0, 0}, dst.view(), {1, 0}, {1, 2}).ok());
  EXPECT_EQ(values(dst), (std::vector<float>{-1, -1, 5, 6, 7, -1, 0, 9, 10,
                                             11}));
  TensorData bytes{{DType::I8, {2}}, {1, 2}};
  absl::Status status = addBox(bytes.view(), {0}, bytes.view(), {0}, {2});
  EXPECT_EQ(status.message(), "cannot sum i8 pieces (f32, f64, i32, i64 only)");
}

TEST(Pieces, LogicalIndicesOfAPiece) {
  std::vector<std::pair<int64_t, int64_t>> seen;
  forEachLogicalIndex({2, 2}, {1, 2}, {4, 5}, [&](int64_t local,
                                                  int64_t logical) {
    seen.push_back({local, logical});
  });
  EXPECT_EQ(seen, (std::vector<std::pair<int64_t, int64_t>>{
                      {0, 7}, {1, 8}, {2, 12}, {3, 13}}));
}

OutputPiece piece(const TensorData &value, Shape logical, Shape begin,
                  bool partial, bool primary) {
  OutputPiece p;
  p.value = value;
  p.layout.logicalShape = std::move(logical);
  p.layout.begin = std::move(begin);
  p.partial = partial;
  p.primary = primary;
  return p;
}

TEST(Pieces, AssemblesSplitBroadcastAndPartialPieces) {
  TensorData full = iota({3, 2});
  // S(0) over 2 ranks: rows [0, 2) and [2, 3).
  auto split = assemblePieces(
      "y", {piece(box(full, {0, 0}, {2, 2}), {3, 2}, {0, 0}, false, true),
            piece(box(full, {2, 0}, {1, 2}), {3, 2}, {2, 0}, false, true)});
  ASSERT_TRUE(split.ok()) << split.status();
  EXPECT_EQ(values(*split), values(full));
  // B: the primary copy only (the other is garbage).
  auto broadcast = assemblePieces(
      "y", {piece(iota({3, 2}, 0, 9), {3, 2}, {0, 0}, false, false),
            piece(full, {3, 2}, {0, 0}, false, true)});
  ASSERT_TRUE(broadcast.ok());
  EXPECT_EQ(values(*broadcast), values(full));
  // P: primary pieces are summed.
  auto partial = assemblePieces(
      "y", {piece(full, {3, 2}, {0, 0}, true, true),
            piece(iota({3, 2}, 0, 1), {3, 2}, {0, 0}, true, true)});
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(values(*partial), values(iota({3, 2}, 1, 1)));
}

TEST(Pieces, AssemblyErrorsNameTheOutput) {
  TensorData full = iota({3, 2});
  auto gap = assemblePieces(
      "y", {piece(box(full, {0, 0}, {2, 2}), {3, 2}, {0, 0}, false, true)});
  EXPECT_EQ(gap.status().message(), "output 'y': its primary pieces hold 4 "
                                    "elements but the logical 3x2xf32 has 6");
  auto none = assemblePieces("y", {piece(full, {3, 2}, {0, 0}, false, false)});
  EXPECT_EQ(none.status().message(),
            "output 'y' has no primary piece on any rank");
  auto mixed = assemblePieces("y", {piece(full, {3, 2}, {0, 0}, false, true),
                                    piece(full, {6}, {0}, false, true)});
  EXPECT_EQ(mixed.status().message(),
            "output 'y' has pieces of different logical types (3x2xf32 and "
            "6xf32) or both partial and non-partial pieces");
}

TEST(Pieces, OutputsWithoutLayoutAreWholeAndPrimaryOnRankZero) {
  OpDesc op = makeOp("oneflow.output", {}, {{DType::F32, {3}}}, {});
  auto zero = readOutputPiece(op, 0), one = readOutputPiece(op, 1);
  ASSERT_TRUE(zero.ok() && one.ok());
  EXPECT_TRUE(zero->primary);
  EXPECT_FALSE(one->primary);
  EXPECT_EQ(zero->layout.logicalShape, (Shape{3}));
  op.layout = SinkLayout{{{3, 2}, {0}, false}, false, true};
  EXPECT_EQ(readOutputPiece(op, 0).status().message(),
            "oneflow.output 'output': the logical shape [3, 2] and piece "
            "begin [0] must have one entry per axis of its [3] piece");
}

} // namespace
