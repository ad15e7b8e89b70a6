//===- NcclCommunicatorTest.cpp - The nccl library's conformance ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The communicator contract (Communicator.h), checked for "nccl" as
// ../Collective/ConformanceTest.cpp checks the host libraries: every
// collective, uneven and empty chunks, every root, 1 to 4 ranks, with
// expectations computed here; the failures are NcclFailureTest.cpp's. Ranks
// are threads, rank r on GPU r (NcclHarness.h), buffers in device memory
// (and host memory, which the library stages). Without a GPU every test
// skips; a case of n ranks skips where there are fewer than n GPUs.
//
//===----------------------------------------------------------------------===//

#include "NcclHarness.h"

#include "../Collective/ConformanceValues.h"

#include <cstring>

using namespace ofrt;
using namespace ofrt::nccltest;
using ofrt::conformance::chunkOf;
using ofrt::conformance::inputOf;
using ofrt::conformance::sumOver;
using ofrt::conformance::TypeOf;
using ofrt::conformance::valueOf;
using namespace std::chrono_literals;

namespace {

/// The first element of `got` that differs from `want(i)`, or -1.
template <typename T, typename Want>
int64_t firstDifference(const std::vector<T> &got, Want &&want) {
  for (int64_t i = 0; i < static_cast<int64_t>(got.size()); ++i)
    if (got[i] != static_cast<T>(want(i)))
      return i;
  return -1;
}

/// The conformance cases, once per rank count (the parameter).
class Nccl : public ::testing::TestWithParam<int> {
protected:
  void SetUp() override { REQUIRE_GPUS(GetParam()); }

  int size() const { return GetParam(); }
  void onRanks(const RankBody &body) {
    oftest::withWatchdog([&] { expectAllOk(runRanks(size(), body)); }, 120s);
  }

  template <typename T> void allReduce(int64_t count) {
    onRanks([&](Communicator &comm) {
      DeviceBuffer<T> input(inputOf<T>(comm.rank(), count)), output(count);
      absl::Status status =
          comm.allReduce(TypeOf<T>::value, input.data(), output.data(), count);
      if (status.ok()) // In place, on the result: sums of sums.
        status =
            comm.allReduce(TypeOf<T>::value, input.data(), input.data(), count);
      auto sum = [&](int64_t i) { return sumOver<T>(size(), i); };
      EXPECT_EQ(firstDifference(output.read(), sum), -1) << count;
      EXPECT_EQ(firstDifference(input.read(), sum), -1) << "in place " << count;
      return status;
    });
  }

  template <typename T> void reduceScatter(int64_t rows, int64_t rowSize) {
    onRanks([&](Communicator &comm) {
      auto [begin, length] = chunkOf(rows, size(), comm.rank());
      DeviceBuffer<T> input(inputOf<T>(comm.rank(), rows * rowSize));
      DeviceBuffer<T> output(length * rowSize);
      absl::Status status =
          comm.reduceScatter(TypeOf<T>::value, input.data(), output.data(),
                             rows * rowSize, rowSize);
      auto sum = [&, first = begin * rowSize](int64_t i) {
        return sumOver<T>(size(), first + i);
      };
      EXPECT_EQ(firstDifference(output.read(), sum), -1)
          << "rank " << comm.rank() << ", " << rows << "x" << rowSize;
      return status;
    });
  }

  template <typename T> void allGather(int64_t rows, int64_t rowSize) {
    onRanks([&](Communicator &comm) {
      auto [begin, length] = chunkOf(rows, size(), comm.rank());
      std::vector<T> mine(length * rowSize);
      for (int64_t i = 0; i < length * rowSize; ++i)
        mine[i] = static_cast<T>(valueOf(0, begin * rowSize + i));
      DeviceBuffer<T> input(mine), output(rows * rowSize);
      absl::Status status =
          comm.allGather(TypeOf<T>::value, input.data(), output.data(),
                         rows * rowSize, rowSize);
      EXPECT_EQ(firstDifference(output.read(),
                                [](int64_t i) { return valueOf(0, i); }),
                -1)
          << "rank " << comm.rank() << ", " << rows << "x" << rowSize;
      return status;
    });
  }
};

TEST_P(Nccl, AllReduceSumsEveryDType) {
  allReduce<float>(10);
  allReduce<double>(7);
  allReduce<int32_t>(10);
  allReduce<int64_t>(3);
  allReduce<float>(0);
  allReduce<float>(1);
  allReduce<float>(70001);
  allReduce<int64_t>(40001);
  allReduce<float>((9 << 20) / 4 + 3);
}

TEST_P(Nccl, AllReduceAndReduceScatterTakeMaxAndMin) {
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min})
    for (bool scatter : {false, true})
      onRanks([&](Communicator &comm) {
        int64_t count = 7001;
        auto value = [&](int rank, int64_t i) {
          return static_cast<int64_t>(((rank + i) % size()) * 100 - i % 7);
        };
        std::vector<int64_t> mine(count);
        for (int64_t i = 0; i < count; ++i)
          mine[i] = value(comm.rank(), i);
        auto [begin, length] = chunkOf(count, size(), comm.rank());
        if (!scatter)
          begin = 0, length = count;
        DeviceBuffer<int64_t> input(mine), output(length);
        absl::Status status =
            scatter ? comm.reduceScatter(DType::I64, input.data(),
                                         output.data(), count, 1, op)
                    : comm.allReduce(DType::I64, input.data(), output.data(),
                                     count, op);
        auto want = [&, begin = begin](int64_t i) {
          int64_t at = begin + i, n = size();
          return value(op == ReduceOp::Max ? n - 1 - at % n : (n - at % n) % n,
                       at);
        };
        EXPECT_EQ(firstDifference(output.read(), want), -1)
            << ofsupport::reductionName(op) << (scatter ? " scatter" : "");
        return status;
      });
}

TEST_P(Nccl, ReduceScatterGivesBalancedChunksOfTheSum) {
  reduceScatter<float>(10, 1);   // 10 over 4: 3, 3, 2, 2
  reduceScatter<int64_t>(10, 3); // rows of 3 stay whole
  reduceScatter<double>(2, 2);   // 2 over 4: empty chunks
  reduceScatter<int32_t>(12, 1); // even: NCCL's own reduce-scatter
  reduceScatter<float>(0, 5);
  reduceScatter<float>(1001, 37);
}

TEST_P(Nccl, AllGatherConcatenatesBalancedChunks) {
  allGather<float>(10, 1);
  allGather<int64_t>(12, 1); // even: NCCL's own all-gather
  allGather<double>(2, 3);
  allGather<int8_t>(9, 1);
  allGather<uint16_t>(7, 4); // f16 bits
  allGather<float>(4099, 17);
}

TEST_P(Nccl, AllToAllAndAllToAllVMoveChunks) {
  for (int64_t scale : {int64_t(0), int64_t(1), int64_t(9000)})
    onRanks([&](Communicator &comm) {
      int n = size(), me = comm.rank();
      // Uneven: rank i sends (i + j) % 3 * scale elements to rank j.
      std::vector<int64_t> sends, recvs, even(n, 3 * scale);
      for (int q = 0; q < n; ++q) {
        sends.push_back((me + q) % 3 * scale);
        recvs.push_back((q + me) % 3 * scale);
      }
      std::vector<float> mine, evenInput;
      for (int q = 0; q < n; ++q) {
        for (int64_t k = 0; k < sends[q]; ++k)
          mine.push_back(1000 * me + 10 * q + k % 7);
        for (int64_t k = 0; k < even[q]; ++k)
          evenInput.push_back(1000 * me + 10 * q + k % 7);
      }
      int64_t total = 0;
      for (int64_t count : recvs)
        total += count;
      DeviceBuffer<float> input(mine), output(total);
      DeviceBuffer<float> evenIn(evenInput), evenOut(n * 3 * scale);
      absl::Status status =
          comm.allToAllV(DType::F32, input.data(), sends, output.data(), recvs);
      if (status.ok())
        status = comm.allToAll(DType::F32, evenIn.data(), evenOut.data(),
                               n * 3 * scale);
      for (auto [got, counts] :
           {std::pair(output.read(), recvs), std::pair(evenOut.read(), even)}) {
        int64_t at = 0;
        for (int q = 0; q < n; ++q)
          for (int64_t k = 0; k < counts[q]; ++k, ++at)
            if (got[at] != 1000 * q + 10 * me + k % 7) {
              ADD_FAILURE() << "rank " << me << ": element " << k
                            << " from rank " << q << ", scale " << scale;
              return status;
            }
      }
      return status;
    });
}

TEST_P(Nccl, BroadcastFromEveryRoot) {
  for (int64_t count : {int64_t(5), int64_t(0), int64_t(50000)})
    onRanks([&](Communicator &comm) {
      for (int root = 0; root < size(); ++root) {
        DeviceBuffer<double> data(comm.rank() == root
                                      ? inputOf<double>(root, count)
                                      : std::vector<double>(count, -1.0));
        TensorView view{data.data(), {DType::F64, {count}}};
        if (absl::Status status = comm.broadcast(view, root); !status.ok())
          return status;
        EXPECT_EQ(firstDifference(data.read(),
                                  [&](int64_t i) { return valueOf(root, i); }),
                  -1)
            << "root " << root;
      }
      return absl::OkStatus();
    });
}

TEST_P(Nccl, SendRecvAroundARing) {
  if (size() < 2)
    GTEST_SKIP() << "a ring needs two ranks";
  for (int64_t count : {int64_t(6), int64_t(30000)})
    onRanks([&](Communicator &comm) {
      // Even ranks send first, odd ranks receive first.
      int me = comm.rank(), n = size();
      DeviceBuffer<int32_t> mine(inputOf<int32_t>(me, count)), left(count);
      auto sendRight = [&] {
        return comm.send(DType::I32, mine.data(), count, (me + 1) % n, 9);
      };
      auto recvLeft = [&] {
        return comm.recv(DType::I32, left.data(), count, (me + n - 1) % n, 9);
      };
      absl::Status status = me % 2 == 0 ? sendRight() : recvLeft();
      if (status.ok())
        status = me % 2 == 0 ? recvLeft() : sendRight();
      EXPECT_EQ(left.read(), inputOf<int32_t>((me + n - 1) % n, count));
      return status;
    });
}

// Replicated parameters stay replicated only if every rank gets the same
// bits from an inexact float sum.
TEST_P(Nccl, AllReduceGivesEveryRankTheSameBits) {
  int64_t count = 1 << 20;
  onRanks([&](Communicator &comm) {
    std::vector<float> mine(count);
    for (int64_t i = 0; i < count; ++i)
      mine[i] = 1.0f / static_cast<float>(3 + comm.rank() * 7 + i % 13);
    DeviceBuffer<float> data(mine), all(count * size());
    absl::Status status =
        comm.allReduce(DType::F32, data.data(), data.data(), count);
    if (status.ok())
      status = comm.allGather(DType::F32, data.data(), all.data(),
                              count * size(), count);
    std::vector<float> sum = data.read(), every = all.read();
    for (int r = 0; r < size(); ++r)
      EXPECT_EQ(std::memcmp(every.data() + r * count, sum.data(),
                            count * sizeof(float)),
                0)
          << "rank " << r << " differs from rank " << comm.rank();
    return status;
  });
}

TEST_P(Nccl, HostBuffersAreStaged) {
  onRanks([&](Communicator &comm) {
    // Pageable memory, in place and not, and pinned memory.
    std::vector<float> input = inputOf<float>(comm.rank(), 1001), output(1001);
    absl::Status status =
        comm.allReduce(DType::F32, input.data(), output.data(), 1001);
    if (status.ok())
      status = comm.allReduce(DType::F32, input.data(), input.data(), 1001);
    int64_t *pinned = nullptr;
    EXPECT_EQ(cudaMallocHost(&pinned, sizeof(int64_t)), cudaSuccess);
    *pinned = comm.rank() + 1;
    if (status.ok())
      status = comm.allReduce(DType::I64, pinned, pinned, 1);
    auto sum = [&](int64_t i) { return sumOver<float>(size(), i); };
    EXPECT_EQ(firstDifference(output, sum), -1);
    EXPECT_EQ(firstDifference(input, sum), -1);
    EXPECT_EQ(*pinned, size() * (size() + 1) / 2);
    cudaFreeHost(pinned);
    return status;
  });
}

TEST_P(Nccl, CallsWaitForTheCallersStream) {
  onRanks([&](Communicator &comm) {
    int64_t count = 16 << 20; // 64 MB, written on the caller's stream.
    DeviceBuffer<float> source(std::vector<float>(count, 1.0f)), data(count);
    cudaStream_t caller = nullptr;
    EXPECT_EQ(cudaStreamCreateWithFlags(&caller, cudaStreamNonBlocking),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpyAsync(data.data(), source.data(), count * sizeof(float),
                              cudaMemcpyDeviceToDevice, caller),
              cudaSuccess);
    static_cast<cuda::NcclCommunicator &>(comm).setCallerStream(caller);
    absl::Status status =
        comm.allReduce(DType::F32, data.data(), data.data(), count);
    static_cast<cuda::NcclCommunicator &>(comm).setCallerStream(nullptr);
    EXPECT_EQ(firstDifference(data.read(), [&](int64_t) { return size(); }),
              -1);
    cudaStreamDestroy(caller);
    return status;
  });
}

TEST_P(Nccl, ManyCollectivesInARow) {
  onRanks([&](Communicator &comm) {
    DeviceBuffer<float> value(1);
    DeviceBuffer<int64_t> mine(1), gathered(size());
    for (int round = 0; round < 200; ++round) {
      float start = comm.rank() + round;
      int64_t piece = comm.rank() * round;
      cudaMemcpy(value.data(), &start, sizeof(float), cudaMemcpyHostToDevice);
      cudaMemcpy(mine.data(), &piece, sizeof(int64_t), cudaMemcpyHostToDevice);
      if (absl::Status s =
              comm.allReduce(DType::F32, value.data(), value.data(), 1);
          !s.ok())
        return s;
      if (absl::Status s =
              comm.allGather(DType::I64, mine.data(), gathered.data(), size());
          !s.ok())
        return s;
      int n = size();
      EXPECT_EQ(value.read()[0], n * (n - 1) / 2 + n * round) << round;
      EXPECT_EQ(firstDifference(gathered.read(),
                                [&](int64_t q) { return q * round; }),
                -1);
    }
    return absl::OkStatus();
  });
}

INSTANTIATE_TEST_SUITE_P(Ranks, Nccl, ::testing::Values(1, 2, 3, 4),
                         [](const ::testing::TestParamInfo<int> &info) {
                           return std::to_string(info.param) + "Ranks";
                         });

} // namespace
