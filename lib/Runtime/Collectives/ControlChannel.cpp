//===- ControlChannel.cpp - Reports through the store ---------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/ControlChannel.h"

using namespace ofrt;

ControlChannel::~ControlChannel() = default;

namespace {
class StoreControlChannel : public ControlChannel {
public:
  StoreControlChannel(std::shared_ptr<Store> store, int rank, int world,
                      std::chrono::milliseconds timeout)
      : store(std::move(store)), rank(rank), world(world), timeout(timeout) {}

  absl::Status send(const std::string &topic,
                    const std::string &report) override {
    return store->set(key(topic, rank), report);
  }

  absl::StatusOr<std::vector<std::string>>
  gather(const std::string &topic) override {
    std::vector<std::string> reports(world);
    for (int r = 1; r < world; ++r) {
      absl::StatusOr<std::string> report = store->get(key(topic, r), timeout);
      if (!report.ok())
        return absl::Status(report.status().code(),
                            "rank " + std::to_string(r) + " sent no " + topic +
                                " report within " +
                                std::to_string(timeout.count()) + " ms (" +
                                std::string(report.status().message()) + ")");
      reports[r] = std::move(*report);
    }
    return reports;
  }

private:
  static std::string key(const std::string &topic, int rank) {
    return "control/" + topic + "/" + std::to_string(rank);
  }

  std::shared_ptr<Store> store;
  int rank, world;
  std::chrono::milliseconds timeout;
};
} // namespace

std::unique_ptr<ControlChannel>
ofrt::createStoreControlChannel(std::shared_ptr<Store> store, int rank,
                                int worldSize,
                                std::chrono::milliseconds timeout) {
  return std::make_unique<StoreControlChannel>(std::move(store), rank,
                                               worldSize, timeout);
}
