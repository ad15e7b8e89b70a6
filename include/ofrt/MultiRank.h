//===- MultiRank.h - Running every rank of a plan ---------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A plan has one RankProgram per rank. runAllRanks runs them all in this
// process (one session, with its own thread group and communicator pool, per
// rank; `of-run --devices cpu:N`; the "inproc" collectives by default);
// runRank runs one rank of a job whose other ranks are other processes
// (`of-run --nproc-per-node N`, torchrun, mpirun, srun), meeting through a
// shared store ("gloo") or MPI ("mpi"). Either way the outputs come back
// assembled into their logical values (Pieces.h), rank 0 receiving the
// others' pieces over the control channel (ControlChannel.h).
//
// Nothing hangs: a rank whose kernel fails stops its engine and closes its
// connections, so its peers' collectives fail at once (or, if the rank
// vanished silently or never started, after the timeout); the error names
// the rank that failed first and the collective each other rank was in.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_MULTIRANK_H
#define OFRT_MULTIRANK_H

#include "ofrt/Store.h"
#include "ofrt/Plan.h"
#include "ofrt/Session.h"

#include <chrono>

namespace ofrt {

struct MultiRankOptions {
  /// Inputs and seed, the same for every rank (`communicators` is ignored:
  /// each rank gets its own pool).
  SessionOptions session;
  RunOptions run;
  /// Bounds joining a group and every collective.
  std::chrono::milliseconds timeout{60000};
  /// The collective library (Collectives.h); empty: the device backend's
  /// default ("inproc" for runAllRanks; for runRank "mpi" when `underMpi`,
  /// else "gloo").
  std::string collectives;
  /// mpirun started this job's processes.
  bool underMpi = false;
  /// The interface this process's ranks listen on ("gloo").
  std::string hostname = "127.0.0.1";
  /// Also return the logical value of every variable after the run
  /// (MultiRankResult::variables), for a checkpoint.
  bool collectVariables = false;
  /// runRank: every rank also sends rank 0 its firings (with
  /// run.recordFirings), for a trace of the whole job. Those of ranks on
  /// rank 0's host are moved onto rank 0's clock; other hosts' keep their
  /// own (each counts from its own run's start).
  bool reportFirings = false;
  /// runAllRanks: when this process's ranks, times their kernel threads,
  /// outnumber its cores, drive each rank's streams from one thread
  /// (DeviceOptions::oneStreamThread) instead of session.device's choice,
  /// and (with one kernel thread) put rank r on the r-th allowed core, in
  /// turn, so that the cores stay evenly loaded. Pipeline stages (ranks
  /// with transfers per micro-batch) keep a thread per stream: on one, a
  /// stage waiting for a peer's transfer cannot compute meanwhile, and the
  /// stages would take turns.
  bool autoStreamThreads = true;
};

struct MultiRankResult {
  /// Logical outputs by name: every output on runAllRanks; on runRank, only
  /// rank 0 has them.
  std::map<std::string, TensorData> outputs;
  /// Per rank, indexed by rank: steps, seconds and step loads of every
  /// rank (runRank: rank 0 has all, others their own); firings of the ranks
  /// this process ran, when RunOptions::recordFirings is set, and on rank 0
  /// of runRank every rank's with reportFirings.
  std::vector<RunResult> ranks;
  /// With MultiRankOptions::collectVariables: every variable's logical
  /// value after the run, by name (runRank: on rank 0 only).
  std::map<std::string, TensorData> variables;
};

/// Checks that the plan's ranks are 0 .. worldSize - 1 in order.
absl::Status checkRankNumbers(const LoadedPlan &plan);

/// Runs every rank of `plan` in this process and assembles its outputs.
absl::StatusOr<MultiRankResult> runAllRanks(const LoadedPlan &plan,
                                            const MultiRankOptions &options);

/// Runs rank `rank` of `plan`; the other ranks call this in their processes
/// with the same store (null for a library that needs none, "mpi"). After
/// the run, every rank sends rank 0 its output pieces and timing, and rank 0
/// assembles them.
absl::StatusOr<MultiRankResult> runRank(const LoadedPlan &plan, int rank,
                                        std::shared_ptr<Store> store,
                                        const MultiRankOptions &options);

} // namespace ofrt

#endif // OFRT_MULTIRANK_H
