//===- RankReportTest.cpp - A rank's report to rank 0 ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The report a rank in another process sends rank 0: firings move onto rank
// 0's clock when the rank runs on rank 0's host (by the difference of the
// two runs' starts on the host's steady clock), keep their own on another
// host, and are left out unless asked for; loads, timing and the
// rank's thread count come through.
//
//===----------------------------------------------------------------------===//

#include "MultiRank/RankReport.h"

#include "gtest/gtest.h"

using namespace ofrt;
using namespace ofrt::multirank;

namespace {

RankState ranWith(const std::string &host, int64_t epochNs) {
  RankState state;
  state.host = host;
  state.epochNs = epochNs;
  state.result.steps = 2;
  state.result.seconds = 0.5;
  state.result.threads = 3;
  state.result.firings = {{3, 0, 10.0, 25.0, 0}, {4, 1, 40.0, 42.5, 1}};
  state.result.stepLoads = {{15.0, 30.0}, {2.5, 45.0}};
  return state;
}

RankState decoded(const RankState &sent, const RankState &own,
                  bool firings = true) {
  RankState state;
  absl::Status status =
      decodeReport(encodeReport(1, sent, firings), 1, nullptr, own, state);
  EXPECT_TRUE(status.ok()) << status;
  return state;
}

TEST(RankReport, FiringsOnRankZerosHostMoveOntoItsClock) {
  // Rank 1's run started 5 ms after rank 0's on the same host: its firing
  // at 10 us of its own run is at 5010 us of rank 0's.
  RankState own = ranWith("node-a", 1'000'000'000);
  RankState state = decoded(ranWith("node-a", 1'005'000'000), own);
  ASSERT_EQ(state.result.firings.size(), 2u);
  EXPECT_DOUBLE_EQ(state.result.firings[0].startUs, 5010.0);
  EXPECT_DOUBLE_EQ(state.result.firings[0].endUs, 5025.0);
  EXPECT_DOUBLE_EQ(state.result.firings[1].startUs, 5040.0);
  EXPECT_EQ(state.result.firings[1].actor, 4);
  EXPECT_EQ(state.result.firings[1].step, 1);
  EXPECT_EQ(state.result.firings[1].micro, 1);
  // One that started earlier moves back.
  RankState early = decoded(ranWith("node-a", 999'998'000), own);
  EXPECT_DOUBLE_EQ(early.result.firings[0].startUs, 8.0);
}

TEST(RankReport, FiringsOfAnotherHostKeepTheirClock) {
  RankState own = ranWith("node-a", 1'000'000'000);
  RankState state = decoded(ranWith("node-b", 7'000'000'000), own);
  ASSERT_EQ(state.result.firings.size(), 2u);
  EXPECT_DOUBLE_EQ(state.result.firings[0].startUs, 10.0);
  // Without a host name there is no telling: no shift either.
  RankState unnamed = decoded(ranWith("", 7'000'000'000), ranWith("", 0));
  EXPECT_DOUBLE_EQ(unnamed.result.firings[0].startUs, 10.0);
}

TEST(RankReport, LoadsAndTimingComeThroughFiringsOnlyWhenAsked) {
  RankState own = ranWith("node-a", 0);
  RankState state = decoded(ranWith("node-a", 1000), own, false);
  EXPECT_TRUE(state.result.firings.empty());
  EXPECT_EQ(state.result.steps, 2);
  EXPECT_DOUBLE_EQ(state.result.seconds, 0.5);
  EXPECT_EQ(state.result.threads, 3);
  ASSERT_EQ(state.result.stepLoads.size(), 2u);
  // Loads are measured on the rank's own clock and stay there.
  EXPECT_DOUBLE_EQ(state.result.stepLoads[1].computeUs, 2.5);
  EXPECT_DOUBLE_EQ(state.result.stepLoads[1].endUs, 45.0);
}

TEST(RankReport, ACorruptReportNamesItsRank) {
  RankState state;
  absl::Status status =
      decodeReport("\xff\xff not a report", 3, nullptr, RankState(), state);
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(status.message(), "rank 3 sent a corrupt report");
}

} // namespace
