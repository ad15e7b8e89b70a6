//===- CommunicatorTest.cpp - Gloo collectives, ranks as threads ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Each test runs p ranks as threads of this process and checks every rank's
// result against values computed here, independently of the library (the
// balanced split included). A watchdog ends the process if a test hangs.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/GlooCommunicator.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <future>
#include <thread>

using namespace ofrt;
using namespace std::chrono_literals;

namespace {
constexpr std::chrono::milliseconds kTimeout = 1000ms;

/// Runs `test`, ending the process if it has not finished within `limit`.
void withWatchdog(const std::function<void()> &test,
                  std::chrono::seconds limit = 10s) {
  auto done = std::async(std::launch::async, test);
  if (done.wait_for(limit) != std::future_status::ready) {
    std::fprintf(stderr, "watchdog: test hung for %llds\n",
                 static_cast<long long>(limit.count()));
    std::_Exit(1);
  }
  done.get();
}

using RankBody = std::function<absl::Status(Communicator &)>;

/// Makes a group of `size` and runs body on each rank in its own thread.
std::vector<absl::Status> runRanks(int size, const RankBody &body) {
  auto group = createInProcessGroup(size, kTimeout);
  EXPECT_TRUE(group.ok()) << group.status();
  if (!group.ok())
    return {group.status()};
  std::vector<std::future<absl::Status>> ranks;
  for (auto &member : *group)
    ranks.push_back(std::async(std::launch::async,
                               [&body, &member] { return body(*member); }));
  std::vector<absl::Status> results;
  for (auto &rank : ranks)
    results.push_back(rank.get());
  return results;
}

void expectAllOk(const std::vector<absl::Status> &results) {
  for (size_t rank = 0; rank < results.size(); ++rank)
    EXPECT_TRUE(results[rank].ok()) << "rank " << rank << ": " << results[rank];
}

/// Balanced split, written out: the first length % parts get one more.
std::pair<int64_t, int64_t> chunkOf(int64_t length, int64_t parts,
                                    int64_t index) {
  int64_t base = length / parts, extra = length % parts;
  int64_t begin = index * base + std::min(index, extra);
  return {begin, base + (index < extra ? 1 : 0)};
}

/// Rank r's input element i: distinct, exact in every dtype.
double valueOf(int rank, int64_t i) { return (rank + 1) * 100 + i; }

template <typename T> struct TypeOf;
template <> struct TypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct TypeOf<double> {
  static constexpr DType value = DType::F64;
};
template <> struct TypeOf<int32_t> {
  static constexpr DType value = DType::I32;
};
template <> struct TypeOf<int64_t> {
  static constexpr DType value = DType::I64;
};

template <typename T> std::vector<T> inputOf(int rank, int64_t count) {
  std::vector<T> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(valueOf(rank, i));
  return values;
}

template <typename T> T sumOver(int size, int64_t i) {
  double total = 0;
  for (int rank = 0; rank < size; ++rank)
    total += valueOf(rank, i);
  return static_cast<T>(total);
}

template <typename T> void checkAllReduce(int size, int64_t count) {
  expectAllOk(runRanks(size, [&](Communicator &comm) {
    std::vector<T> input = inputOf<T>(comm.rank(), count), output(count);
    absl::Status status =
        comm.allReduce(TypeOf<T>::value, input.data(), output.data(), count);
    // In place, on the result: sums of sums.
    if (status.ok())
      status =
          comm.allReduce(TypeOf<T>::value, input.data(), input.data(), count);
    for (int64_t i = 0; i < count; ++i) {
      EXPECT_EQ(output[i], sumOver<T>(size, i)) << "element " << i;
      EXPECT_EQ(input[i], sumOver<T>(size, i)) << "in place, element " << i;
    }
    return status;
  }));
}

template <typename T>
void checkReduceScatter(int size, int64_t rows, int64_t rowSize) {
  expectAllOk(runRanks(size, [&](Communicator &comm) {
    auto [begin, length] = chunkOf(rows, size, comm.rank());
    std::vector<T> input = inputOf<T>(comm.rank(), rows * rowSize);
    std::vector<T> output(length * rowSize);
    TensorView in{input.data(), {TypeOf<T>::value, {rows, rowSize}}};
    TensorView out{output.data(), {TypeOf<T>::value, {length, rowSize}}};
    absl::Status status = comm.reduceScatter(in, out);
    for (int64_t i = 0; i < length * rowSize; ++i)
      EXPECT_EQ(output[i], sumOver<T>(size, begin * rowSize + i))
          << "rank " << comm.rank() << " element " << i;
    return status;
  }));
}

template <typename T> void checkAllGather(int size, int64_t count) {
  expectAllOk(runRanks(size, [&](Communicator &comm) {
    auto [begin, length] = chunkOf(count, size, comm.rank());
    std::vector<T> input(length), output(count);
    for (int64_t i = 0; i < length; ++i)
      input[i] = static_cast<T>(valueOf(0, begin + i));
    absl::Status status =
        comm.allGather(TypeOf<T>::value, input.data(), output.data(), count);
    for (int64_t i = 0; i < count; ++i)
      EXPECT_EQ(output[i], static_cast<T>(valueOf(0, i))) << "element " << i;
    return status;
  }));
}
} // namespace

TEST(Communicator, AllReduceSumsEveryDTypeOnOneToFourRanks) {
  withWatchdog([] {
    for (int size = 1; size <= 4; ++size) {
      SCOPED_TRACE("size " + std::to_string(size));
      checkAllReduce<float>(size, 10);
      checkAllReduce<double>(size, 7);
      checkAllReduce<int32_t>(size, 10);
      checkAllReduce<int64_t>(size, 3);
      // Above 256 KiB Gloo's ring algorithm runs instead of bcube.
      checkAllReduce<float>(size, 70001);
    }
  });
}

// Replicated parameters stay replicated only if every rank gets the same
// bits: with inexact float sums, the order of the additions must not
// depend on the rank (bcube for small buffers, ring for large ones).
TEST(Communicator, AllReduceGivesEveryRankTheSameBits) {
  withWatchdog([] {
    for (int size = 2; size <= 4; ++size)
      for (int64_t count : {1001, 70001}) {
        SCOPED_TRACE("size " + std::to_string(size) + ", count " +
                     std::to_string(count));
        std::vector<std::vector<float>> results(size);
        expectAllOk(runRanks(size, [&](Communicator &comm) {
          std::vector<float> data(count);
          for (int64_t i = 0; i < count; ++i)
            data[i] = 1.0f / static_cast<float>(3 + comm.rank() * 7 + i % 13);
          absl::Status status = comm.allReduce(DType::F32, data.data(),
                                               data.data(), count);
          results[comm.rank()] = std::move(data);
          return status;
        }));
        for (int r = 1; r < size; ++r)
          EXPECT_EQ(std::memcmp(results[r].data(), results[0].data(),
                                count * sizeof(float)),
                    0)
              << "rank " << r << " differs from rank 0";
      }
  });
}

TEST(Communicator, ReduceScatterGivesBalancedChunksOfTheSum) {
  withWatchdog([] {
    for (int size = 1; size <= 4; ++size) {
      SCOPED_TRACE("size " + std::to_string(size));
      checkReduceScatter<float>(size, 10, 1);   // 10 over 4: 3, 3, 2, 2
      checkReduceScatter<int64_t>(size, 10, 3); // rows of 3 stay whole
      checkReduceScatter<double>(size, 2, 2);   // 2 over 4: empty chunks
      checkReduceScatter<int32_t>(size, 12, 1);
    }
  });
}

TEST(Communicator, AllGatherConcatenatesBalancedChunks) {
  withWatchdog([] {
    for (int size = 1; size <= 4; ++size) {
      SCOPED_TRACE("size " + std::to_string(size));
      checkAllGather<float>(size, 10);
      checkAllGather<int64_t>(size, 10);
      checkAllGather<double>(size, 2);
      checkAllGather<int32_t>(size, 5);
    }
  });
}

TEST(Communicator, AllToAllTransposesChunks) {
  withWatchdog([] {
    for (int size = 1; size <= 4; ++size) {
      expectAllOk(runRanks(size, [size](Communicator &comm) {
        const int64_t chunk = 3;
        std::vector<int64_t> input(size * chunk), output(size * chunk);
        for (int j = 0; j < size; ++j)
          for (int64_t k = 0; k < chunk; ++k)
            input[j * chunk + k] = 100 * comm.rank() + 10 * j + k;
        absl::Status status = comm.allToAll(DType::I64, input.data(),
                                            output.data(), size * chunk);
        for (int i = 0; i < size; ++i)
          for (int64_t k = 0; k < chunk; ++k)
            EXPECT_EQ(output[i * chunk + k], 100 * i + 10 * comm.rank() + k);
        return status;
      }));
    }
  });
}

TEST(Communicator, BroadcastFromEveryRoot) {
  withWatchdog([] {
    for (int size = 1; size <= 4; ++size) {
      expectAllOk(runRanks(size, [size](Communicator &comm) {
        for (int root = 0; root < size; ++root) {
          std::vector<double> data(5, -1.0);
          if (comm.rank() == root)
            for (int i = 0; i < 5; ++i)
              data[i] = valueOf(root, i);
          TensorView view{data.data(), {DType::F64, {5}}};
          if (absl::Status status = comm.broadcast(view, root); !status.ok())
            return status;
          for (int i = 0; i < 5; ++i)
            EXPECT_EQ(data[i], valueOf(root, i)) << "root " << root;
        }
        return absl::OkStatus();
      }));
    }
  });
}

TEST(Communicator, SendRecvBetweenPairsAndAroundARing) {
  withWatchdog([] {
    expectAllOk(runRanks(4, [](Communicator &comm) {
      int rank = comm.rank(), partner = rank ^ 1;
      // Pairs 0-1 and 2-3: the even rank sends first, on two tags.
      std::vector<int32_t> mine = inputOf<int32_t>(rank, 6), theirs(6);
      std::vector<int32_t> second(6);
      absl::Status status;
      if (rank % 2 == 0) {
        status = comm.send(DType::I32, mine.data(), 6, partner, 7);
        if (status.ok())
          status = comm.recv(DType::I32, theirs.data(), 6, partner, 8);
      } else {
        status = comm.recv(DType::I32, theirs.data(), 6, partner, 7);
        if (status.ok())
          status = comm.send(DType::I32, mine.data(), 6, partner, 8);
      }
      EXPECT_EQ(theirs, inputOf<int32_t>(partner, 6));
      // Ring: a send returns once its recv is posted, so even ranks send
      // first and odd ranks receive first.
      auto sendRight = [&] {
        return comm.send(DType::I32, mine.data(), 6, (rank + 1) % 4, 9);
      };
      auto recvLeft = [&] {
        return comm.recv(DType::I32, second.data(), 6, (rank + 3) % 4, 9);
      };
      if (status.ok())
        status = rank % 2 == 0 ? sendRight() : recvLeft();
      if (status.ok())
        status = rank % 2 == 0 ? recvLeft() : sendRight();
      EXPECT_EQ(second, inputOf<int32_t>((rank + 3) % 4, 6));
      return status;
    }));
  });
}

TEST(Communicator, FileRendezvousJoinsRanks) {
  withWatchdog([] {
    std::filesystem::path directory =
        std::filesystem::temp_directory_path() /
        ("ofrt-gloo-" + std::to_string(::getpid()));
    std::filesystem::remove_all(directory);
    std::filesystem::create_directories(directory);
    std::shared_ptr<Rendezvous> rendezvous = createFileRendezvous(directory);
    std::vector<std::future<absl::Status>> ranks;
    for (int rank = 0; rank < 2; ++rank)
      ranks.push_back(std::async(std::launch::async, [=] {
        auto comm = createGlooCommunicator(rank, 2, rendezvous, kTimeout);
        if (!comm.ok())
          return comm.status();
        int64_t value = rank + 1;
        absl::Status status = (*comm)->allReduce(DType::I64, &value, &value, 1);
        EXPECT_EQ(value, 3);
        return status;
      }));
    for (auto &rank : ranks)
      EXPECT_TRUE(rank.get().ok());
    std::filesystem::remove_all(directory);
  });
}

TEST(Communicator, BadArgumentsAreErrorsNamingTheRank) {
  withWatchdog([] {
    auto group = createInProcessGroup(1, kTimeout);
    ASSERT_TRUE(group.ok()) << group.status();
    Communicator &comm = *(*group)[0];
    std::vector<uint16_t> half(4);
    absl::Status status =
        comm.allReduce(DType::F16, half.data(), half.data(), 4);
    EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented);
    EXPECT_EQ(status.message(),
              "rank 0 of 1: all_reduce cannot sum f16 (f32, f64, i32, i64 "
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
    // Data movement takes any element type.
    EXPECT_TRUE(comm.allGather(DType::F16, half.data(), half.data(), 4).ok());
    EXPECT_FALSE(
        createGlooCommunicator(2, 2, createInProcessRendezvous(), kTimeout)
            .ok());
  });
}

//===----------------------------------------------------------------------===//
// Failures: errors within the timeout, never a hang
//===----------------------------------------------------------------------===//

TEST(Communicator, RankThatNeverJoinsFailsTheOthersWithinTheTimeout) {
  withWatchdog([] {
    std::shared_ptr<Rendezvous> rendezvous = createInProcessRendezvous();
    std::vector<std::future<absl::Status>> ranks;
    auto start = std::chrono::steady_clock::now();
    for (int rank = 0; rank < 2; ++rank) // Rank 2 of 3 never comes.
      ranks.push_back(std::async(std::launch::async, [=] {
        return createGlooCommunicator(rank, 3, rendezvous, kTimeout).status();
      }));
    for (auto &rank : ranks) {
      absl::Status status = rank.get();
      EXPECT_FALSE(status.ok());
      EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
      EXPECT_NE(status.message().find("joining the group failed: not every "
                                      "rank joined within 1000 ms; missing "
                                      "rank(s) 2"),
                absl::string_view::npos)
          << status;
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, 5 * kTimeout);
  });
}

TEST(Communicator, RankThatLeavesFailsTheCollectiveAndBreaksTheGroup) {
  withWatchdog([] {
    auto group = createInProcessGroup(3, kTimeout);
    ASSERT_TRUE(group.ok()) << group.status();
    (*group)[2].reset(); // Rank 2 exits: its sockets close.
    auto start = std::chrono::steady_clock::now();
    std::vector<std::future<absl::Status>> ranks;
    for (int rank = 0; rank < 2; ++rank)
      ranks.push_back(std::async(std::launch::async, [&, rank] {
        std::vector<float> data(10, 1.0f);
        absl::Status status =
            (*group)[rank]->allReduce(DType::F32, data.data(), data.data(), 10);
        EXPECT_FALSE(status.ok());
        EXPECT_NE(status.message().find("rank " + std::to_string(rank) +
                                        " of 3: all_reduce of 10 x f32"),
                  absl::string_view::npos)
            << status;
        // Broken: the next call fails at once, saying why.
        absl::Status again =
            (*group)[rank]->broadcast(DType::F32, data.data(), 10, 0);
        EXPECT_EQ(again.code(), absl::StatusCode::kFailedPrecondition);
        return status;
      }));
    for (auto &rank : ranks)
      EXPECT_FALSE(rank.get().ok());
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3 * kTimeout);
  });
}

TEST(Communicator, SilentPeerTimesOutNamingTheCollectiveAndPeer) {
  withWatchdog([] {
    auto group = createInProcessGroup(2, kTimeout);
    ASSERT_TRUE(group.ok()) << group.status();
    // Rank 1 stays connected but never answers.
    std::vector<int64_t> data(4);
    auto start = std::chrono::steady_clock::now();
    absl::Status status =
        (*group)[0]->recv(DType::I64, data.data(), 4, /*peer=*/1, /*tag=*/5);
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    EXPECT_NE(status.message().find("rank 0 of 2: recv of 4 x i64 from rank "
                                    "1 (tag 5) timed out after 1000 ms"),
              absl::string_view::npos)
        << status;
    EXPECT_LT(std::chrono::steady_clock::now() - start, 3 * kTimeout);
  });
}

TEST(Communicator, SilentPeerTimesOutACollective) {
  withWatchdog([] {
    auto group = createInProcessGroup(2, kTimeout);
    ASSERT_TRUE(group.ok()) << group.status();
    std::vector<double> data(8);
    absl::Status status =
        (*group)[1]->allReduce(DType::F64, data.data(), data.data(), 8);
    EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
    EXPECT_NE(status.message().find("rank 1 of 2: all_reduce of 8 x f64 "
                                    "timed out after 1000 ms"),
              absl::string_view::npos)
        << status;
  });
}
