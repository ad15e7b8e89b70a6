//===- Store.h - Where the ranks of a job meet ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A rendezvous store: a key-value store every rank of a job reaches. The
// collective libraries exchange what they need to connect through it (Gloo
// its addresses, the in-process collectives a handle on shared memory, a GPU
// backend its communicator id), and the control channel can carry reports
// through it. Keys are written once; `get` and `wait` block until a key is
// there, the timeout passes or the store is cancelled.
//
// Stores: one inside this process (ranks that are threads), a directory
// several processes share (one machine, or a shared file system), a Redis
// server (several machines), and any of these under a prefix.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_STORE_H
#define OFRT_STORE_H

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ofrt {

class Store {
public:
  virtual ~Store();

  /// Sets `key` to `value` (bytes).
  virtual absl::Status set(const std::string &key, const std::string &value) = 0;
  /// The value of `key`, waiting up to `timeout` for a rank to set it; a
  /// DeadlineExceeded error names the key.
  virtual absl::StatusOr<std::string> get(const std::string &key,
                                          std::chrono::milliseconds timeout) = 0;
  /// Waits up to `timeout` until every key is set; a DeadlineExceeded error
  /// names the keys still missing.
  virtual absl::Status wait(const std::vector<std::string> &keys,
                            std::chrono::milliseconds timeout) = 0;
  /// Ends every wait of this store, those under way and those to come
  /// (`get` and `wait`), at once with a Cancelled error: a process told to
  /// stop while it waits for peers that may never come (SIGTERM while the
  /// job's processes join) does not wait out the timeout. Thread-safe.
  virtual void cancel() = 0;
  /// "in-process store", "store directory /tmp/x", "Redis server h:6379",
  /// for messages.
  virtual std::string describe() const = 0;
};

/// A store for ranks that are threads of this process.
std::shared_ptr<Store> createInProcessStore();

/// A store in `directory` (created if missing), for processes on one machine
/// or on a shared file system; it should start empty.
absl::StatusOr<std::shared_ptr<Store>>
createFileStore(const std::string &directory);

/// A store on the Redis server at `host`:`port`; an unreachable server is an
/// error. Keys of one job must not be left over from another (use a prefix).
absl::StatusOr<std::shared_ptr<Store>> createRedisStore(const std::string &host,
                                                        int port);

/// The keys of `parent` under "`prefix`/".
std::shared_ptr<Store> createPrefixStore(std::shared_ptr<Store> parent,
                                         const std::string &prefix);

} // namespace ofrt

#endif // OFRT_STORE_H
