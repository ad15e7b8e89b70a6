//===- of-calibrate.cpp - Measure the cost model's cluster figures --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Writes the cluster file that oneflow-auto-parallel, oneflow-sbp-propagation
// and oneflow-report-boxing-cost read (CostModel.h), measured on this
// machine with N ranks as threads of this process, all at once, as of-run
// --devices cpu:N runs them:
//
//   per collective (all-reduce, reduce-scatter, all-gather, all-to-all) on
//   the N ranks: alpha and beta fitted to a small and a large call, from
//     all-reduce  t = 2(p-1) alpha + 2(p-1)/p n / beta
//     the others  t =  (p-1) alpha +  (p-1)/p n / beta
//   flops: what one rank's oneDNN matmul reaches while every rank runs one;
//   memory bandwidth: one rank's memcpy while every rank copies;
//   kernel overhead: one rank's tiny oneDNN ReLU while every rank runs them.
//
// With --mesh 2x2 (any mesh of the N ranks in order), the collectives also
// per mesh axis: every group along the axis calls at once, alpha and beta
// fitted with p = the axis's size ("mesh_axes" in the file). When the ranks
// outnumber the cores and --threads is at most 1, rank r runs on the r-th
// allowed core in turn, as of-run places them, so that groups of ranks
// sharing a core are measured as they run.
//
// Each figure is the best of --repeats runs. Links the runtime, no MLIR.
//
//===----------------------------------------------------------------------===//

#include "ToolFlags.h"

#include "ofrt/Collectives.h"
#include "ofrt/Communicator.h"
#include "ofrt/Device.h"

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"

#include <pthread.h>
#include <sched.h>

#include <nlohmann/json.hpp>
#include <omp.h>
#include <oneapi/dnnl/dnnl.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

ABSL_FLAG(int, ranks, 2, "Ranks (threads of this process) to measure with");
ABSL_FLAG(std::string, out, "", "The cluster file to write (JSON)");
ABSL_FLAG(std::string, library, "inproc",
          "The collective library: inproc (as of-run's in-process ranks) or "
          "gloo");
ABSL_FLAG(int, threads, 0,
          "Threads for each rank's matmul (0: the library's default), as "
          "of-run --threads");
ABSL_FLAG(int, repeats, 5, "Runs of each measurement; the best counts");
ABSL_FLAG(int64_t, large_bytes, 16 << 20,
          "Bytes of the large collective call that fits beta");
ABSL_FLAG(std::vector<std::string>, mesh, {},
          "Meshes of the ranks (for example 2x2) whose axes to measure the "
          "collectives on, each axis's groups at once");

using Clock = std::chrono::steady_clock;

static int fail(const std::string &message) {
  std::fprintf(stderr, "of-calibrate: error: %s\n", message.c_str());
  return 1;
}

/// The core each rank's thread runs on, when ranks outnumber the cores
/// (as of-run places them); empty: wherever the system puts them.
static std::vector<int> rankCores;

static void pinRank(int rank) {
  if (rankCores.empty())
    return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(rankCores[rank % rankCores.size()], &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/// Best over `repeats` of the slowest rank's seconds for `body`, every rank
/// a thread, all starting together.
static double timeRanks(int ranks, int repeats,
                        const std::function<void(int)> &body) {
  double best = 1e30;
  for (int r = 0; r < repeats; ++r) {
    std::vector<double> seconds(ranks);
    std::atomic<int> arrived{0};
    std::vector<std::thread> threads;
    for (int i = 0; i < ranks; ++i)
      threads.emplace_back([&, i] {
        pinRank(i);
        // Start together: the timing is of every rank at once.
        arrived.fetch_add(1);
        while (arrived.load() < ranks)
          std::this_thread::yield();
        auto begin = Clock::now();
        body(i);
        seconds[i] =
            std::chrono::duration<double>(Clock::now() - begin).count();
      });
    for (std::thread &thread : threads)
      thread.join();
    best = std::min(best, *std::max_element(seconds.begin(), seconds.end()));
  }
  return best;
}

/// "2x2" for {2, 2}.
static std::string meshText(const std::vector<int64_t> &mesh) {
  std::string text;
  for (int64_t d : mesh)
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

/// Rank r's communicator in the group along `axis` of `mesh` (ranks 0 ..
/// N-1 in row-major order), every rank joining at once.
static absl::StatusOr<std::vector<std::unique_ptr<ofrt::Communicator>>>
joinAxis(ofrt::LocalGroup &group, const std::vector<int64_t> &mesh,
         size_t axis) {
  int64_t stride = 1;
  for (size_t d = axis + 1; d < mesh.size(); ++d)
    stride *= mesh[d];
  return ofrt::joinLocalGroups(
      group,
      [&](int r) {
        int64_t position = (r / stride) % mesh[axis];
        std::vector<int64_t> members;
        for (int64_t i = 0; i < mesh[axis]; ++i)
          members.push_back(r + (i - position) * stride);
        return members;
      },
      "mesh" + meshText(mesh) + "/axis" + std::to_string(axis));
}

/// Alpha and beta of the four collectives on groups of `p` ranks (comms[r]
/// is rank r's communicator in its group; every group calls at once),
/// fitted to a small call (one element per member, many per timing) and a
/// large one (`count` elements per rank), printed under `title`:
///   all-reduce  t = 2(p-1) alpha + 2(p-1)/p n / beta
///   the others  t =  (p-1) alpha +  (p-1)/p n / beta
static absl::StatusOr<nlohmann::ordered_json>
fitCollectives(const std::vector<ofrt::Communicator *> &comms, int p,
               int64_t count, int repeats, std::vector<std::vector<float>> &in,
               std::vector<std::vector<float>> &out, const std::string &title) {
  using Call = std::function<absl::Status(ofrt::Communicator &, int, int64_t)>;
  struct Collective {
    const char *name;
    double alphaFactor; // multiplies alpha
    double betaFactor;  // multiplies n / beta
    Call call;
  };
  double q = p;
  std::vector<Collective> collectives = {
      {"all_reduce", 2 * (q - 1), 2 * (q - 1) / q,
       [&](ofrt::Communicator &c, int r, int64_t n) {
         return c.allReduce(ofrt::DType::F32, in[r].data(), out[r].data(), n);
       }},
      {"reduce_scatter", q - 1, (q - 1) / q,
       [&](ofrt::Communicator &c, int r, int64_t n) {
         return c.reduceScatter(ofrt::DType::F32, in[r].data(), out[r].data(),
                                n);
       }},
      {"all_gather", q - 1, (q - 1) / q,
       [&](ofrt::Communicator &c, int r, int64_t n) {
         return c.allGather(ofrt::DType::F32, in[r].data(), out[r].data(), n);
       }},
      {"all_to_all", q - 1, (q - 1) / q,
       [&](ofrt::Communicator &c, int r, int64_t n) {
         return c.allToAll(ofrt::DType::F32, in[r].data(), out[r].data(), n);
       }},
  };
  int ranks = comms.size();
  std::printf("  %-15s %12s %12s %12s %12s   (%s)\n", "collective",
              "small us", "large us", "alpha s", "beta B/s", title.c_str());
  nlohmann::ordered_json figures = nlohmann::ordered_json::object();
  absl::Status failed;
  std::mutex mutex;
  auto check = [&](absl::Status status) {
    if (status.ok())
      return true;
    std::lock_guard<std::mutex> lock(mutex);
    failed.Update(status);
    return false;
  };
  for (const Collective &collective : collectives) {
    const int calls = 100;
    double small = timeRanks(ranks, repeats,
                             [&](int r) {
                               for (int i = 0; i < calls; ++i)
                                 if (!check(collective.call(*comms[r], r, p)))
                                   return;
                             }) /
                   calls;
    double large = timeRanks(ranks, repeats, [&](int r) {
      check(collective.call(*comms[r], r, count));
    });
    if (!failed.ok())
      return absl::Status(failed.code(), title + ": " + collective.name + ": " +
                                             std::string(failed.message()));
    double alpha = small / collective.alphaFactor;
    double bytes = count * 4.0;
    double transfer = large - collective.alphaFactor * alpha;
    double beta = collective.betaFactor * bytes / std::max(transfer, 1e-9);
    figures[collective.name] = {{"alpha", alpha}, {"beta", beta}};
    std::printf("  %-15s %12.1f %12.1f %12.3g %12.3g\n", collective.name,
                small * 1e6, large * 1e6, alpha, beta);
  }
  return figures;
}

int main(int argc, char **argv) {
  std::vector<std::string> normalized;
  std::vector<std::string> args = oftools::parseToolFlags(
      argc, argv,
      {"of-calibrate",
       "measure this machine's collectives, matmul throughput and memory "
       "bandwidth and write the cluster file of the cost model",
       "of-calibrate --ranks N --out cluster.json [flags]",
       {{"Calibration",
         {"ranks", "out", "library", "threads", "repeats", "large_bytes",
          "mesh"}}}},
      normalized);
  if (args.size() != 1)
    return fail("takes no positional arguments; see --help");
  int ranks = absl::GetFlag(FLAGS_ranks);
  std::string out = absl::GetFlag(FLAGS_out);
  int repeats = absl::GetFlag(FLAGS_repeats);
  int64_t largeBytes = absl::GetFlag(FLAGS_large_bytes);
  if (ranks < 2 || ranks > 256)
    return fail("--ranks " + std::to_string(ranks) +
                " is not between 2 and 256 (collectives need two ranks)");
  if (out.empty())
    return fail("--out names the cluster file to write; it is required");
  if (repeats < 1)
    return fail("--repeats " + std::to_string(repeats) + " is not at least 1");
  if (absl::GetFlag(FLAGS_threads) < 0 || absl::GetFlag(FLAGS_threads) > 4096)
    return fail("--threads " + std::to_string(absl::GetFlag(FLAGS_threads)) +
                " is not 0 (the library's default) to 4096");
  if (largeBytes < 4096 * ranks || largeBytes > (int64_t(1) << 32))
    return fail("--large-bytes " + std::to_string(largeBytes) +
                " is not between 4096 x ranks and 4 GiB");
  std::vector<std::vector<int64_t>> meshes;
  for (const std::string &text : absl::GetFlag(FLAGS_mesh)) {
    std::vector<int64_t> mesh;
    int64_t product = 1;
    for (absl::string_view size : absl::StrSplit(text, 'x')) {
      int64_t d = 0;
      if (!absl::SimpleAtoi(size, &d) || d < 1)
        return fail("--mesh '" + text +
                    "' must be sizes of at least 1 joined by x (for example "
                    "2x2)");
      mesh.push_back(d);
      product *= d;
    }
    if (product != ranks)
      return fail("--mesh '" + text + "' has " + std::to_string(product) +
                  " ranks, not --ranks " + std::to_string(ranks));
    meshes.push_back(mesh);
  }
  // Whether --out can be written, before measuring; a file the probe
  // creates goes again, so that an error below leaves nothing behind.
  bool existed = std::filesystem::exists(out);
  std::ofstream probe(out, std::ios::app);
  if (!probe)
    return fail("--out '" + out + "': cannot write there");
  probe.close();
  if (!existed)
    std::filesystem::remove(out);

  auto group = ofrt::createLocalGroup(ofrt::CollectivesRegistry::global(),
                                      absl::GetFlag(FLAGS_library), ranks,
                                      std::chrono::seconds(120));
  if (!group.ok())
    return fail(std::string(group.status().message()));
  auto &comms = group->ranks;
  // As of-run: ranks that outnumber the cores, each on one thread, take
  // the allowed cores in turn.
  int threads = absl::GetFlag(FLAGS_threads);
  if (std::vector<int> cores = ofrt::allowedCores();
      threads <= 1 && !cores.empty() &&
      int64_t(ranks) * std::max(1, threads) > int64_t(cores.size()))
    rankCores = cores;

  // Buffers of the large call, per rank: whole tensors in and out.
  int64_t count = largeBytes / 4 / ranks * ranks;
  std::vector<std::vector<float>> in(ranks, std::vector<float>(count, 1.0f));
  std::vector<std::vector<float>> outBuf(ranks, std::vector<float>(count));

  nlohmann::ordered_json cluster;
  cluster["ranks_per_node"] = ranks;
  std::printf("of-calibrate: %d ranks as threads, %s%s\n", ranks,
              absl::GetFlag(FLAGS_library).c_str(),
              rankCores.empty() ? "" : ", rank r on core r mod cores");
  std::vector<ofrt::Communicator *> whole;
  for (auto &comm : comms)
    whole.push_back(comm.get());
  absl::StatusOr<nlohmann::ordered_json> perCollective = fitCollectives(
      whole, ranks, count, repeats, in, outBuf, "all " + std::to_string(ranks));
  if (!perCollective.ok())
    return fail(std::string(perCollective.status().message()));

  // Per mesh axis: every group along the axis at once.
  nlohmann::ordered_json meshAxes = nlohmann::ordered_json::array();
  for (const std::vector<int64_t> &mesh : meshes) {
    for (size_t axis = 0; axis < mesh.size(); ++axis) {
      if (mesh[axis] < 2)
        continue;
      absl::StatusOr<std::vector<std::unique_ptr<ofrt::Communicator>>>
          axisComms = joinAxis(*group, mesh, axis);
      if (!axisComms.ok())
        return fail(std::string(axisComms.status().message()));
      std::vector<ofrt::Communicator *> members;
      for (auto &comm : *axisComms)
        members.push_back(comm.get());
      std::string title = meshText(mesh) + " axis " + std::to_string(axis);
      absl::StatusOr<nlohmann::ordered_json> figures =
          fitCollectives(members, mesh[axis], count, repeats, in, outBuf, title);
      if (!figures.ok())
        return fail(std::string(figures.status().message()));
      meshAxes.push_back(
          {{"mesh", mesh}, {"axis", axis}, {"collectives", *figures}});
    }
  }

  // Memory bandwidth: every rank copies its large buffer.
  double copy = timeRanks(ranks, repeats, [&](int r) {
    std::memcpy(outBuf[r].data(), in[r].data(), count * 4);
  });
  double bandwidth = count * 4.0 / copy;

  // Flops: every rank runs a 512^3 oneDNN matmul at once (primitives made
  // and run once before the timing).
  const int64_t m = 512;
  using namespace dnnl;
  struct Matmul {
    engine eng{engine::kind::cpu, 0};
    stream strm{eng};
    memory::desc desc{{m, m}, memory::data_type::f32, memory::format_tag::ab};
    matmul prim{matmul::primitive_desc(matmul::desc(desc, desc, desc), eng)};
    std::vector<float> a = std::vector<float>(m * m, 0.5f);
    std::vector<float> b = std::vector<float>(m * m, 0.25f);
    std::vector<float> c = std::vector<float>(m * m);
    memory am{desc, eng, a.data()}, bm{desc, eng, b.data()},
        cm{desc, eng, c.data()};
    void run() {
      prim.execute(
          strm,
          {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
      strm.wait();
    }
  };
  std::vector<std::unique_ptr<Matmul>> matmuls(ranks);
  timeRanks(ranks, 1, [&](int r) {
    if (threads > 0)
      omp_set_num_threads(threads);
    matmuls[r] = std::make_unique<Matmul>();
    matmuls[r]->run();
  });
  double matmul = timeRanks(ranks, repeats, [&](int r) {
    if (threads > 0)
      omp_set_num_threads(threads);
    matmuls[r]->run();
  });
  double flops = 2.0 * m * m * m / matmul;

  // Kernel overhead: a ReLU of 64 floats, many per timing, every rank at
  // once (what a tiny op costs beyond its bytes).
  struct Tiny {
    engine eng{engine::kind::cpu, 0};
    stream strm{eng};
    memory::desc desc{{64}, memory::data_type::f32, memory::format_tag::a};
    eltwise_forward prim{eltwise_forward::primitive_desc(
        eltwise_forward::desc(prop_kind::forward_inference,
                              algorithm::eltwise_relu, desc, 0.0f),
        eng)};
    std::vector<float> x = std::vector<float>(64, -1.0f);
    std::vector<float> y = std::vector<float>(64);
    memory xm{desc, eng, x.data()}, ym{desc, eng, y.data()};
    void run() {
      prim.execute(strm, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_DST, ym}});
      strm.wait();
    }
  };
  std::vector<std::unique_ptr<Tiny>> tinies(ranks);
  timeRanks(ranks, 1, [&](int r) {
    if (threads > 0)
      omp_set_num_threads(threads);
    tinies[r] = std::make_unique<Tiny>();
    tinies[r]->run();
  });
  const int tinyCalls = 1000;
  double overhead = timeRanks(ranks, repeats,
                              [&](int r) {
                                if (threads > 0)
                                  omp_set_num_threads(threads);
                                for (int i = 0; i < tinyCalls; ++i)
                                  tinies[r]->run();
                              }) /
                    tinyCalls;
  std::printf("  memory bandwidth per rank %.3g B/s, matmul per rank %.3g "
              "flop/s, kernel overhead %.3g s\n",
              bandwidth, flops, overhead);

  // The link figures are the all-reduce's (what propagation prices most);
  // the per-collective ones refine them for groups inside a node.
  cluster["intra_node"] = (*perCollective)["all_reduce"];
  cluster["inter_node"] = (*perCollective)["all_reduce"];
  cluster["collectives"] = *perCollective;
  if (!meshAxes.empty())
    cluster["mesh_axes"] = meshAxes;
  cluster["memory_bandwidth"] = bandwidth;
  cluster["flops"] = flops;
  cluster["op_overhead"] = overhead;
  // Written whole or not at all: a temporary file renamed over --out.
  std::string temp = out + ".partial";
  std::ofstream file(temp, std::ios::trunc);
  file << cluster.dump(2) << "\n";
  file.close();
  std::error_code renamed;
  if (file.good())
    std::filesystem::rename(temp, out, renamed);
  if (!file.good() || renamed) {
    std::filesystem::remove(temp);
    return fail("--out '" + out + "': writing failed");
  }
  std::printf("wrote %s\n", out.c_str());
  return 0;
}
