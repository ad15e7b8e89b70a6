//===- CommunicatorPool.cpp - One rank's communicators, by group ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Runtime/CommunicatorPool.h"

#include <algorithm>

using namespace ofrt;

std::string ofrt::groupString(const std::vector<int64_t> &ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

CommunicatorPool::CommunicatorPool(int rank, int worldSize,
                                   std::shared_ptr<Rendezvous> store,
                                   std::chrono::milliseconds timeout,
                                   std::string hostname)
    : globalRank(rank), world(worldSize), store(std::move(store)),
      timeoutMs(timeout), hostname(std::move(hostname)) {}

CommunicatorPool::~CommunicatorPool() = default;

size_t CommunicatorPool::numGroups() const {
  std::lock_guard<std::mutex> lock(mutex);
  return groups.size();
}

absl::StatusOr<int>
CommunicatorPool::positionIn(const std::vector<int64_t> &ranks) const {
  std::string who = "rank " + std::to_string(globalRank) + " of " +
                    std::to_string(world) + ": group " + groupString(ranks);
  if (ranks.empty())
    return absl::InvalidArgumentError(who + " is empty");
  for (int64_t r : ranks)
    if (r < 0 || r >= world)
      return absl::InvalidArgumentError(who + " names rank " +
                                        std::to_string(r) +
                                        ", outside the job");
  std::vector<int64_t> sorted = ranks;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    return absl::InvalidArgumentError(who + " lists a rank twice");
  auto self = std::find(ranks.begin(), ranks.end(), globalRank);
  if (self == ranks.end())
    return absl::InvalidArgumentError(who + " does not contain this rank");
  return static_cast<int>(self - ranks.begin());
}

absl::StatusOr<Communicator *>
CommunicatorPool::get(const std::vector<int64_t> &ranks) {
  std::lock_guard<std::mutex> lock(mutex);
  if (auto it = groups.find(ranks); it != groups.end())
    return it->second.get();
  absl::StatusOr<int> position = positionIn(ranks);
  if (!position.ok())
    return position.status();
  std::string who = "rank " + std::to_string(globalRank) + " of " +
                    std::to_string(world) + ": group " + groupString(ranks);
  std::string key = "group";
  for (int64_t r : ranks)
    key += "_" + std::to_string(r);
  if (!transport) {
    absl::StatusOr<std::shared_ptr<Transport>> created =
        createTcpTransport(hostname);
    if (!created.ok())
      return absl::Status(created.status().code(),
                          who + ": " + std::string(created.status().message()));
    transport = *created;
  }
  std::shared_ptr<Rendezvous> prefixed = createPrefixRendezvous(store, key);
  if (!prefixed)
    return absl::InvalidArgumentError(who + ": not a Gloo rendezvous");
  absl::StatusOr<std::unique_ptr<Communicator>> communicator =
      createGlooCommunicator(*position, ranks.size(), prefixed, timeoutMs,
                             transport, &ranks);
  if (!communicator.ok())
    return absl::Status(communicator.status().code(),
                        who + ": " +
                            std::string(communicator.status().message()));
  Communicator *result = communicator->get();
  groups[ranks] = std::move(*communicator);
  return result;
}
