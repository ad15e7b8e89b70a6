//===- CommunicatorPool.cpp - One rank's communicators, by group ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/CommunicatorPool.h"

#include <algorithm>

using namespace ofrt;

std::string ofrt::groupString(const std::vector<int64_t> &ranks) {
  std::string text = "[";
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i ? ", " : "") + std::to_string(ranks[i]);
  return text + "]";
}

CommunicatorPool::CommunicatorPool(int rank, int worldSize,
                                   std::unique_ptr<Collectives> library)
    : globalRank(rank), world(worldSize), library(std::move(library)) {}

CommunicatorPool::~CommunicatorPool() {
  // Communicators go before the library that made them.
  groups.clear();
}

absl::StatusOr<std::unique_ptr<CommunicatorPool>>
CommunicatorPool::create(const CollectivesRegistry &registry,
                         const std::string &name,
                         const CollectivesOptions &options) {
  absl::StatusOr<std::unique_ptr<Collectives>> library =
      registry.create(name, options);
  if (!library.ok())
    return library.status();
  return std::make_unique<CommunicatorPool>(options.rank, options.worldSize,
                                            std::move(*library));
}

size_t CommunicatorPool::numGroups() const {
  std::lock_guard<std::mutex> lock(mutex);
  return groups.size();
}

std::string
CommunicatorPool::describe(const std::vector<int64_t> &ranks) const {
  return "rank " + std::to_string(globalRank) + " of " + std::to_string(world) +
         ": group " + groupString(ranks);
}

absl::StatusOr<int>
CommunicatorPool::positionIn(const std::vector<int64_t> &ranks) const {
  std::string who = describe(ranks);
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
  std::string key = "group";
  for (int64_t r : ranks)
    key += "_" + std::to_string(r);
  absl::StatusOr<std::unique_ptr<Communicator>> communicator =
      library->join(ranks, *position, key);
  if (!communicator.ok())
    return absl::Status(communicator.status().code(),
                        describe(ranks) + ": " +
                            std::string(communicator.status().message()));
  Communicator *result = communicator->get();
  groups[ranks] = std::move(*communicator);
  return result;
}
