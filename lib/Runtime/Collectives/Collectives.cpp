//===- Collectives.cpp - Collective libraries, by name --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Collectives.h"

#include <thread>

using namespace ofrt;

Collectives::~Collectives() = default;

void CollectivesRegistry::add(const std::string &name,
                              const std::string &summary,
                              CollectivesFactory factory) {
  entries[name] = {summary, std::move(factory)};
}

bool CollectivesRegistry::contains(const std::string &name) const {
  return entries.count(name) != 0;
}

std::string CollectivesRegistry::names() const {
  std::string list;
  for (const auto &[name, entry] : entries)
    list += (list.empty() ? "" : ", ") + name;
  return list;
}

absl::StatusOr<std::unique_ptr<Collectives>>
CollectivesRegistry::create(const std::string &name,
                            const CollectivesOptions &options) const {
  auto it = entries.find(name);
  if (it == entries.end())
    return absl::InvalidArgumentError("no collective library '" + name +
                                      "' in this runtime (it has " + names() +
                                      ")");
  absl::StatusOr<std::unique_ptr<Collectives>> created =
      it->second.factory(options);
  if (!created.ok())
    return absl::Status(created.status().code(),
                        "rank " + std::to_string(options.rank) + ": " + name +
                            " collectives: " +
                            std::string(created.status().message()));
  return created;
}

absl::StatusOr<LocalGroup>
ofrt::createLocalGroup(const CollectivesRegistry &registry,
                       const std::string &library, int size,
                       std::chrono::milliseconds timeout) {
  if (size < 1)
    return absl::InvalidArgumentError("a group of " + std::to_string(size) +
                                      " ranks");
  LocalGroup group;
  group.libraries.resize(size);
  group.ranks.resize(size);
  std::vector<absl::Status> statuses(size);
  std::vector<int64_t> ranks;
  for (int r = 0; r < size; ++r)
    ranks.push_back(r);
  std::shared_ptr<Store> store = createInProcessStore();
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      CollectivesOptions options;
      options.rank = r;
      options.worldSize = size;
      options.store = store;
      options.timeout = timeout;
      absl::StatusOr<std::unique_ptr<Collectives>> made =
          registry.create(library, options);
      if (!made.ok()) {
        statuses[r] = made.status();
        return;
      }
      group.libraries[r] = std::move(*made);
      absl::StatusOr<std::unique_ptr<Communicator>> comm =
          group.libraries[r]->join(ranks, r, "local");
      if (comm.ok())
        group.ranks[r] = std::move(*comm);
      else
        statuses[r] = comm.status();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const absl::Status &status : statuses)
    if (!status.ok())
      return status;
  return group;
}
