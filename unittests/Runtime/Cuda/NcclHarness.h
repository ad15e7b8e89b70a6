//===- NcclHarness.h - Ranks on GPUs for the nccl tests ---------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Runs one rank body on the ranks of a group of the "nccl" library, each a
// thread on a GPU of its own (rank r on GPU r), meeting in an in-process
// store, as ../Collective/ConformanceHarness.h does for the host libraries;
// device buffers for the bodies; and REQUIRE_GPUS, which skips a test where
// there are fewer GPUs than its ranks.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_CUDA_NCCLHARNESS_H
#define ONEFLOW_UNITTESTS_RUNTIME_CUDA_NCCLHARNESS_H

#include "Backends/Cuda/CudaDevice.h"
#include "Collectives/Nccl/NcclCommunicator.h"

#include "../Collective/ConformanceHarness.h"
#include "../Watchdog.h"

#include "gtest/gtest.h"

#include <atomic>
#include <functional>
#include <thread>

namespace ofrt::nccltest {

using conformance::RankBody;

/// Why a test of `ranks` ranks cannot run here (NCCL gives each rank a GPU
/// of its own), or "" when it can.
inline std::string withoutGpus(int ranks) {
  absl::StatusOr<int> count = cuda::deviceCount();
  if (!count.ok())
    return "no GPU: " + std::string(count.status().message());
  if (*count < ranks)
    return (*count ? "" : "no GPU: ") + std::to_string(ranks) +
           " ranks need as many GPUs; this machine has " +
           std::to_string(*count);
  return "";
}

/// Skips the test unless there are `n` GPUs, one per rank.
#define REQUIRE_GPUS(n)                                                        \
  if (std::string why_ = ::ofrt::nccltest::withoutGpus(n); !why_.empty())      \
  GTEST_SKIP() << why_

/// Rank `rank` of a job of `world`, on GPU `rank`, joins `ranks` under `key`.
inline absl::StatusOr<std::unique_ptr<Communicator>>
joinOnGpu(int rank, int world, std::shared_ptr<Store> store,
          const std::vector<int64_t> &ranks, const std::string &key,
          std::chrono::milliseconds timeout, int gpu = -1) {
  gpu = gpu < 0 ? rank : gpu;
  cudaSetDevice(gpu);
  CollectivesOptions options;
  options.rank = rank;
  options.worldSize = world;
  options.store = std::move(store);
  options.timeout = timeout;
  absl::StatusOr<std::unique_ptr<Collectives>> library =
      cuda::createNcclCollectives(options, gpu);
  if (!library.ok())
    return library.status();
  int position = 0;
  while (ranks[position] != rank)
    ++position;
  return (*library)->join(ranks, position, key);
}

/// Runs `body` on ranks 0 .. size - 1 of a fresh group, each a thread on
/// its GPU; communicators live until every body has returned.
inline std::vector<absl::Status>
runRanks(int size, const RankBody &body,
         std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  static std::atomic<int> groups{0};
  std::string key = "nccl" + std::to_string(groups++);
  std::vector<int64_t> ranks;
  for (int r = 0; r < size; ++r)
    ranks.push_back(r);
  std::shared_ptr<Store> store = createInProcessStore();
  return conformance::runRankThreads(
      size,
      [&](int r) { return joinOnGpu(r, size, store, ranks, key, timeout); },
      body);
}

inline void expectAllOk(const std::vector<absl::Status> &results) {
  for (size_t rank = 0; rank < results.size(); ++rank)
    EXPECT_TRUE(results[rank].ok()) << "rank " << rank << ": " << results[rank];
}

/// `values` in device memory of the calling thread's GPU, read back whole.
template <typename T> class DeviceBuffer {
public:
  explicit DeviceBuffer(const std::vector<T> &values) : count(values.size()) {
    EXPECT_EQ(cudaMalloc(&pointer, std::max<size_t>(1, bytes())), cudaSuccess);
    if (count) {
      EXPECT_EQ(
          cudaMemcpy(pointer, values.data(), bytes(), cudaMemcpyHostToDevice),
          cudaSuccess);
    }
  }
  /// `count` elements of -1, so that unwritten ones show.
  explicit DeviceBuffer(int64_t n)
      : DeviceBuffer(std::vector<T>(n, static_cast<T>(-1))) {}
  ~DeviceBuffer() { cudaFree(pointer); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  T *data() { return pointer; }
  std::vector<T> read() const {
    std::vector<T> values(count);
    if (count) {
      EXPECT_EQ(
          cudaMemcpy(values.data(), pointer, bytes(), cudaMemcpyDeviceToHost),
          cudaSuccess);
    }
    return values;
  }

private:
  size_t bytes() const { return count * sizeof(T); }
  T *pointer = nullptr;
  size_t count;
};

} // namespace ofrt::nccltest

#endif // ONEFLOW_UNITTESTS_RUNTIME_CUDA_NCCLHARNESS_H
