//===- ConformanceHarness.h - Ranks for the collective conformance suite --===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Runs one rank body on the ranks of a group with a named collective
// library. Libraries whose ranks can be threads ("inproc", "gloo") run every
// rank here, each in its own thread, meeting in an in-process store. "mpi"
// needs its ranks to be processes started by mpirun (test/Run/mpi-*.test
// runs this binary under `mpirun -np 4`): each process runs its own rank's
// body, if its rank is in the group, and checks what it sees. Elsewhere the
// MPI tests skip.
//
// A GPU library adds itself to kLibraries; the tests do not change.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_COLLECTIVE_CONFORMANCEHARNESS_H
#define ONEFLOW_UNITTESTS_RUNTIME_COLLECTIVE_CONFORMANCEHARNESS_H

#include "ofrt/Backend.h"
#include "ofrt/Collectives.h"

#include "../Watchdog.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <mutex>
#include <thread>

namespace ofrt::conformance {

using namespace std::chrono_literals;
using RankBody = std::function<absl::Status(Communicator &)>;

/// Runs `test` under a watchdog of a minute.
inline void withWatchdog(const std::function<void()> &test) {
  oftest::withWatchdog(test, 60s);
}

/// The world size and rank mpirun gave this process, or 0 and -1.
inline int mpiWorldSize() {
  const char *size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size ? std::atoi(size) : 0;
}
inline int mpiWorldRank() {
  const char *rank = std::getenv("OMPI_COMM_WORLD_RANK");
  return rank ? std::atoi(rank) : -1;
}

/// Runs `body` on ranks 0 .. size - 1, each a thread that joins its group
/// with `join` first; returns each rank's status. Every communicator lives
/// until every rank's body has returned: a rank that returns early stays
/// in the group, silent.
using JoinRank =
    std::function<absl::StatusOr<std::unique_ptr<Communicator>>(int rank)>;
inline std::vector<absl::Status> runRankThreads(int size, const JoinRank &join,
                                                const RankBody &body) {
  std::vector<absl::Status> statuses(size);
  std::vector<std::unique_ptr<Communicator>> comms(size);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      absl::StatusOr<std::unique_ptr<Communicator>> comm = join(r);
      if (!comm.ok()) {
        statuses[r] = comm.status();
        return;
      }
      comms[r] = std::move(*comm);
      statuses[r] = body(*comms[r]);
    });
  for (std::thread &thread : threads)
    thread.join();
  return statuses;
}

class Harness {
public:
  explicit Harness(std::string library) : library(std::move(library)) {}

  /// Whether this library's ranks are processes (mpirun's).
  bool processes() const { return library == "mpi"; }
  /// Why the library cannot run here, or "" when it can.
  std::string unavailable() const {
    if (!CollectivesRegistry::global().contains(library))
      return "this build has no " + library + " collectives";
    if (processes() && mpiWorldSize() < 4)
      return "the mpi collectives run under mpirun -np 4 "
             "(test/Run/mpi-collectives.test)";
    if (!processes() && mpiWorldSize() > 0)
      return "under mpirun only the mpi tests run";
    return "";
  }
  /// Whether a test that makes a rank vanish or stay silent can run: MPI
  /// cannot cancel a collective or leave a group, and mpirun ends the job
  /// when a rank exits.
  bool peersMayFail() const { return !processes(); }

  /// Runs `body` on ranks 0 .. size - 1 of a fresh group; returns the
  /// statuses of the ranks this process ran (all of them, or its own).
  std::vector<absl::Status> run(int size, const RankBody &body,
                                std::chrono::milliseconds timeout = 5000ms) {
    std::vector<int64_t> ranks;
    for (int r = 0; r < size; ++r)
      ranks.push_back(r);
    std::string key = "group" + std::to_string(groups++);
    if (processes()) {
      int me = mpiWorldRank();
      if (me >= size)
        return {};
      absl::StatusOr<std::unique_ptr<Communicator>> comm =
          join(me, mpiWorldSize(), nullptr, ranks, key, timeout);
      if (!comm.ok())
        return {comm.status()};
      return {body(**comm)};
    }
    std::shared_ptr<Store> store = createInProcessStore();
    return runRankThreads(
        size, [&](int r) { return join(r, size, store, ranks, key, timeout); },
        body);
  }

  /// Rank `rank` of a job of `world` joins the group `ranks` under `key`.
  absl::StatusOr<std::unique_ptr<Communicator>>
  join(int rank, int world, std::shared_ptr<Store> store,
       const std::vector<int64_t> &ranks, const std::string &key,
       std::chrono::milliseconds timeout) {
    CollectivesOptions options;
    options.rank = rank;
    options.worldSize = world;
    options.store = std::move(store);
    options.timeout = timeout;
    absl::StatusOr<std::unique_ptr<Collectives>> made =
        CollectivesRegistry::global().create(library, options);
    if (!made.ok())
      return made.status();
    int position = 0;
    while (ranks[position] != rank)
      ++position;
    absl::StatusOr<std::unique_ptr<Communicator>> comm =
        (*made)->join(ranks, position, key);
    // The library may go once its communicators exist (each keeps what it
    // needs), except gloo's device, which the communicator shares.
    std::lock_guard<std::mutex> lock(mutex);
    libraries.push_back(std::move(*made));
    return comm;
  }

  std::string library;

private:
  int groups = 0;
  std::mutex mutex; ///< Guards `libraries`.
  std::vector<std::unique_ptr<Collectives>> libraries;
};

inline void expectAllOk(const std::vector<absl::Status> &results) {
  for (size_t rank = 0; rank < results.size(); ++rank)
    EXPECT_TRUE(results[rank].ok()) << "rank " << rank << ": " << results[rank];
}

/// A test run once per library (the parameter), skipped where the library
/// is not available.
class LibraryTest : public ::testing::TestWithParam<std::string> {
protected:
  void SetUp() override {
    harness = std::make_unique<Harness>(GetParam());
    std::string why = harness->unavailable();
    if (!why.empty())
      GTEST_SKIP() << why;
  }

  /// Runs `body` on `size` ranks and expects every rank to succeed.
  void onRanks(int size, const RankBody &body) {
    SCOPED_TRACE(harness->library + " on " + std::to_string(size) + " ranks");
    withWatchdog([&] { expectAllOk(harness->run(size, body)); });
  }

  std::unique_ptr<Harness> harness;
};

/// The libraries every suite runs on.
inline auto allLibraries() {
  return ::testing::Values("inproc", "gloo", "mpi");
}
inline std::string
libraryName(const ::testing::TestParamInfo<std::string> &info) {
  return info.param;
}

} // namespace ofrt::conformance

#endif // ONEFLOW_UNITTESTS_RUNTIME_COLLECTIVE_CONFORMANCEHARNESS_H
