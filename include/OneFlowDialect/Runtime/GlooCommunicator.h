//===- GlooCommunicator.h - CPU collectives over Gloo (TCP) -----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Gloo communicators over TCP on the loopback interface. Ranks meet through
// a Rendezvous: in one process (ranks are threads, `of-run --devices cpu:N`)
// or through a directory several processes share. No Gloo type appears here.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_RUNTIME_GLOOCOMMUNICATOR_H
#define ONEFLOWDIALECT_RUNTIME_GLOOCOMMUNICATOR_H

#include "OneFlowDialect/Runtime/Communicator.h"

#include "absl/status/statusor.h"

#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace ofrt {

/// Where the ranks of one group exchange their addresses. Opaque; use one
/// per group (a second group needs a fresh one).
class Rendezvous {
public:
  virtual ~Rendezvous();
};

/// Ranks that are threads of this process share this (a Gloo HashStore).
std::shared_ptr<Rendezvous> createInProcessRendezvous();

/// Ranks in several processes on one machine or a shared file system meet
/// in `directory` (a Gloo FileStore); it must exist and start empty.
std::shared_ptr<Rendezvous> createFileRendezvous(const std::string &directory);

/// Ranks on several machines meet through a Redis server (a Gloo
/// RedisStore); the keys of one job must not be left over from another. An
/// unreachable server is an error.
absl::StatusOr<std::shared_ptr<Rendezvous>>
createRedisRendezvous(const std::string &host, int port);

/// The keys of `parent` under `prefix`: several groups of one job meet
/// through one store, each under its own prefix.
std::shared_ptr<Rendezvous>
createPrefixRendezvous(std::shared_ptr<Rendezvous> parent,
                       const std::string &prefix);

/// One TCP endpoint of a rank: a listening socket and the event-loop thread
/// that serves it. Every group of the rank can share it. Opaque.
class Transport {
public:
  virtual ~Transport();
};

/// A transport listening on `hostname` (the loopback interface unless ranks
/// run on several machines); an address that does not resolve is an error.
absl::StatusOr<std::shared_ptr<Transport>>
createTcpTransport(const std::string &hostname = "127.0.0.1");

/// Rank `rank` of `size` joins the group through `transport` (null: a
/// fresh loopback one). Blocks until every rank has joined, or fails after
/// `timeout`, which also bounds every later call; the error names the ranks
/// that did not join, as `names` (the members' global ranks) when given.
absl::StatusOr<std::unique_ptr<Communicator>>
createGlooCommunicator(int rank, int size,
                       std::shared_ptr<Rendezvous> rendezvous,
                       std::chrono::milliseconds timeout,
                       std::shared_ptr<Transport> transport = nullptr,
                       const std::vector<int64_t> *names = nullptr);

/// All `size` ranks of a group in this process, joined from `size` threads;
/// element i is rank i. Each may then be driven from its own thread.
absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
createInProcessGroup(int size, std::chrono::milliseconds timeout);

} // namespace ofrt

#endif // ONEFLOWDIALECT_RUNTIME_GLOOCOMMUNICATOR_H
