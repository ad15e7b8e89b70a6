//===- Launch.h - Ranks of a multi-process of-run job -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// How of-run finds its place in a job of several processes: the rank and
// world size that a launcher put in the environment (of-run's own
// --nproc-per-node, torchrun, mpirun or srun), and how of-run launches N
// copies of itself on this machine.
//
//===----------------------------------------------------------------------===//

#ifndef OFDRIVER_LAUNCH_H
#define OFDRIVER_LAUNCH_H

#include "absl/status/statusor.h"

#include <chrono>

#include <optional>
#include <string>
#include <vector>

namespace ofdriver {

/// This process's place in a job.
struct ProcessRank {
  int rank = 0;
  int world = 1;
  /// Which launcher set it: "of-run", "torchrun", "mpirun" or "srun".
  std::string launcher;
  /// The store directory the launcher chose (OF_STORE_DIR), if any.
  std::string storeDir;
  /// The environment variable the rank came from ("OF_RANK", "RANK", ...).
  std::string rankVariable;
};

/// The rank and world size from OF_RANK/OF_WORLD_SIZE (and OF_STORE_DIR),
/// RANK/WORLD_SIZE (torchrun; LOCAL_RANK is the rank on this node),
/// OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE (mpirun) or
/// SLURM_PROCID/SLURM_NTASKS (srun), looked for in that order; nullopt when
/// none is set. Malformed or inconsistent values are an error.
absl::StatusOr<std::optional<ProcessRank>> rankFromEnvironment();

/// Runs `processes` copies of this executable with `args` (argv without
/// the program name), rank i with OF_RANK=i, OF_WORLD_SIZE and OF_STORE_DIR
/// set to a fresh temporary directory. Each rank has its own process group
/// (SIGINT and SIGTERM reach it through the launcher, which forwards them)
/// and dies with the launcher (a parent-death signal); a guardian process
/// removes the directory even when the launcher is killed. After a rank
/// fails, the others get the collective `timeout` and 5 s
/// more, then are killed. Returns 0 if every rank succeeded, 130 if they
/// were interrupted, else 1 after naming the rank that failed first, how
/// (exit status or signal), and the others.
int launchProcesses(int processes, const std::vector<std::string> &args,
                    std::chrono::milliseconds timeout);

} // namespace ofdriver

#endif // OFDRIVER_LAUNCH_H
