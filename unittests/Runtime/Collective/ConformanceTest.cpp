//===- ConformanceTest.cpp - Every collective library, one suite ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The communicator contract (Communicator.h) checked the same way for every
// collective library: every collective, every element type it takes,
// uneven and empty chunks, 1 to 4 ranks, every root, messages below and
// above the libraries' size thresholds. Expected values are computed here,
// independently of the libraries (the balanced split included). The
// failures are ConformanceFailureTest.cpp's.
//
//===----------------------------------------------------------------------===//

#include "ConformanceHarness.h"
#include "ConformanceValues.h"

#include <cstring>

using namespace ofrt;
using namespace ofrt::conformance;

namespace {

/// The collectives' values, with expectations computed here.
class Conformance : public LibraryTest {
protected:
  template <typename T> void allReduce(int size, int64_t count) {
    onRanks(size, [&](Communicator &comm) {
      std::vector<T> input = inputOf<T>(comm.rank(), count), output(count);
      absl::Status status =
          comm.allReduce(TypeOf<T>::value, input.data(), output.data(), count);
      // In place, on the result: sums of sums.
      if (status.ok())
        status =
            comm.allReduce(TypeOf<T>::value, input.data(), input.data(), count);
      std::function<T(int64_t)> sum = [&](int64_t i) {
        return sumOver<T>(size, i);
      };
      EXPECT_EQ(firstDifference(output, sum), -1) << count << " elements";
      EXPECT_EQ(firstDifference(input, sum), -1) << "in place, " << count;
      return status;
    });
  }

  template <typename T>
  void reduceScatter(int size, int64_t rows, int64_t rowSize) {
    onRanks(size, [&](Communicator &comm) {
      auto [begin, length] = chunkOf(rows, size, comm.rank());
      std::vector<T> input = inputOf<T>(comm.rank(), rows * rowSize);
      std::vector<T> output(length * rowSize);
      absl::Status status =
          comm.reduceScatter(TypeOf<T>::value, input.data(), output.data(),
                             rows * rowSize, rowSize);
      std::function<T(int64_t)> sum = [&, begin = begin](int64_t i) {
        return sumOver<T>(size, begin * rowSize + i);
      };
      EXPECT_EQ(firstDifference(output, sum), -1)
          << "rank " << comm.rank() << ", " << rows << "x" << rowSize;
      return status;
    });
  }

  /// all_reduce (or reduce_scatter of `count` rows of 1) taking the
  /// maximum or minimum, on inputs where the rank holding the extreme
  /// changes from one element to the next.
  template <typename T>
  void reduceExtremes(int size, int64_t count, ReduceOp op, bool scatter) {
    onRanks(size, [&](Communicator &comm) {
      auto value = [&](int rank, int64_t i) {
        return static_cast<T>(((rank + i) % size) * 100 - i % 7);
      };
      std::vector<T> input(count);
      for (int64_t i = 0; i < count; ++i)
        input[i] = value(comm.rank(), i);
      auto [begin, length] = chunkOf(count, size, comm.rank());
      if (!scatter)
        begin = 0, length = count;
      std::vector<T> output(length);
      absl::Status status =
          scatter ? comm.reduceScatter(TypeOf<T>::value, input.data(),
                                       output.data(), count, 1, op)
                  : comm.allReduce(TypeOf<T>::value, input.data(),
                                   output.data(), count, op);
      std::function<T(int64_t)> want = [&, begin = begin](int64_t i) {
        return value(op == ReduceOp::Max ? size - 1 - (begin + i) % size
                                         : (size - (begin + i) % size) % size,
                     begin + i);
      };
      EXPECT_EQ(firstDifference(output, want), -1)
          << ofsupport::reductionName(op)
          << (scatter ? " reduce_scatter" : " all_reduce") << ", rank "
          << comm.rank() << ", " << count << " elements";
      return status;
    });
  }

  template <typename T> void allGather(int size, int64_t rows, int64_t rowSize) {
    onRanks(size, [&](Communicator &comm) {
      auto [begin, length] = chunkOf(rows, size, comm.rank());
      std::vector<T> input(length * rowSize), output(rows * rowSize);
      for (int64_t i = 0; i < length * rowSize; ++i)
        input[i] = static_cast<T>(valueOf(0, begin * rowSize + i));
      absl::Status status =
          comm.allGather(TypeOf<T>::value, input.data(), output.data(),
                         rows * rowSize, rowSize);
      std::function<T(int64_t)> want = [](int64_t i) {
        return static_cast<T>(valueOf(0, i));
      };
      EXPECT_EQ(firstDifference(output, want), -1)
          << "rank " << comm.rank() << ", " << rows << "x" << rowSize;
      return status;
    });
  }
};

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST_P(Conformance, AllReduceSumsEveryDTypeOnOneToFourRanks) {
  for (int size = 1; size <= 4; ++size) {
    allReduce<float>(size, 10);
    allReduce<double>(size, 7);
    allReduce<int32_t>(size, 10);
    allReduce<int64_t>(size, 3);
    allReduce<float>(size, 0);
    allReduce<float>(size, 1);
    // Past the small-message paths (64 KiB staging, 256 KiB for bcube).
    allReduce<float>(size, 70001);
    allReduce<int64_t>(size, 40001);
  }
}

TEST_P(Conformance, AllReduceAndReduceScatterTakeMaxAndMin) {
  for (int size : {1, 3, 4})
    for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min})
      for (bool scatter : {false, true}) {
        reduceExtremes<float>(size, 10, op, scatter);
        reduceExtremes<int64_t>(size, 7, op, scatter);
      }
  // Other element types, and a size the in-process library does not stage.
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    reduceExtremes<double>(2, 3, op, /*scatter=*/false);
    reduceExtremes<int32_t>(4, 70001, op, /*scatter=*/true);
  }
}

TEST_P(Conformance, AllReduceOfManyMegabytes) {
  // 9 MB: past the in-process library's non-temporal threshold.
  allReduce<float>(4, (9 << 20) / 4 + 3);
  allReduce<double>(3, (9 << 20) / 8 + 1);
}

// Replicated parameters stay replicated only if every rank gets the same
// bits: with inexact float sums, the order of the additions must not depend
// on the rank. Each rank compares its result with every other rank's,
// gathered through the communicator.
TEST_P(Conformance, AllReduceGivesEveryRankTheSameBits) {
  for (int size = 2; size <= 4; ++size)
    for (int64_t count : {1001, 70001, 1 << 20}) {
      onRanks(size, [&](Communicator &comm) {
        std::vector<float> data(count);
        for (int64_t i = 0; i < count; ++i)
          data[i] = 1.0f / static_cast<float>(3 + comm.rank() * 7 + i % 13);
        absl::Status status =
            comm.allReduce(DType::F32, data.data(), data.data(), count);
        std::vector<float> all(count * size);
        if (status.ok())
          status = comm.allGather(DType::F32, data.data(), all.data(),
                                  count * size, count);
        for (int r = 0; r < size; ++r)
          EXPECT_EQ(std::memcmp(all.data() + r * count, data.data(),
                                count * sizeof(float)),
                    0)
              << "rank " << r << " differs from rank " << comm.rank()
              << " (" << count << " elements)";
        return status;
      });
    }
}

TEST_P(Conformance, ReduceScatterGivesBalancedChunksOfTheSum) {
  for (int size = 1; size <= 4; ++size) {
    reduceScatter<float>(size, 10, 1);   // 10 over 4: 3, 3, 2, 2
    reduceScatter<int64_t>(size, 10, 3); // rows of 3 stay whole
    reduceScatter<double>(size, 2, 2);   // 2 over 4: empty chunks
    reduceScatter<int32_t>(size, 12, 1);
    reduceScatter<float>(size, 0, 5);
    reduceScatter<float>(size, 1001, 37); // 148 KB: not staged
  }
}

//===----------------------------------------------------------------------===//
// Data movement: any element type
//===----------------------------------------------------------------------===//

TEST_P(Conformance, AllGatherConcatenatesBalancedChunks) {
  for (int size = 1; size <= 4; ++size) {
    allGather<float>(size, 10, 1);
    allGather<int64_t>(size, 10, 1);
    allGather<double>(size, 2, 3);
    allGather<int32_t>(size, 5, 2);
    allGather<int8_t>(size, 9, 1);
    allGather<uint16_t>(size, 7, 4); // f16 bits
    allGather<float>(size, 4099, 17); // 278 KB: not staged
  }
}

TEST_P(Conformance, AllToAllTransposesChunks) {
  for (int size = 1; size <= 4; ++size)
    for (int64_t chunk : {int64_t(3), int64_t(0), int64_t(20000)}) {
      onRanks(size, [&](Communicator &comm) {
        std::vector<int64_t> input(size * chunk), output(size * chunk);
        for (int j = 0; j < size; ++j)
          for (int64_t k = 0; k < chunk; ++k)
            input[j * chunk + k] = 100000 * comm.rank() + 1000 * j + k % 1000;
        absl::Status status = comm.allToAll(DType::I64, input.data(),
                                            output.data(), size * chunk);
        std::function<int64_t(int64_t)> want = [&](int64_t at) {
          int64_t i = at / chunk, k = at % chunk;
          return 100000 * i + 1000 * comm.rank() + k % 1000;
        };
        EXPECT_EQ(firstDifference(output, want), -1) << chunk;
        return status;
      });
    }
}

TEST_P(Conformance, AllToAllVMovesUnevenChunks) {
  for (int size = 1; size <= 4; ++size)
    for (int64_t scale : {int64_t(1), int64_t(9000)}) {
      onRanks(size, [&](Communicator &comm) {
        // Rank i sends (i + j) % 3 * scale elements to rank j (some none).
        auto count = [&](int from, int to) {
          return (from + to) % 3 * scale;
        };
        std::vector<int64_t> sends, recvs;
        for (int q = 0; q < size; ++q) {
          sends.push_back(count(comm.rank(), q));
          recvs.push_back(count(q, comm.rank()));
        }
        std::vector<float> input, output;
        for (int q = 0; q < size; ++q)
          for (int64_t k = 0; k < sends[q]; ++k)
            input.push_back(1000 * comm.rank() + 10 * q + k % 7);
        int64_t total = 0;
        for (int64_t n : recvs)
          total += n;
        output.resize(total);
        absl::Status status = comm.allToAllV(DType::F32, input.data(), sends,
                                             output.data(), recvs);
        int64_t at = 0;
        for (int q = 0; q < size; ++q)
          for (int64_t k = 0; k < recvs[q]; ++k, ++at)
            if (output[at] != 1000 * q + 10 * comm.rank() + k % 7) {
              ADD_FAILURE() << "rank " << comm.rank() << ": element " << k
                            << " from rank " << q;
              return status;
            }
        return status;
      });
    }
}

// All-to-alls back to back, small (a library may stage them) and large (it
// may publish pointers) in turn, on more ranks than this machine may have
// cores: a rank that goes on to the next call while a peer still reads
// the last one must not change what that peer reads (the in-process
// library once kept one "staged" flag per rank, and a peer read the next
// call's counts: "rank 0 sends 8192 elements, this rank expects 2048").
TEST_P(Conformance, AllToAllVStagedAndPublishedBackToBack) {
  onRanks(4, [&](Communicator &comm) {
    for (int round = 0; round < 300; ++round)
      for (int64_t chunk : {int64_t(4), int64_t(6000)}) {
        std::vector<int64_t> counts(4, chunk);
        std::vector<float> input(4 * chunk), output(4 * chunk);
        for (int q = 0; q < 4; ++q)
          for (int64_t k = 0; k < chunk; ++k)
            input[q * chunk + k] = 1000 * comm.rank() + 10 * q + k % 7;
        if (absl::Status status = comm.allToAllV(
                DType::F32, input.data(), counts, output.data(), counts);
            !status.ok())
          return status;
        for (int q = 0; q < 4; ++q)
          for (int64_t k = 0; k < chunk; ++k)
            if (output[q * chunk + k] != 1000 * q + 10 * comm.rank() + k % 7) {
              ADD_FAILURE() << "rank " << comm.rank() << ", round " << round
                            << ": element " << k << " from rank " << q;
              return absl::OkStatus();
            }
      }
    return absl::OkStatus();
  });
}

TEST_P(Conformance, BroadcastFromEveryRoot) {
  for (int size = 1; size <= 4; ++size)
    for (int64_t count : {int64_t(5), int64_t(0), int64_t(50000)}) {
      onRanks(size, [&](Communicator &comm) {
        for (int root = 0; root < size; ++root) {
          std::vector<double> data(count, -1.0);
          if (comm.rank() == root)
            for (int64_t i = 0; i < count; ++i)
              data[i] = valueOf(root, i);
          TensorView view{data.data(), {DType::F64, {count}}};
          if (absl::Status status = comm.broadcast(view, root); !status.ok())
            return status;
          std::function<double(int64_t)> want = [&](int64_t i) {
            return valueOf(root, i);
          };
          EXPECT_EQ(firstDifference(data, want), -1) << "root " << root;
        }
        return absl::OkStatus();
      });
    }
}

TEST_P(Conformance, SendRecvBetweenPairsAndAroundARing) {
  for (int64_t count : {int64_t(6), int64_t(30000)}) {
    onRanks(4, [&](Communicator &comm) {
      int rank = comm.rank(), partner = rank ^ 1;
      // Pairs 0-1 and 2-3: the even rank sends first, on two tags.
      std::vector<int32_t> mine = inputOf<int32_t>(rank, count);
      std::vector<int32_t> theirs(count), second(count);
      absl::Status status;
      if (rank % 2 == 0) {
        status = comm.send(DType::I32, mine.data(), count, partner, 7);
        if (status.ok())
          status = comm.recv(DType::I32, theirs.data(), count, partner, 8);
      } else {
        status = comm.recv(DType::I32, theirs.data(), count, partner, 7);
        if (status.ok())
          status = comm.send(DType::I32, mine.data(), count, partner, 8);
      }
      EXPECT_EQ(theirs, inputOf<int32_t>(partner, count));
      // Ring: a send returns once its recv is posted, so even ranks send
      // first and odd ranks receive first.
      auto sendRight = [&] {
        return comm.send(DType::I32, mine.data(), count, (rank + 1) % 4, 9);
      };
      auto recvLeft = [&] {
        return comm.recv(DType::I32, second.data(), count, (rank + 3) % 4, 9);
      };
      if (status.ok())
        status = rank % 2 == 0 ? sendRight() : recvLeft();
      if (status.ok())
        status = rank % 2 == 0 ? recvLeft() : sendRight();
      EXPECT_EQ(second, inputOf<int32_t>((rank + 3) % 4, count));
      return status;
    });
  }
}

TEST_P(Conformance, ManyCollectivesInARow) {
  // Collectives of different kinds back to back reuse every buffer and
  // counter of a library.
  onRanks(4, [&](Communicator &comm) {
    for (int round = 0; round < 200; ++round) {
      float value = comm.rank() + round;
      if (absl::Status s = comm.allReduce(DType::F32, &value, &value, 1);
          !s.ok())
        return s;
      EXPECT_EQ(value, 6 + 4 * round) << "round " << round;
      int64_t gathered[4];
      int64_t mine = comm.rank() * round;
      if (absl::Status s = comm.allGather(DType::I64, &mine, gathered, 4);
          !s.ok())
        return s;
      for (int q = 0; q < 4; ++q)
        EXPECT_EQ(gathered[q], q * round);
    }
    return absl::OkStatus();
  });
}

INSTANTIATE_TEST_SUITE_P(Libraries, Conformance, allLibraries(), libraryName);

} // namespace
