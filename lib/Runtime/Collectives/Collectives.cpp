//===- Collectives.cpp - Collective libraries, by name --------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Collectives.h"

#include <algorithm>
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
  std::vector<absl::Status> statuses(size);
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
      if (made.ok())
        group.libraries[r] = std::move(*made);
      else
        statuses[r] = made.status();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const absl::Status &status : statuses)
    if (!status.ok())
      return status;
  std::vector<int64_t> all;
  for (int r = 0; r < size; ++r)
    all.push_back(r);
  absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> comms =
      joinLocalGroups(
          group, [&](int) { return all; }, "local");
  if (!comms.ok())
    return comms.status();
  group.ranks = std::move(*comms);
  return group;
}

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
ofrt::joinLocalGroups(LocalGroup &group, const LocalMembers &membersOf,
                      const std::string &key) {
  int size = group.libraries.size();
  std::vector<std::unique_ptr<Communicator>> comms(size);
  std::vector<absl::Status> statuses(size);
  std::vector<std::thread> threads;
  for (int r = 0; r < size; ++r)
    threads.emplace_back([&, r] {
      std::vector<int64_t> members = membersOf(r);
      int position =
          std::find(members.begin(), members.end(), r) - members.begin();
      if (position == static_cast<int>(members.size())) {
        statuses[r] = absl::InvalidArgumentError(
            "rank " + std::to_string(r) + " is not a member of its group");
        return;
      }
      absl::StatusOr<std::unique_ptr<Communicator>> comm =
          group.libraries[r]->join(members, position,
                                   key + "/" + std::to_string(members[0]));
      if (comm.ok())
        comms[r] = std::move(*comm);
      else
        statuses[r] = comm.status();
    });
  for (std::thread &thread : threads)
    thread.join();
  for (const absl::Status &status : statuses)
    if (!status.ok())
      return status;
  return comms;
}
