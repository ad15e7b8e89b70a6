//===- Calibration.cpp - Measuring the cost model's figures ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "CollectiveFigures.h"
#include "ComputeFigures.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

using namespace ofrt;
using namespace ofrt::calibration;

std::vector<std::vector<int64_t>> ofrt::twoAxisMeshes(int ranks) {
  std::vector<std::vector<int64_t>> meshes;
  for (int a = 2; a <= ranks / 2; ++a)
    if (ranks % a == 0)
      meshes.push_back({a, ranks / a});
  return meshes;
}

static absl::Status checkOptions(const CalibrationOptions &options) {
  auto invalid = [](const std::string &message) {
    return absl::InvalidArgumentError(message);
  };
  if (options.ranks < 2 || options.ranks > 256)
    return invalid("--ranks " + std::to_string(options.ranks) +
                   " is not between 2 and 256 (collectives need two ranks)");
  if (options.repeats < 1)
    return invalid("--repeats " + std::to_string(options.repeats) +
                   " is not at least 1");
  if (options.threads < 0 || options.threads > 4096)
    return invalid("--threads " + std::to_string(options.threads) +
                   " is not 0 (the library's default) to 4096");
  if (options.largeBytes < 4096 * options.ranks ||
      options.largeBytes > (int64_t(1) << 32))
    return invalid("--large-bytes " + std::to_string(options.largeBytes) +
                   " is not between 4096 x ranks and 4 GiB");
  for (const std::vector<int64_t> &mesh : options.meshes) {
    int64_t product = 1;
    for (int64_t d : mesh)
      product *= d;
    if (product != options.ranks)
      return invalid("a mesh of " + std::to_string(product) + " ranks, not " +
                     std::to_string(options.ranks));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string>
ofrt::calibrateCluster(const CalibrationOptions &options) {
  if (absl::Status status = checkOptions(options); !status.ok())
    return status;
  RankPlacement placement = RankPlacement::of(options.ranks, options.threads);
  report(options, "of-calibrate: %d ranks as threads, %s%s\n", options.ranks,
         options.library.c_str(),
         placement.cores.empty() ? "" : ", rank r on core r mod cores");
  absl::StatusOr<nlohmann::ordered_json> collectives =
      measureCollectives(options, placement);
  if (!collectives.ok())
    return collectives.status();
  absl::StatusOr<nlohmann::ordered_json> compute =
      measureCompute(options, placement);
  if (!compute.ok())
    return compute.status();

  nlohmann::ordered_json cluster;
  cluster["ranks_per_node"] = options.ranks;
  // The link figures are the all-reduce's (what propagation prices most);
  // the per-collective ones refine them for groups inside a node.
  cluster["intra_node"] = (*collectives)["collectives"]["all_reduce"];
  cluster["inter_node"] = (*collectives)["collectives"]["all_reduce"];
  for (auto &[key, value] : collectives->items())
    cluster[key] = value;
  for (auto &[key, value] : compute->items())
    cluster[key] = value;
  return cluster.dump(2) + "\n";
}

absl::Status ofrt::writeFileWhole(const std::string &path,
                                  const std::string &text) {
  // Of this process: two runs that measure at once write their own.
  std::string temp = path + ".partial." + std::to_string(getpid());
  std::ofstream file(temp, std::ios::trunc);
  file << text;
  file.close();
  std::error_code renamed;
  if (file.good())
    std::filesystem::rename(temp, path, renamed);
  if (!file.good() || renamed) {
    std::error_code ignored;
    std::filesystem::remove(temp, ignored);
    return absl::UnavailableError("'" + path + "': writing failed");
  }
  return absl::OkStatus();
}
