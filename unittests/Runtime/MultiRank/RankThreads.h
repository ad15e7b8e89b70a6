//===- RankThreads.h - Ranks as threads, logical test tensors ---*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Test helpers: run a body on every rank of an in-process job (each rank a
// thread with its own CommunicatorPool over one store), under a watchdog;
// build logical tensors and cut them into pieces with the balanced split,
// independently of the kernels under test.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_MULTIRANK_RANKTHREADS_H
#define ONEFLOW_UNITTESTS_RUNTIME_MULTIRANK_RANKTHREADS_H

#include "../TestRoles.h"
#include "ofrt/Backend.h"
#include "ofrt/CommunicatorPool.h"
#include "ofrt/Kernel.h"

#include "../Watchdog.h"

#include "gtest/gtest.h"

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <future>
#include <thread>

namespace oftest {

using namespace std::chrono_literals;
using Shape = std::vector<int64_t>;

/// Rank `rank`'s pool of the collective library `library`, meeting in
/// `store`.
inline std::unique_ptr<ofrt::CommunicatorPool>
makePool(int rank, int world, std::shared_ptr<ofrt::Store> store,
         std::chrono::milliseconds timeout,
         const std::string &library = "inproc") {
  ofrt::CollectivesOptions options;
  options.rank = rank;
  options.worldSize = world;
  options.store = std::move(store);
  options.timeout = timeout;
  auto pool = ofrt::CommunicatorPool::create(
      ofrt::CollectivesRegistry::global(), library, options);
  EXPECT_TRUE(pool.ok()) << pool.status();
  return pool.ok() ? std::move(*pool) : nullptr;
}

/// Runs body(rank, pool) for ranks 0 .. world - 1, each in its own thread
/// with a pool of `library` over one in-process store; returns each rank's
/// status.
inline std::vector<absl::Status>
onRanks(int world,
        const std::function<absl::Status(int, ofrt::CommunicatorPool &)> &body,
        std::chrono::milliseconds timeout = 5000ms,
        const std::string &library = "inproc") {
  std::shared_ptr<ofrt::Store> store = ofrt::createInProcessStore();
  std::vector<absl::Status> statuses(world);
  withWatchdog([&] {
    std::vector<std::thread> threads;
    for (int r = 0; r < world; ++r)
      threads.emplace_back([&, r] {
        std::unique_ptr<ofrt::CommunicatorPool> pool =
            makePool(r, world, store, timeout, library);
        statuses[r] = pool ? body(r, *pool)
                           : absl::InternalError("no pool");
      });
    for (std::thread &thread : threads)
      thread.join();
  });
  return statuses;
}

inline void expectAllOk(const std::vector<absl::Status> &statuses) {
  for (size_t r = 0; r < statuses.size(); ++r)
    EXPECT_TRUE(statuses[r].ok()) << "rank " << r << ": " << statuses[r];
}

inline int64_t numel(const Shape &shape) {
  int64_t n = 1;
  for (int64_t dim : shape)
    n *= dim;
  return n;
}

/// An f32 tensor whose element i is scale * i + offset.
inline ofrt::TensorData iota(const Shape &shape, float scale = 1,
                             float offset = 0) {
  ofrt::TensorData t{{ofrt::DType::F32, shape}, {}};
  t.bytes.resize(t.desc.bytes());
  auto *data = reinterpret_cast<float *>(t.bytes.data());
  for (int64_t i = 0; i < numel(shape); ++i)
    data[i] = scale * i + offset;
  return t;
}

/// Element values of an f32 tensor.
inline std::vector<float> values(const ofrt::TensorData &t) {
  const auto *data = reinterpret_cast<const float *>(t.bytes.data());
  return std::vector<float>(data, data + t.desc.numel());
}

/// The box [begin, begin + size) of an f32 tensor, by plain index loops.
inline ofrt::TensorData box(const ofrt::TensorData &t, const Shape &begin,
                            const Shape &size) {
  ofrt::TensorData out{{t.desc.dtype, size}, {}};
  out.bytes.resize(out.desc.bytes());
  const auto *in = reinterpret_cast<const float *>(t.bytes.data());
  auto *o = reinterpret_cast<float *>(out.bytes.data());
  const Shape &shape = t.desc.shape;
  for (int64_t i = 0; i < numel(size); ++i) {
    int64_t rest = i, src = 0, stride = 1;
    std::vector<int64_t> index(size.size());
    for (size_t d = size.size(); d-- > 0;) {
      index[d] = rest % size[d];
      rest /= size[d];
    }
    for (size_t d = size.size(); d-- > 0;) {
      src += (begin[d] + index[d]) * stride;
      stride *= shape[d];
    }
    o[i] = in[src];
  }
  return out;
}

/// Part `index` of `parts` of `length`: the first length % parts parts are
/// one longer (OneFlow's balanced split), computed here independently.
inline std::pair<int64_t, int64_t> part(int64_t length, int64_t parts,
                                        int64_t index) {
  int64_t base = length / parts, extra = length % parts;
  int64_t begin = index * base + std::min(index, extra);
  return {begin, base + (index < extra ? 1 : 0)};
}

/// Rank `index`'s piece of `t` split along `axis` over `parts`.
inline ofrt::TensorData splitPiece(const ofrt::TensorData &t, int64_t axis,
                                   int64_t parts, int64_t index) {
  Shape begin(t.desc.rank(), 0), size = t.desc.shape;
  auto [b, s] = part(t.desc.shape[axis], parts, index);
  begin[axis] = b;
  size[axis] = s;
  return box(t, begin, size);
}

/// An OpDesc for a kernel test.
inline ofrt::OpDesc makeOp(const std::string &type,
                           std::map<std::string, ofrt::AttrValue> attrs,
                           std::vector<ofrt::TensorDesc> inputs,
                           std::vector<ofrt::TensorDesc> outputs,
                           ofrt::ActorLayout layout = {}) {
  ofrt::OpDesc op;
  op.type = type;
  op.role = roleOf(type);
  op.name = type.substr(8);
  op.attrs = std::move(attrs);
  op.layout = std::move(layout);
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  return op;
}

} // namespace oftest

#endif // ONEFLOW_UNITTESTS_RUNTIME_MULTIRANK_RANKTHREADS_H
