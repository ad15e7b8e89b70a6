//===- collective_alpha_beta.cpp - Measure the cost model's constants -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Fits the alpha-beta model to a collective library (gloo unless
// `--library L` names another) with 2 ranks as threads of this process
// (gloo is the setting `ClusterDesc::getDefault` was measured in):
//
//   alpha = t(all-reduce of 8 bytes) / 2          (2(p-1) alpha, p = 2)
//   beta  = n / (t(all-reduce of n bytes) - 2 alpha)   (2(p-1)/p n = n)
//
// then checks the fit against an all-gather of the same size, whose model
// time is alpha + n / (2 beta), printing the ratio measured / predicted.
// Also prints a single-thread memcpy bandwidth. Best of several runs each.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Communicator.h"
#include "ofrt/Backend.h"
#include "ofrt/Collectives.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using namespace ofrt;
using Clock = std::chrono::steady_clock;

/// Best seconds over `repeats` of `body` run on every rank at once.
static double timeCollective(std::vector<std::unique_ptr<Communicator>> &group,
                             int repeats,
                             const std::function<void(Communicator &)> &body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    std::vector<double> seconds(group.size());
    std::vector<std::thread> threads;
    for (size_t i = 0; i < group.size(); ++i)
      threads.emplace_back([&, i] {
        auto start = Clock::now();
        body(*group[i]);
        seconds[i] =
            std::chrono::duration<double>(Clock::now() - start).count();
      });
    for (std::thread &thread : threads)
      thread.join();
    best = std::min(best, *std::max_element(seconds.begin(), seconds.end()));
  }
  return best;
}

int main(int argc, char **argv) {
  std::string library = "gloo";
  if (argc == 3 && !std::strcmp(argv[1], "--library"))
    library = argv[2];
  auto local = createLocalGroup(CollectivesRegistry::global(), library, 2,
                                std::chrono::seconds(60));
  if (!local.ok()) {
    std::fprintf(stderr, "%s\n", local.status().ToString().c_str());
    return 1;
  }
  std::vector<std::unique_ptr<Communicator>> *group = &local->ranks;
  std::printf("%s, 2 ranks as threads\n", library.c_str());
  const int64_t small = 2, large = 16 << 20; // f32 elements: 8 B, 64 MiB
  std::vector<std::vector<float>> in(2, std::vector<float>(large, 1.0f));
  std::vector<std::vector<float>> out(2, std::vector<float>(large));

  // Many small all-reduces per timing, so that the clock's cost vanishes.
  const int smallCalls = 200;
  double tSmall = timeCollective(*group, 5, [&](Communicator &comm) {
    for (int i = 0; i < smallCalls; ++i)
      (void)comm.allReduce(DType::F32, in[comm.rank()].data(),
                           out[comm.rank()].data(), small);
  }) / smallCalls;
  double tLarge = timeCollective(*group, 5, [&](Communicator &comm) {
    (void)comm.allReduce(DType::F32, in[comm.rank()].data(),
                         out[comm.rank()].data(), large);
  });
  double tGather = timeCollective(*group, 5, [&](Communicator &comm) {
    (void)comm.allGather(DType::F32, in[comm.rank()].data(),
                         out[comm.rank()].data(), large);
  });

  double bytes = large * sizeof(float);
  double alpha = tSmall / 2;
  double beta = bytes / (tLarge - 2 * alpha);
  double predictedGather = alpha + bytes / 2 / beta;

  double tCopy = 1e30;
  for (int r = 0; r < 5; ++r) {
    auto start = Clock::now();
    std::memcpy(out[0].data(), in[0].data(), bytes);
    tCopy = std::min(
        tCopy, std::chrono::duration<double>(Clock::now() - start).count());
  }

  std::printf("all-reduce 8 B:      %10.1f us  -> alpha = %.3g s\n",
              tSmall * 1e6, alpha);
  std::printf("all-reduce 64 MiB:   %10.1f us  -> beta  = %.3g B/s\n",
              tLarge * 1e6, beta);
  std::printf("all-gather 64 MiB:   %10.1f us  (model %.1f us, measured / "
              "model = %.2f)\n",
              tGather * 1e6, predictedGather * 1e6, tGather / predictedGather);
  std::printf("memcpy 64 MiB:       %10.1f us  -> memory bandwidth = %.3g "
              "B/s\n",
              tCopy * 1e6, bytes / tCopy);
  return 0;
}
