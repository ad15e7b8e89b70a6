//===- Collectives.h - Collective libraries, by name ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A collective library gives one rank the communicators of its groups:
// "inproc" (shared memory between ranks that are threads of one process),
// "gloo" (TCP, any processes that share a store), "mpi" (under mpirun), and
// a GPU backend's library later. Device backends register the libraries
// that work on their memory (Backend.h); the pool of a rank
// (CommunicatorPool.h) asks its library to join each group, and nothing
// else in the runtime names one.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_COLLECTIVES_H
#define OFRT_COLLECTIVES_H

#include "ofrt/Communicator.h"
#include "ofrt/ControlChannel.h"
#include "ofrt/Store.h"

#include "absl/status/statusor.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ofrt {

/// What one rank's collective library is created with.
struct CollectivesOptions {
  int rank = 0;      ///< Global rank.
  int worldSize = 1; ///< Ranks in the job.
  /// Where ranks meet (libraries that need one; "mpi" does not).
  std::shared_ptr<Store> store;
  /// Bounds joining a group and every call.
  std::chrono::milliseconds timeout{60000};
  /// The address this rank listens on ("gloo").
  std::string hostname = "127.0.0.1";
};

/// One rank's collective library.
class Collectives {
public:
  virtual ~Collectives();
  /// The registered name ("inproc", "gloo", "mpi").
  virtual std::string name() const = 0;
  /// Joins the group of global `ranks` (this rank is ranks[position]),
  /// meeting under `key` in the store: blocks until every member has
  /// joined, or fails after the timeout naming the ranks that did not.
  virtual absl::StatusOr<std::unique_ptr<Communicator>>
  join(const std::vector<int64_t> &ranks, int position,
       const std::string &key) = 0;
  /// The job's control channel (ControlChannel.h), apart from every data
  /// communicator.
  virtual absl::StatusOr<std::unique_ptr<ControlChannel>> controlChannel() = 0;
};

using CollectivesFactory =
    std::function<absl::StatusOr<std::unique_ptr<Collectives>>(
        const CollectivesOptions &)>;

/// The collective libraries of this runtime, by name.
class CollectivesRegistry {
public:
  /// Every library the built-in backends register (Backend.h).
  static CollectivesRegistry &global();

  /// `summary` says where the library works, for --help and errors.
  void add(const std::string &name, const std::string &summary,
           CollectivesFactory factory);
  /// Creates `name` for one rank; an unknown name is an error listing the
  /// known ones.
  absl::StatusOr<std::unique_ptr<Collectives>>
  create(const std::string &name, const CollectivesOptions &options) const;
  bool contains(const std::string &name) const;
  /// "gloo, inproc, mpi".
  std::string names() const;

private:
  struct Entry {
    std::string summary;
    CollectivesFactory factory;
  };
  std::map<std::string, Entry> entries;
};

/// Every rank of one group in this process, for benchmarks and tools:
/// the libraries (one per rank) and the communicators (element i is rank i),
/// each of which may then be driven from its own thread.
struct LocalGroup {
  std::vector<std::unique_ptr<Collectives>> libraries;
  std::vector<std::unique_ptr<Communicator>> ranks;
};

/// Joins `size` ranks of `library` from `size` threads, meeting in an
/// in-process store.
absl::StatusOr<LocalGroup> createLocalGroup(const CollectivesRegistry &registry,
                                            const std::string &library,
                                            int size,
                                            std::chrono::milliseconds timeout);

/// The members (global ranks, in order) of the group rank r joins.
using LocalMembers = std::function<std::vector<int64_t>(int rank)>;

/// Every rank of `group` joins, from a thread of its own, the group
/// `membersOf(r)` names (groups meet under `key` and their first member):
/// element r is rank r's communicator in its group.
absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
joinLocalGroups(LocalGroup &group, const LocalMembers &membersOf,
                const std::string &key);

} // namespace ofrt

#endif // OFRT_COLLECTIVES_H
