//===- allreduce_busbw.cpp - All-reduce latency and bus bandwidth ---------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// All-reduce of f32 buffers from 1 KiB to 64 MiB, per collective library,
// with nccl-tests' figures: algbw = bytes / time and busbw = algbw * 2 (p -
// 1) / p, the bandwidth each rank's links carry in a ring; and busbw against
// this machine's memcpy bandwidth (a 64 MiB copy, one thread), measured in
// the same run.
//
//   bench-allreduce-busbw [--ranks P] [--max-mib M] [--library L]...
//       ranks are threads of this process (`of-run --devices cpu:P`);
//       libraries inproc and gloo unless named
//   mpirun -np P bench-allreduce-busbw --store-dir DIR [--library L]...
//       one rank per process; libraries mpi and gloo (meeting in DIR, an
//       empty directory every rank sees) unless named; rank 0 prints
//
//===----------------------------------------------------------------------===//

#include "ofrt/Backend.h"
#include "ofrt/Collectives.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
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

/// The ranks this process drives: all of a group's (threads), or its own.
struct Ranks {
  LocalGroup local;                  ///< Ranks as threads.
  std::unique_ptr<Collectives> own;  ///< Under mpirun: this process's rank.
  std::unique_ptr<Communicator> mine;

  std::vector<Communicator *> communicators() {
    if (mine)
      return {mine.get()};
    std::vector<Communicator *> list;
    for (auto &rank : local.ranks)
      list.push_back(rank.get());
    return list;
  }
};

/// Seconds per all-reduce of `count` floats, every rank of this process
/// running `iterations` of them; ranks of other processes run the same.
double timeAllReduce(Ranks &ranks, int64_t count, int iterations) {
  std::vector<Communicator *> comms = ranks.communicators();
  std::vector<std::vector<float>> buffers(comms.size(),
                                          std::vector<float>(count, 1.0f));
  std::vector<int> failures(comms.size(), 0);
  // Line the ranks up first, so that the clock starts together.
  auto run = [&](size_t i, int times) {
    float one = 1;
    failures[i] += !comms[i]->allReduce(DType::F32, &one, &one, 1).ok();
    for (int k = 0; k < times; ++k)
      failures[i] += !comms[i]
                          ->allReduce(DType::F32, buffers[i].data(),
                                      buffers[i].data(), count)
                          .ok();
  };
  Clock::time_point start = Clock::now();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < comms.size(); ++i)
    threads.emplace_back(run, i, iterations);
  for (std::thread &thread : threads)
    thread.join();
  double seconds = secondsSince(start);
  for (int failed : failures)
    if (failed) {
      std::fprintf(stderr, "error: an all-reduce failed\n");
      std::exit(1);
    }
  return seconds / iterations;
}

} // namespace

int main(int argc, char **argv) {
  int ranksWanted = 4;
  int64_t maxMiB = 64;
  std::string storeDir;
  std::vector<std::string> libraries;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--ranks"))
      ranksWanted = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--max-mib"))
      maxMiB = std::atoll(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--library"))
      libraries.push_back(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--store-dir"))
      storeDir = argv[i + 1];
  }
  const char *mpiRank = std::getenv("OMPI_COMM_WORLD_RANK");
  const char *mpiSize = std::getenv("OMPI_COMM_WORLD_SIZE");
  bool underMpi = mpiRank && mpiSize;
  int rank = underMpi ? std::atoi(mpiRank) : 0;
  int size = underMpi ? std::atoi(mpiSize) : ranksWanted;
  if (libraries.empty())
    libraries = underMpi ? std::vector<std::string>{"mpi", "gloo"}
                         : std::vector<std::string>{"inproc", "gloo"};
  if (size < 2 || maxMiB < 1 || (underMpi && storeDir.empty() &&
                                 std::count(libraries.begin(), libraries.end(),
                                            std::string("gloo")))) {
    std::fprintf(stderr,
                 "usage: %s [--ranks P>=2] [--max-mib M>=1] [--library L]...\n"
                 "       mpirun -np P %s --store-dir DIR [--library L]...\n",
                 argv[0], argv[0]);
    return 1;
  }
  double copy = memcpyBandwidth();
  if (rank == 0)
    std::printf("%d ranks (%s); memcpy %.2f GB/s (one thread, 64 MiB)\n",
                size, underMpi ? "processes under mpirun" : "threads", copy / 1e9);
  const std::chrono::milliseconds timeout(120000);
  for (const std::string &library : libraries) {
    Ranks ranks;
    if (underMpi) {
      CollectivesOptions options;
      options.rank = rank;
      options.worldSize = size;
      options.timeout = timeout;
      if (!storeDir.empty()) {
        absl::StatusOr<std::shared_ptr<Store>> store =
            createFileStore(storeDir);
        if (!store.ok()) {
          std::fprintf(stderr, "error: %s\n", store.status().ToString().c_str());
          return 1;
        }
        options.store = createPrefixStore(*store, library);
      }
      auto made = CollectivesRegistry::global().create(library, options);
      std::vector<int64_t> all;
      for (int r = 0; r < size; ++r)
        all.push_back(r);
      absl::StatusOr<std::unique_ptr<Communicator>> comm =
          made.ok() ? (*made)->join(all, rank, "bench")
                    : absl::StatusOr<std::unique_ptr<Communicator>>(
                          made.status());
      if (!comm.ok()) {
        std::fprintf(stderr, "error: %s\n", comm.status().ToString().c_str());
        return 1;
      }
      ranks.own = std::move(*made);
      ranks.mine = std::move(*comm);
    } else {
      absl::StatusOr<LocalGroup> group = createLocalGroup(
          CollectivesRegistry::global(), library, size, timeout);
      if (!group.ok()) {
        std::fprintf(stderr, "error: %s\n", group.status().ToString().c_str());
        return 1;
      }
      ranks.local = std::move(*group);
    }
    if (rank == 0) {
      std::printf("\n%s\n", library.c_str());
      std::printf("%10s %8s %12s %12s %12s %10s\n", "bytes", "iters",
                  "time (us)", "algbw GB/s", "busbw GB/s", "busbw/copy");
    }
    for (int64_t bytes = 1024; bytes <= (maxMiB << 20); bytes *= 4) {
      int64_t count = bytes / sizeof(float);
      // Every rank runs the same number of iterations: a fixed budget of
      // bytes (about 0.3 s at 1 GB/s), at least 5, at most 2000.
      int iterations = std::clamp<int64_t>((int64_t(300) << 20) / bytes, 5,
                                           2000);
      timeAllReduce(ranks, count, 2); // Warm up.
      double time = timeAllReduce(ranks, count, iterations);
      double algbw = bytes / time;
      double busbw = algbw * 2.0 * (size - 1) / size;
      if (rank == 0)
        std::printf("%10lld %8d %12.1f %12.3f %12.3f %10.3f\n",
                    static_cast<long long>(bytes), iterations, time * 1e6,
                    algbw / 1e9, busbw / 1e9, busbw / copy);
    }
  }
  return 0;
}
