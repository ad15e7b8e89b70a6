//===- Calibration.cpp - Measuring the cost model's figures ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "CollectiveFigures.h"
#include "ComputeFigures.h"

#include <unistd.h>

#include <algorithm>
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

/// Each number of `passes` (JSON documents of one shape: the same keys and
/// array lengths) replaced by its median over them.
static nlohmann::ordered_json
medianOf(const std::vector<nlohmann::ordered_json> &passes) {
  const nlohmann::ordered_json &first = passes.front();
  bool same = std::all_of(passes.begin(), passes.end(),
                          [&](const auto &pass) { return pass == first; });
  if (same) // sizes, mesh shapes: as they are (integers stay integers)
    return first;
  if (first.is_number()) {
    std::vector<double> values;
    for (const nlohmann::ordered_json &pass : passes)
      values.push_back(pass.get<double>());
    std::sort(values.begin(), values.end());
    size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }
  if (!first.is_structured())
    return first;
  nlohmann::ordered_json merged = first;
  auto mergeAt = [&](auto key) {
    std::vector<nlohmann::ordered_json> parts;
    for (const nlohmann::ordered_json &pass : passes)
      parts.push_back(pass[key]);
    merged[key] = medianOf(parts);
  };
  if (first.is_object())
    for (auto &[key, value] : first.items())
      mergeAt(key);
  else
    for (size_t i = 0; i < first.size(); ++i)
      mergeAt(i);
  return merged;
}

absl::StatusOr<std::string>
ofrt::calibrateCluster(const CalibrationOptions &options) {
  if (absl::Status status = checkOptions(options); !status.ok())
    return status;
  RankPlacement placement = RankPlacement::of(options.ranks, options.threads);
  report(options, "of-calibrate: %d ranks as threads, %s%s\n", options.ranks,
         options.library.c_str(),
         placement.cores.empty() ? "" : ", rank r on core r mod cores");
  // The repeats are spread over up to three passes of every figure, and
  // each figure is its median over the passes (each pass's the best of its
  // runs): a few seconds of a busy machine (ranks sharing cores, a VM's
  // neighbours) then move one pass, not the figure. On this 2-core VM one
  // pass of 4 ranks gave kernel firings of 1.4 to 3.4 us from run to run.
  int passCount = std::min(options.repeats, 3);
  CalibrationOptions pass = options;
  pass.repeats = std::max(1, options.repeats / passCount);
  std::vector<nlohmann::ordered_json> collectivePasses, computePasses;
  for (int p = 0; p < passCount; ++p) {
    if (passCount > 1)
      report(options, "pass %d of %d\n", p + 1, passCount);
    absl::StatusOr<nlohmann::ordered_json> collectives =
        measureCollectives(pass, placement);
    if (!collectives.ok())
      return collectives.status();
    absl::StatusOr<nlohmann::ordered_json> compute =
        measureCompute(pass, placement);
    if (!compute.ok())
      return compute.status();
    collectivePasses.push_back(*std::move(collectives));
    computePasses.push_back(*std::move(compute));
  }
  if (passCount > 1)
    report(options, "each figure written: its median over the %d passes\n",
           passCount);
  nlohmann::ordered_json collectives = medianOf(collectivePasses);
  nlohmann::ordered_json compute = medianOf(computePasses);

  nlohmann::ordered_json cluster;
  cluster["ranks_per_node"] = options.ranks;
  // The link figures are the all-reduce's (what propagation prices most);
  // the per-collective ones refine them for groups inside a node.
  cluster["intra_node"] = collectives["collectives"]["all_reduce"];
  cluster["inter_node"] = collectives["collectives"]["all_reduce"];
  for (auto &[key, value] : collectives.items())
    cluster[key] = value;
  for (auto &[key, value] : compute.items())
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
