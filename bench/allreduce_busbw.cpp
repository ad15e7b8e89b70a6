//===- allreduce_busbw.cpp - Gloo all-reduce bus bandwidth ----------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// All-reduce of f32 buffers from 1 KiB to 64 MiB on 4 ranks that are threads
// of this process (the Gloo communicators of `of-run --devices cpu:4`, over
// TCP on the loopback interface). Reports nccl-tests' figures: algbw = bytes
// / time and busbw = algbw * 2 (p - 1) / p, the bandwidth each rank's links
// carry in a ring; and busbw against this machine's memcpy bandwidth,
// measured in the same run (a large copy, one thread).
//
//   bench-allreduce-busbw [--ranks P] [--max-mib M]
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/GlooCommunicator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

using namespace ofrt;
using Clock = std::chrono::steady_clock;

namespace {

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// Bytes per second of memcpy between two 64 MiB buffers: the best of a
/// few rounds.
double memcpyBandwidth() {
  size_t bytes = size_t(64) << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double best = 0;
  for (int round = 0; round < 5; ++round) {
    Clock::time_point start = Clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    double seconds = secondsSince(start);
    best = std::max(best, bytes / seconds);
    src[round] = dst[bytes - 1 - round]; // Keep the copies observable.
  }
  return best;
}

} // namespace

int main(int argc, char **argv) {
  int ranks = 4;
  int64_t maxMiB = 64;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--ranks"))
      ranks = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-mib"))
      maxMiB = std::atoll(argv[i + 1]);
  }
  if (ranks < 2 || maxMiB < 1) {
    std::fprintf(stderr, "usage: %s [--ranks P>=2] [--max-mib M>=1]\n",
                 argv[0]);
    return 1;
  }
  auto group = createInProcessGroup(ranks, std::chrono::seconds(120));
  if (!group.ok()) {
    std::fprintf(stderr, "error: %s\n",
                 std::string(group.status().message()).c_str());
    return 1;
  }
  double copy = memcpyBandwidth();
  std::printf("%d ranks (threads, Gloo over loopback TCP); memcpy %.2f GB/s\n",
              ranks, copy / 1e9);
  std::printf("%10s %8s %12s %12s %12s %10s\n", "bytes", "iters", "time (us)",
              "algbw GB/s", "busbw GB/s", "busbw/copy");
  for (int64_t bytes = 1024; bytes <= (maxMiB << 20); bytes *= 4) {
    int64_t count = bytes / sizeof(float);
    std::vector<std::vector<float>> buffers(ranks,
                                            std::vector<float>(count, 1.0f));
    // Warm up once, then time enough iterations for about 0.3 s.
    int iterations = 1;
    double seconds = 0;
    for (int attempt = 0; attempt < 2; ++attempt) {
      std::vector<std::thread> threads;
      std::vector<int> failures(ranks, 0);
      Clock::time_point start = Clock::now();
      for (int r = 0; r < ranks; ++r)
        threads.emplace_back([&, r] {
          for (int i = 0; i < iterations; ++i)
            failures[r] += !(*group)[r]
                                ->allReduce(DType::F32, buffers[r].data(),
                                            buffers[r].data(), count)
                                .ok();
        });
      for (std::thread &thread : threads)
        thread.join();
      seconds = secondsSince(start);
      for (int failed : failures)
        if (failed) {
          std::fprintf(stderr, "error: an all-reduce failed\n");
          return 1;
        }
      if (attempt == 0)
        iterations = std::clamp<int>(0.3 / std::max(seconds, 1e-6), 3, 2000);
    }
    double time = seconds / iterations;
    double algbw = bytes / time;
    double busbw = algbw * 2.0 * (ranks - 1) / ranks;
    std::printf("%10lld %8d %12.1f %12.3f %12.3f %10.3f\n",
                static_cast<long long>(bytes), iterations, time * 1e6,
                algbw / 1e9, busbw / 1e9, busbw / copy);
  }
  return 0;
}
