//===- CollectiveFigures.cpp - Alpha and beta of the collectives ----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Per collective, alpha and beta fitted to a small call (one element per
// member, many per timing) and a large one, every group calling at once:
//
//   all-reduce  t = 2(p-1) alpha + 2(p-1)/p n / beta
//   the others  t =  (p-1) alpha +  (p-1)/p n / beta
//
//===----------------------------------------------------------------------===//

#include "CollectiveFigures.h"

#include "ofrt/Collectives.h"
#include "ofrt/Communicator.h"

#include <algorithm>
#include <chrono>
#include <mutex>

using namespace ofrt;
using namespace ofrt::calibration;

namespace {

/// The ranks' buffers of the large call: whole tensors in and out.
struct Buffers {
  int64_t count = 0;
  std::vector<std::vector<float>> in, out;
};

/// "2x2" for {2, 2}.
std::string meshText(const std::vector<int64_t> &mesh) {
  std::string text;
  for (int64_t d : mesh)
    text += (text.empty() ? "" : "x") + std::to_string(d);
  return text;
}

/// Rank r's communicator in the group along `axis` of `mesh` (ranks 0 ..
/// N-1 in row-major order), every rank joining at once.
absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
joinAxis(LocalGroup &group, const std::vector<int64_t> &mesh, size_t axis) {
  int64_t stride = 1;
  for (size_t d = axis + 1; d < mesh.size(); ++d)
    stride *= mesh[d];
  return joinLocalGroups(
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
/// printed under `title`.
absl::StatusOr<nlohmann::ordered_json>
fitCollectives(const CalibrationOptions &options,
               const RankPlacement &placement,
               const std::vector<Communicator *> &comms, int p,
               Buffers &buffers, const std::string &title) {
  using Call = std::function<absl::Status(Communicator &, int, int64_t)>;
  struct Collective {
    const char *name;
    double alphaFactor; // multiplies alpha
    double betaFactor;  // multiplies n / beta
    Call call;
  };
  auto &in = buffers.in;
  auto &out = buffers.out;
  double q = p;
  std::vector<Collective> collectives = {
      {"all_reduce", 2 * (q - 1), 2 * (q - 1) / q,
       [&](Communicator &c, int r, int64_t n) {
         return c.allReduce(DType::F32, in[r].data(), out[r].data(), n);
       }},
      {"reduce_scatter", q - 1, (q - 1) / q,
       [&](Communicator &c, int r, int64_t n) {
         return c.reduceScatter(DType::F32, in[r].data(), out[r].data(), n);
       }},
      {"all_gather", q - 1, (q - 1) / q,
       [&](Communicator &c, int r, int64_t n) {
         return c.allGather(DType::F32, in[r].data(), out[r].data(), n);
       }},
      {"all_to_all", q - 1, (q - 1) / q,
       [&](Communicator &c, int r, int64_t n) {
         return c.allToAll(DType::F32, in[r].data(), out[r].data(), n);
       }},
  };
  int ranks = comms.size();
  report(options, "  %-15s %12s %12s %12s %12s   (%s)\n", "collective",
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
    double small = timeRanks(placement, ranks, options.repeats,
                             [&](int r) {
                               for (int i = 0; i < calls; ++i)
                                 if (!check(collective.call(*comms[r], r, p)))
                                   return;
                             }) /
                   calls;
    double large = timeRanks(placement, ranks, options.repeats, [&](int r) {
      check(collective.call(*comms[r], r, buffers.count));
    });
    if (!failed.ok())
      return absl::Status(failed.code(), title + ": " + collective.name + ": " +
                                             std::string(failed.message()));
    double alpha = small / collective.alphaFactor;
    double bytes = buffers.count * 4.0;
    double transfer = large - collective.alphaFactor * alpha;
    double beta = collective.betaFactor * bytes / std::max(transfer, 1e-9);
    figures[collective.name] = {{"alpha", alpha}, {"beta", beta}};
    report(options, "  %-15s %12.1f %12.1f %12.3g %12.3g\n", collective.name,
           small * 1e6, large * 1e6, alpha, beta);
  }
  return figures;
}

} // namespace

absl::StatusOr<nlohmann::ordered_json>
calibration::measureCollectives(const CalibrationOptions &options,
                                const RankPlacement &placement) {
  int ranks = options.ranks;
  absl::StatusOr<LocalGroup> group =
      createLocalGroup(CollectivesRegistry::global(), options.library, ranks,
                       std::chrono::seconds(120));
  if (!group.ok())
    return group.status();
  Buffers buffers;
  buffers.count = options.largeBytes / 4 / ranks * ranks;
  buffers.in.assign(ranks, std::vector<float>(buffers.count, 1.0f));
  buffers.out.assign(ranks, std::vector<float>(buffers.count));

  std::vector<Communicator *> whole;
  for (auto &comm : group->ranks)
    whole.push_back(comm.get());
  absl::StatusOr<nlohmann::ordered_json> all =
      fitCollectives(options, placement, whole, ranks, buffers,
                     "all " + std::to_string(ranks));
  if (!all.ok())
    return all.status();
  nlohmann::ordered_json result;
  result["collectives"] = *all;

  // Per mesh axis: every group along the axis at once.
  nlohmann::ordered_json meshAxes = nlohmann::ordered_json::array();
  for (const std::vector<int64_t> &mesh : options.meshes) {
    for (size_t axis = 0; axis < mesh.size(); ++axis) {
      if (mesh[axis] < 2)
        continue;
      absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> axisComms =
          joinAxis(*group, mesh, axis);
      if (!axisComms.ok())
        return axisComms.status();
      std::vector<Communicator *> members;
      for (auto &comm : *axisComms)
        members.push_back(comm.get());
      std::string title = meshText(mesh) + " axis " + std::to_string(axis);
      absl::StatusOr<nlohmann::ordered_json> figures = fitCollectives(
          options, placement, members, mesh[axis], buffers, title);
      if (!figures.ok())
        return figures.status();
      meshAxes.push_back(
          {{"mesh", mesh}, {"axis", axis}, {"collectives", *figures}});
    }
  }
  if (!meshAxes.empty())
    result["mesh_axes"] = meshAxes;
  return result;
}
