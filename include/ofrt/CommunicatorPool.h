//===- CommunicatorPool.h - One rank's communicators, by group --*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A multi-rank plan names its groups by their global ranks: the axis group of
// a collective, the sorted union of a transfer's placements. Each rank owns
// one pool; the pool has the rank's collective library (Collectives.h) join a
// group the first time a kernel asks for it, under a key derived from the
// rank list ("group_0_2"), and keeps the communicator for the rest of the
// job.
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

#ifndef OFRT_COMMUNICATORPOOL_H
#define OFRT_COMMUNICATORPOOL_H

#include "ofrt/Collectives.h"

#include <map>
#include <mutex>

namespace ofrt {

class CommunicatorPool {
public:
  /// Global rank `rank` of `worldSize`, joining groups through `library`
  /// (created for this rank).
  CommunicatorPool(int rank, int worldSize,
                   std::unique_ptr<Collectives> library);
  ~CommunicatorPool();

  /// A pool for rank `options.rank` with the library `name` of `registry`.
  static absl::StatusOr<std::unique_ptr<CommunicatorPool>>
  create(const CollectivesRegistry &registry, const std::string &name,
         const CollectivesOptions &options);

  int rank() const { return globalRank; }
  int worldSize() const { return world; }
  /// The library's name ("inproc", "gloo", "mpi").
  std::string libraryName() const { return library->name(); }

  /// The communicator of the group of global `ranks` (distinct, in group
  /// order; this rank among them), joined on first use. Its rank() is this
  /// rank's position in `ranks`. Valid as long as the pool lives.
  absl::StatusOr<Communicator *> get(const std::vector<int64_t> &ranks);

  /// This rank's position in the group of `ranks`, without joining it; an
  /// empty group, a rank outside the job, a repeated rank or a group
  /// without this rank is an error.
  absl::StatusOr<int> positionIn(const std::vector<int64_t> &ranks) const;

  /// The job's control channel, from the library.
  absl::StatusOr<std::unique_ptr<ControlChannel>> controlChannel() {
    return library->controlChannel();
  }

  /// How many groups this rank has joined.
  size_t numGroups() const;

private:
  /// "rank 1 of 4: group [0, 1]", for messages.
  std::string describe(const std::vector<int64_t> &ranks) const;

  int globalRank;
  int world;
  std::unique_ptr<Collectives> library;
  mutable std::mutex mutex;
  std::map<std::vector<int64_t>, std::unique_ptr<Communicator>> groups;
};

/// "[0, 2]", for messages.
std::string groupString(const std::vector<int64_t> &ranks);

} // namespace ofrt

#endif // OFRT_COMMUNICATORPOOL_H
