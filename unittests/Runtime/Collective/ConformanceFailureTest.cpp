//===- ConformanceFailureTest.cpp - Failures every library reports
//---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The failure half of the communicator contract, for every collective
// library: bad arguments, a rank that never joins, one that leaves, a peer
// that stays silent, each reported within the timeout naming the rank and
// the collective; and ranks that meet through a store directory.
//
//===----------------------------------------------------------------------===//

#include "ConformanceHarness.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>

using namespace ofrt;
using namespace ofrt::conformance;

namespace {

class ConformanceFailures : public LibraryTest {};

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_P(ConformanceFailures, BadArgumentsAreErrorsNamingTheRank) {
  onRanks(1, [&](Communicator &comm) {
    std::vector<uint16_t> half(4);
    absl::Status status =
        comm.allReduce(DType::F16, half.data(), half.data(), 4);
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
    EXPECT_EQ(status.message(),
              "rank 0 of 1: all_reduce cannot reduce f16 (f32, f64, i32, i64 "
              "only)");
    std::vector<float> data(12);
    TensorView whole{data.data(), {DType::F32, {4, 3}}};
    TensorView wrong{data.data(), {DType::F32, {3, 3}}};
    status = comm.reduceScatter(whole, wrong);
    EXPECT_EQ(status.message(),
              "rank 0 of 1: reduce_scatter got 3x3xf32, expected 4x3xf32");
    status = comm.send(DType::F32, data.data(), 1, 0, 0);
    EXPECT_EQ(status.message(), "rank 0 of 1: send with rank 0");
    status = comm.broadcast(DType::F32, data.data(), 1, 3);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    status = comm.allToAllV(DType::F32, data.data(), {1, 2}, data.data(), {1});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    // Data movement takes any element type.
    return comm.allGather(DType::F16, half.data(), half.data(), 4);
  });
}

TEST_P(ConformanceFailures, SilentPeerTimesOutARecvNamingTheCollectiveAndPeer) {
  withWatchdog([&] {
    auto start = std::chrono::steady_clock::now();
    std::vector<absl::Status> results = harness->run(
        2,
        [](Communicator &comm) {
          if (comm.rank() == 1) // Rank 1 stays but never sends.
            return absl::OkStatus();
          std::vector<int64_t> data(4);
          return comm.recv(DType::I64, data.data(), 4, /*peer=*/1, /*tag=*/5);
        },
        1000ms);
    if (results.empty() || (harness->processes() && mpiWorldRank() != 0))
      return; // Not rank 0's process.
    absl::Status status = results[0];
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    EXPECT_NE(status.message().find("rank 0 of 2: recv of 4 x i64 from rank "
                                    "1 (tag 5) timed out after 1000 ms"),
              absl::string_view::npos)
        << status;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  });
}

TEST_P(ConformanceFailures, SilentPeerTimesOutACollective) {
  if (!harness->peersMayFail())
    GTEST_SKIP() << "MPI cannot abandon a pending collective";
  withWatchdog([&] {
    std::vector<absl::Status> results = harness->run(
        2,
        [](Communicator &comm) {
          if (comm.rank() == 0) // Rank 0 stays but never comes.
            return absl::OkStatus();
          std::vector<double> data(8);
          absl::Status status =
              comm.allReduce(DType::F64, data.data(), data.data(), 8);
          // Broken: the next call fails at once, saying why.
          absl::Status again = comm.broadcast(DType::F64, data.data(), 8, 0);
          EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition)
              << again;
          return status;
        },
        1000ms);
    absl::Status status = results[1];
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    EXPECT_NE(status.message().find("rank 1 of 2: all_reduce of 8 x f64 "
                                    "timed out after 1000 ms"),
              absl::string_view::npos)
        << status;
  });
}

TEST_P(ConformanceFailures, RankThatNeverJoinsFailsTheOthersWithinTheTimeout) {
  if (!harness->peersMayFail())
    GTEST_SKIP() << "MPI's group creation has no timeout; mpirun ends a job "
                    "whose rank never starts";
  withWatchdog([&] {
    std::shared_ptr<Store> store = createInProcessStore();
    std::vector<std::future<absl::Status>> ranks;
    auto start = std::chrono::steady_clock::now();
    for (int rank = 0; rank < 2; ++rank) // Rank 2 of 3 never comes.
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        return harness->join(rank, 3, store, {0, 1, 2}, "late", 1000ms)
            .status();
      }));
    for (auto &rank : ranks) {
      absl::Status status = rank.get();
      EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
      EXPECT_NE(status.message().find("joining the group failed: not every "
                                      "rank joined within 1000 ms; missing "
                                      "rank(s) 2"),
                absl::string_view::npos)
          << status;
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  });
}

TEST_P(ConformanceFailures, RankThatLeavesFailsTheCollectiveAndBreaksTheGroup) {
  if (!harness->peersMayFail())
    GTEST_SKIP() << "mpirun ends the job when a rank exits";
  withWatchdog([&] {
    std::shared_ptr<Store> store = createInProcessStore();
    std::vector<std::future<absl::Status>> ranks;
    auto start = std::chrono::steady_clock::now();
    for (int rank = 0; rank < 3; ++rank)
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        auto comm = harness->join(rank, 3, store, {0, 1, 2}, "leave", 1000ms);
        if (!comm.ok())
          return comm.status();
        if (rank == 2) { // Rank 2 leaves: its communicator closes.
          comm->reset();
          return absl::OkStatus();
        }
        std::this_thread::sleep_for(100ms);
        std::vector<float> data(10, 1.0f);
        absl::Status status =
            (*comm)->allReduce(DType::F32, data.data(), data.data(), 10);
        EXPECT_FALSE(status.ok());
        EXPECT_NE(status.message().find("rank " + std::to_string(rank) +
                                        " of 3: all_reduce of 10 x f32"),
                  absl::string_view::npos)
            << status;
        // Broken: the next call fails at once, saying why.
        absl::Status again = (*comm)->broadcast(DType::F32, data.data(), 10, 0);
        EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
        return status;
      }));
    for (int rank = 0; rank < 3; ++rank)
      EXPECT_EQ(ranks[rank].get().ok(), rank == 2);
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  });
}

TEST_P(ConformanceFailures, RanksMeetThroughAStoreDirectory) {
  if (harness->processes())
    GTEST_SKIP() << "MPI ranks meet through mpirun";
  withWatchdog([&] {
    // A directory of its own, made fresh: keys left by an earlier run (a
    // recycled pid, or --gtest_repeat) would hand a rank another run's
    // addresses.
    std::string pattern =
        ::testing::TempDir() + "/ofrt-store-" + harness->library + "-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    std::string directory = pattern;
    absl::StatusOr<std::shared_ptr<Store>> store = createFileStore(directory);
    ASSERT_TRUE(store.ok()) << store.status();
    std::vector<std::future<absl::Status>> ranks;
    for (int rank = 0; rank < 2; ++rank)
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        auto comm = harness->join(rank, 2, *store, {0, 1}, "dir", 5000ms);
        if (!comm.ok())
          return comm.status();
        int64_t value = rank + 1;
        absl::Status status = (*comm)->allReduce(DType::I64, &value, &value, 1);
        EXPECT_EQ(value, 3);
        return status;
      }));
    for (auto &rank : ranks)
      EXPECT_TRUE(rank.get().ok());
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  });
}

INSTANTIATE_TEST_SUITE_P(Libraries, ConformanceFailures, allLibraries(),
                         libraryName);

} // namespace
