//===- NcclFailureTest.cpp - Failures the nccl library reports ------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The failure half of the communicator contract for "nccl", as
// ../Collective/ConformanceFailureTest.cpp checks it for the host
// libraries: a rank that never joins, one that leaves, a silent peer, each
// reported within the timeout naming the rank and the collective, the
// communicator broken afterwards; and what only GPUs have: a buffer on
// another GPU, two ranks on one GPU. Each test skips without the GPUs its
// ranks need.
//
//===----------------------------------------------------------------------===//

#include "NcclHarness.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <future>

using namespace ofrt;
using namespace ofrt::nccltest;
using namespace std::chrono_literals;

namespace {

using Clock = std::chrono::steady_clock;

/// Whether `status` says `text`, printing it when not.
::testing::AssertionResult says(const absl::Status &status,
                                const std::string &text) {
  if (status.message().find(text) != absl::string_view::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << status << "\n  does not say: " << text;
}

void withWatchdog(const std::function<void()> &test) {
  oftest::withWatchdog(test, 60s);
}

TEST(NcclFailures, BadArgumentsAreErrorsNamingTheRank) {
  REQUIRE_GPUS(1);
  withWatchdog([] {
    expectAllOk(runRanks(1, [](Communicator &comm) {
      DeviceBuffer<uint16_t> half(4);
      absl::Status status =
          comm.allReduce(DType::F16, half.data(), half.data(), 4);
      EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
      EXPECT_TRUE(says(status, "rank 0 of 1: all_reduce cannot reduce f16"));
      // Data movement takes any element type; checked calls do not break
      // the communicator.
      return comm.allGather(DType::F16, half.data(), half.data(), 4);
    }));
  });
}

TEST(NcclFailures, BufferOnAnotherGpuIsAnError) {
  REQUIRE_GPUS(2);
  withWatchdog([] {
    cudaSetDevice(1);
    DeviceBuffer<float> elsewhere(8);
    std::vector<absl::Status> results = runRanks(1, [&](Communicator &comm) {
      return comm.allReduce(DType::F32, elsewhere.data(), elsewhere.data(), 8);
    });
    EXPECT_EQ(results[0].code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(says(results[0], "rank 0 of 1: all_reduce of 8 x f32 on a "
                                 "buffer of cuda:1; its communicator is on "
                                 "cuda:0"));
  });
}

TEST(NcclFailures, SilentPeerTimesOutARecvNamingTheCollectiveAndPeer) {
  REQUIRE_GPUS(2);
  withWatchdog([] {
    auto start = Clock::now();
    std::vector<absl::Status> results = runRanks(
        2,
        [](Communicator &comm) {
          if (comm.rank() == 1) // Rank 1 stays but never sends.
            return absl::OkStatus();
          DeviceBuffer<int64_t> data(4);
          return comm.recv(DType::I64, data.data(), 4, /*peer=*/1, /*tag=*/5);
        },
        3000ms);
    EXPECT_EQ(results[0].code(), absl::StatusCode::kDeadlineExceeded)
        << results[0];
    EXPECT_TRUE(says(results[0], "rank 0 of 2: recv of 4 x i64 from rank 1 "
                                 "(tag 5) timed out after 3000 ms"));
    EXPECT_LT(Clock::now() - start, 20s);
  });
}

TEST(NcclFailures, SilentPeerTimesOutACollectiveAndBreaksTheCommunicator) {
  REQUIRE_GPUS(2);
  withWatchdog([] {
    std::vector<absl::Status> results = runRanks(
        2,
        [](Communicator &comm) {
          if (comm.rank() == 0) // Rank 0 stays but never comes.
            return absl::OkStatus();
          DeviceBuffer<double> data(8);
          absl::Status status =
              comm.allReduce(DType::F64, data.data(), data.data(), 8);
          absl::Status again = comm.broadcast(DType::F64, data.data(), 8, 0);
          EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition)
              << again;
          return status;
        },
        3000ms);
    EXPECT_EQ(results[1].code(), absl::StatusCode::kDeadlineExceeded)
        << results[1];
    EXPECT_TRUE(says(results[1], "rank 1 of 2: all_reduce of 8 x f64 timed "
                                 "out after 3000 ms"));
  });
}

TEST(NcclFailures, RankThatNeverJoinsFailsTheOthersWithinTheTimeout) {
  REQUIRE_GPUS(2);
  withWatchdog([] {
    std::shared_ptr<Store> store = createInProcessStore();
    std::vector<std::future<absl::Status>> ranks;
    auto start = Clock::now();
    for (int rank = 0; rank < 2; ++rank) // Rank 2 of 3 never comes.
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        return joinOnGpu(rank, 3, store, {0, 1, 2}, "late", 1000ms).status();
      }));
    for (auto &rank : ranks) {
      absl::Status status = rank.get();
      EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
      EXPECT_TRUE(says(status, "joining the group failed: not every rank "
                               "joined within 1000 ms; missing rank(s) 2"));
    }
    EXPECT_LT(Clock::now() - start, 5s);
  });
}

TEST(NcclFailures, RankThatLeavesFailsTheCollectiveAndBreaksTheGroup) {
  REQUIRE_GPUS(3);
  withWatchdog([] {
    std::shared_ptr<Store> store = createInProcessStore();
    std::vector<std::future<absl::Status>> ranks;
    for (int rank = 0; rank < 3; ++rank)
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        auto comm = joinOnGpu(rank, 3, store, {0, 1, 2}, "leave", 3000ms);
        if (!comm.ok())
          return comm.status();
        if (rank == 2) { // Rank 2 leaves: its communicator goes.
          comm->reset();
          return absl::OkStatus();
        }
        std::this_thread::sleep_for(100ms);
        DeviceBuffer<float> data(std::vector<float>(10, 1.0f));
        auto start = Clock::now();
        absl::Status status =
            (*comm)->allReduce(DType::F32, data.data(), data.data(), 10);
        EXPECT_FALSE(status.ok());
        EXPECT_TRUE(says(status, "rank " + std::to_string(rank) +
                                     " of 3: all_reduce of 10 x f32"));
        EXPECT_LT(Clock::now() - start, 10s);
        absl::Status again = (*comm)->broadcast(DType::F32, data.data(), 10, 0);
        EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition) << again;
        return status;
      }));
    for (int rank = 0; rank < 3; ++rank)
      EXPECT_EQ(ranks[rank].get().ok(), rank == 2);
  });
}

TEST(NcclFailures, TwoRanksOnOneGpuAreRefused) {
  REQUIRE_GPUS(1);
  withWatchdog([] {
    std::shared_ptr<Store> store = createInProcessStore();
    std::vector<std::future<absl::Status>> ranks;
    for (int rank = 0; rank < 2; ++rank)
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        return joinOnGpu(rank, 2, store, {0, 1}, "shared", 5000ms, /*gpu=*/0)
            .status();
      }));
    for (auto &rank : ranks) {
      absl::Status status = rank.get();
      EXPECT_FALSE(status.ok());
      EXPECT_TRUE(says(status, "joining the group failed"));
    }
  });
}

TEST(NcclFailures, RanksMeetThroughAStoreDirectory) {
  REQUIRE_GPUS(2);
  withWatchdog([] {
    std::string pattern = ::testing::TempDir() + "/ofrt-store-nccl-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << std::strerror(errno);
    absl::StatusOr<std::shared_ptr<Store>> store = createFileStore(pattern);
    ASSERT_TRUE(store.ok()) << store.status();
    std::vector<std::future<absl::Status>> ranks;
    for (int rank = 0; rank < 2; ++rank)
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        auto comm = joinOnGpu(rank, 2, *store, {0, 1}, "dir", 20000ms);
        if (!comm.ok())
          return comm.status();
        int64_t value = rank + 1; // Host memory: staged.
        absl::Status status = (*comm)->allReduce(DType::I64, &value, &value, 1);
        EXPECT_EQ(value, 3);
        return status;
      }));
    for (auto &rank : ranks) {
      absl::Status status = rank.get();
      EXPECT_TRUE(status.ok()) << status;
    }
    std::error_code ignored;
    std::filesystem::remove_all(pattern, ignored);
  });
}

} // namespace
