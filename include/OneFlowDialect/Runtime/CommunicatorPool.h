//===- CommunicatorPool.h - One rank's communicators, by group --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A multi-rank plan names its groups by their global ranks: the axis group of
// a collective, the sorted union of a transfer's placements. Each rank owns
// one pool; the pool creates a group's communicator the first time a kernel
// asks for it, through the job's store under a prefix derived from the rank
// list ("group_0_2/"), and keeps it for the rest of the job.
//
// Deadlock freedom: joining a group blocks until every member has joined.
// Every rank therefore creates its groups in one global order: a session
// creates kernels in the plan's actor order, which is program order on every
// rank, and each rank asks only for the groups it belongs to. Under such an
// order the earliest group not yet joined has every member waiting in it, so
// all groups connect (on a 2x2 mesh, rows {0,1} {2,3} then columns {0,2}
// {1,3}). A rank that asks in another order waits until the timeout and
// fails with an error naming the group and the missing ranks.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_RUNTIME_COMMUNICATORPOOL_H
#define ONEFLOWDIALECT_RUNTIME_COMMUNICATORPOOL_H

#include "OneFlowDialect/Runtime/GlooCommunicator.h"

#include <map>
#include <mutex>

namespace ofrt {

class CommunicatorPool {
public:
  /// Global rank `rank` of `worldSize`; every rank of the job passes a
  /// rendezvous over the same store. `timeout` bounds joining and every
  /// call; `hostname` is the interface this rank listens on, through one
  /// transport (socket and event-loop thread) that all its groups share.
  CommunicatorPool(int rank, int worldSize, std::shared_ptr<Rendezvous> store,
                   std::chrono::milliseconds timeout,
                   std::string hostname = "127.0.0.1");
  ~CommunicatorPool();

  int rank() const { return globalRank; }
  int worldSize() const { return world; }
  std::chrono::milliseconds timeout() const { return timeoutMs; }

  /// The communicator of the group of global `ranks` (distinct, in group
  /// order; this rank among them), joined on first use. Its rank() is this
  /// rank's position in `ranks`. Valid as long as the pool lives.
  absl::StatusOr<Communicator *> get(const std::vector<int64_t> &ranks);

  /// This rank's position in the group of `ranks`, without joining it; an
  /// empty group, a rank outside the job, a repeated rank or a group
  /// without this rank is an error.
  absl::StatusOr<int> positionIn(const std::vector<int64_t> &ranks) const;

  /// How many groups this rank has joined.
  size_t numGroups() const;

private:
  int globalRank;
  int world;
  std::shared_ptr<Rendezvous> store;
  std::chrono::milliseconds timeoutMs;
  std::string hostname;
  std::shared_ptr<Transport> transport; ///< Created with the first group.
  mutable std::mutex mutex;
  std::map<std::vector<int64_t>, std::unique_ptr<Communicator>> groups;
};

/// "[0, 2]", for messages.
std::string groupString(const std::vector<int64_t> &ranks);

} // namespace ofrt

#endif // ONEFLOWDIALECT_RUNTIME_COMMUNICATORPOOL_H
