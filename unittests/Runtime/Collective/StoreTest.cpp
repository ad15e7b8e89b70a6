//===- StoreTest.cpp - Rendezvous stores and the control channel ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/ControlChannel.h"
#include "ofrt/Store.h"

#include "gtest/gtest.h"

#include <filesystem>
#include <thread>

using namespace ofrt;
using namespace std::chrono_literals;

namespace {

/// An in-process store, a store in a fresh directory (under the test's
/// temporary one, removed after) and a prefix store.
struct EveryStore {
  explicit EveryStore(const std::string &name)
      : directory(::testing::TempDir() + "/" + name + "-" +
                  std::to_string(::getpid())) {
    std::filesystem::remove_all(directory);
    absl::StatusOr<std::shared_ptr<Store>> file = createFileStore(directory);
    EXPECT_TRUE(file.ok()) << file.status();
    if (file.ok())
      all = {createInProcessStore(), *file,
             createPrefixStore(createInProcessStore(), "job")};
  }
  ~EveryStore() { std::filesystem::remove_all(directory); }

  std::string directory;
  std::vector<std::shared_ptr<Store>> all;
};

TEST(Store, SetGetWaitInProcessInADirectoryAndUnderAPrefix) {
  EveryStore stores("ofrt-store-test");
  for (std::shared_ptr<Store> store : stores.all) {
    SCOPED_TRACE(store->describe());
    std::thread late([&] {
      std::this_thread::sleep_for(50ms);
      EXPECT_TRUE(store->set("b", std::string("\0x", 2)).ok());
    });
    ASSERT_TRUE(store->set("a", "1").ok());
    absl::StatusOr<std::string> b = store->get("b", 5000ms);
    late.join();
    ASSERT_TRUE(b.ok()) << b.status();
    EXPECT_EQ(*b, std::string("\0x", 2));
    EXPECT_TRUE(store->wait({"a", "b"}, 1000ms).ok());
    absl::Status missing = store->wait({"a", "c"}, 100ms);
    EXPECT_EQ(missing.code(), absl::StatusCode::kDeadlineExceeded) << missing;
    absl::StatusOr<std::string> none = store->get("d", 100ms);
    EXPECT_EQ(none.status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_NE(none.status().message().find("'"), std::string::npos)
        << none.status();
  }
}

// cancel() ends a wait under way within a fraction of a second (not at its
// minute-long timeout) with a Cancelled error, and later waits at once,
// even for keys that are there; set() still works. Under a prefix too.
TEST(Store, CancelEndsWaitsAtOnce) {
  EveryStore stores("ofrt-store-cancel");
  for (std::shared_ptr<Store> store : stores.all) {
    SCOPED_TRACE(store->describe());
    ASSERT_TRUE(store->set("a", "1").ok());
    std::thread stopper([&] {
      std::this_thread::sleep_for(100ms);
      store->cancel();
    });
    auto began = std::chrono::steady_clock::now();
    absl::StatusOr<std::string> never = store->get("never", 60000ms);
    stopper.join();
    EXPECT_LT(std::chrono::steady_clock::now() - began, 2000ms);
    EXPECT_EQ(never.status().code(), absl::StatusCode::kCancelled)
        << never.status();
    EXPECT_EQ(store->wait({"a", "b"}, 60000ms).code(),
              absl::StatusCode::kCancelled);
    EXPECT_EQ(store->wait({"a"}, 60000ms).code(),
              absl::StatusCode::kCancelled);
    EXPECT_TRUE(store->set("c", "3").ok());
  }
}

TEST(Store, UnreachableRedisAndUncreatableDirectoryAreErrors) {
  absl::StatusOr<std::shared_ptr<Store>> redis = createRedisStore("127.0.0.1", 1);
  ASSERT_FALSE(redis.ok());
  EXPECT_NE(redis.status().message().find(
                "cannot reach the Redis server 127.0.0.1:1"),
            std::string::npos)
      << redis.status();
  absl::StatusOr<std::shared_ptr<Store>> file =
      createFileStore("/proc/no/such/store");
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find(
                "cannot create store directory '/proc/no/such/store'"),
            std::string::npos)
      << file.status();
}

// Ranks report to rank 0 through the store, under a topic; a rank that
// sends nothing is named after the timeout.
TEST(ControlChannel, RanksReportToRankZeroAndSilenceIsNamed) {
  std::shared_ptr<Store> store = createInProcessStore();
  std::vector<std::unique_ptr<ControlChannel>> channels;
  for (int r = 0; r < 3; ++r)
    channels.push_back(createStoreControlChannel(store, r, 3, 200ms));
  ASSERT_TRUE(channels[1]->send("result", "one").ok());
  ASSERT_TRUE(channels[2]->send("result", std::string(100000, 'x')).ok());
  absl::StatusOr<std::vector<std::string>> reports =
      channels[0]->gather("result");
  ASSERT_TRUE(reports.ok()) << reports.status();
  ASSERT_EQ(reports->size(), 3u);
  EXPECT_EQ((*reports)[1], "one");
  EXPECT_EQ((*reports)[2].size(), 100000u);
  ASSERT_TRUE(channels[1]->send("other", "late").ok());
  absl::StatusOr<std::vector<std::string>> partial =
      channels[0]->gather("other");
  ASSERT_FALSE(partial.ok());
  EXPECT_EQ(partial.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(partial.status().message().find(
                "rank 2 sent no other report within 200 ms"),
            std::string::npos)
      << partial.status();
}

} // namespace
