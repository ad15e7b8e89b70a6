//===- Store.cpp - Rendezvous stores over Gloo's --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The stores are Gloo's (hash map, file, Redis) behind ofrt::Store; Gloo
// reports a timeout or a lost server by throwing, which becomes a status
// here. In-process ranks share one store from their own threads, and only
// Gloo's hash store locks: its file store appends every key it writes to
// a member list (two ranks writing at once freed one list buffer twice),
// its Redis store shares one connection. So writes and reads take a lock;
// waits do not hold it (a rank waits while another writes what it waits
// for): the file store's wait only looks at files, and the Redis store's,
// whose polls are commands on the shared connection (two threads reading
// one socket took each other's replies and hung: a rank's stop watcher
// polls while it joins the collectives), is polled here with each check
// under the lock.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Store.h"

#include "Collectives/CollectiveUtils.h"

#include <gloo/rendezvous/file_store.h>
#include <gloo/rendezvous/hash_store.h>
#include <gloo/rendezvous/redis_store.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>

using namespace ofrt;

Store::~Store() = default;

namespace {

class GlooBackedStore : public Store {
public:
  /// `lockedCheck`, when given, tells whether keys are all set and must
  /// run under the lock; waits then poll it instead of the store's wait.
  GlooBackedStore(
      std::unique_ptr<gloo::rendezvous::Store> store, std::string where,
      std::function<bool(const std::vector<std::string> &)> lockedCheck = {})
      : store(std::move(store)), where(std::move(where)),
        lockedCheck(std::move(lockedCheck)) {}

  absl::Status set(const std::string &key, const std::string &value) override {
    return guard("setting '" + key + "'", [&] {
      std::lock_guard<std::mutex> lock(mutex);
      store->set(key, std::vector<char>(value.begin(), value.end()));
    });
  }

  absl::StatusOr<std::string> get(const std::string &key,
                                  std::chrono::milliseconds timeout) override {
    std::string value;
    absl::Status status = guard("waiting for '" + key + "'", [&] {
      waitFor({key}, timeout);
      std::lock_guard<std::mutex> lock(mutex);
      std::vector<char> bytes = store->get(key);
      value.assign(bytes.begin(), bytes.end());
    });
    if (!status.ok())
      return status;
    return value;
  }

  absl::Status wait(const std::vector<std::string> &keys,
                    std::chrono::milliseconds timeout) override {
    std::string list;
    for (const std::string &key : keys)
      list += (list.empty() ? "'" : ", '") + key + "'";
    return guard("waiting for " + list, [&] { waitFor(keys, timeout); });
  }

  void cancel() override { cancelled = true; }

  std::string describe() const override { return where; }

private:
  /// Thrown by a wait that cancel() ended.
  struct Cancelled : std::runtime_error {
    Cancelled() : std::runtime_error("cancelled") {}
  };

  /// Waits in slices of at most 50 ms, so that cancel() ends it soon.
  void waitFor(const std::vector<std::string> &keys,
               std::chrono::milliseconds timeout) {
    using namespace std::chrono;
    constexpr milliseconds kSlice(50);
    auto deadline = steady_clock::now() + timeout;
    for (bool first = true;; first = false) {
      if (cancelled)
        throw Cancelled();
      auto left = duration_cast<milliseconds>(deadline - steady_clock::now());
      if (lockedCheck) {
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (lockedCheck(keys))
            return;
        }
      }
      // Every key is looked for at least once, however short the timeout.
      if (!first && left.count() <= 0)
        throw std::runtime_error("Wait timeout after " +
                                 std::to_string(timeout.count()) + " ms");
      if (lockedCheck) {
        std::this_thread::sleep_for(milliseconds(10));
        continue;
      }
      try {
        // (A zero timeout would mean none to Gloo's stores.)
        store->wait(keys, std::max(milliseconds(1), std::min(left, kSlice)));
        return;
      } catch (const std::exception &error) {
        if (!collectives::isTimeoutMessage(error.what()))
          throw;
      }
    }
  }

  template <typename Body>
  absl::Status guard(const std::string &what, Body &&body) {
    try {
      body();
      return absl::OkStatus();
    } catch (const Cancelled &) {
      return absl::CancelledError(where + ": stopped " + what +
                                  " (the process was told to stop)");
    } catch (const std::exception &error) {
      std::string message = error.what();
      if (collectives::isTimeoutMessage(message))
        return absl::DeadlineExceededError(where + ": timed out " + what +
                                           " (gloo: " + message + ")");
      return absl::UnavailableError(where + ": failed " + what +
                                    " (gloo: " + message + ")");
    }
  }

  std::unique_ptr<gloo::rendezvous::Store> store;
  std::string where;
  std::function<bool(const std::vector<std::string> &)> lockedCheck;
  /// Serializes the store's writes and reads (see the file comment).
  std::mutex mutex;
  std::atomic<bool> cancelled{false};
};

class PrefixStore : public Store {
public:
  PrefixStore(std::shared_ptr<Store> parent, std::string prefix)
      : parent(std::move(parent)), prefix(std::move(prefix) + "/") {}

  absl::Status set(const std::string &key, const std::string &value) override {
    return parent->set(prefix + key, value);
  }
  absl::StatusOr<std::string> get(const std::string &key,
                                  std::chrono::milliseconds timeout) override {
    return parent->get(prefix + key, timeout);
  }
  absl::Status wait(const std::vector<std::string> &keys,
                    std::chrono::milliseconds timeout) override {
    std::vector<std::string> full;
    for (const std::string &key : keys)
      full.push_back(prefix + key);
    return parent->wait(full, timeout);
  }
  void cancel() override { parent->cancel(); }
  std::string describe() const override { return parent->describe(); }

private:
  std::shared_ptr<Store> parent;
  std::string prefix;
};

} // namespace

std::shared_ptr<Store> ofrt::createInProcessStore() {
  return std::make_shared<GlooBackedStore>(
      std::make_unique<gloo::rendezvous::HashStore>(), "in-process store");
}

absl::StatusOr<std::shared_ptr<Store>>
ofrt::createFileStore(const std::string &directory) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error)
    return absl::InvalidArgumentError("cannot create store directory '" +
                                      directory + "': " + error.message());
  return std::shared_ptr<Store>(std::make_shared<GlooBackedStore>(
      std::make_unique<gloo::rendezvous::FileStore>(directory),
      "store directory " + directory));
}

absl::StatusOr<std::shared_ptr<Store>>
ofrt::createRedisStore(const std::string &host, int port) {
  std::string where = "Redis server " + host + ":" + std::to_string(port);
  try {
    auto redis = std::make_unique<gloo::rendezvous::RedisStore>(host, port);
    gloo::rendezvous::RedisStore *connection = redis.get();
    return std::shared_ptr<Store>(std::make_shared<GlooBackedStore>(
        std::move(redis), where,
        [connection](const std::vector<std::string> &keys) {
          return connection->check(keys);
        }));
  } catch (const std::exception &error) {
    return absl::UnavailableError("cannot reach the " + where +
                                  " (gloo: " + error.what() + ")");
  }
}

std::shared_ptr<Store> ofrt::createPrefixStore(std::shared_ptr<Store> parent,
                                               const std::string &prefix) {
  return std::make_shared<PrefixStore>(std::move(parent), prefix);
}
