//===- ClusterCache.cpp - Measured figures kept per machine ---------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// A cached cluster file is the calibration's JSON with two more keys:
// "format" (this file's version of the figures) and "identity" (the
// machine and set-up it was measured for). A file that fails to parse, is
// of another format, lacks a figure or holds one that is not a finite
// positive number, or names another identity is measured again, never
// trusted.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Backend.h"
#include "ofrt/Calibration.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ofrt;
using Json = nlohmann::ordered_json;

/// Bumped whenever the calibration measures something else (2: "op_rates").
static constexpr int kFormat = 2;

/// The processor's name, from /proc/cpuinfo.
static std::string processorName() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      if (colon != std::string::npos)
        return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

/// What a cached file was measured for: host name, processor, allowed cores,
/// the CPU kernels' libraries and ISA, and the set-up.
static Json identityOf(const CalibrationOptions &options) {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0)
    host[0] = '\0';
  std::string kernels = "unknown";
  if (absl::StatusOr<const Backend *> cpu = findBackend(DeviceKind::Cpu);
      cpu.ok())
    if (absl::StatusOr<std::vector<std::string>> lines = (*cpu)->listDevices();
        lines.ok() && !lines->empty())
      kernels = lines->front();
  return Json{{"host", host},
              {"processor", processorName()},
              {"cores", allowedCores().size()},
              {"cpu", kernels},
              {"library", options.library},
              {"ranks", options.ranks},
              {"threads", options.threads}};
}

std::string ofrt::clusterCacheDirectory() {
  if (const char *dir = std::getenv("OF_CACHE_DIR"); dir && *dir)
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/oneflow-mlir";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/oneflow-mlir";
  return "";
}

/// Where in `value` (at `path`) the first figure is that is not finite or
/// is negative, or a rate, bandwidth or size that is 0 ("" if none): rates by
/// size, per collective and per op included, so that a corrupt table is
/// measured again rather than refused by the cost model.
static std::string badNumber(const Json &value, const std::string &path) {
  if (value.is_number()) {
    double x = value.get<double>();
    bool rate = false;
    for (const char *name :
         {"rate", "beta", "flops", "bytes", "memory_bandwidth"}) {
      size_t n = std::strlen(name);
      rate |= path.size() >= n && path.compare(path.size() - n, n, name) == 0;
    }
    return std::isfinite(x) && x >= 0 && !(rate && x == 0) ? "" : path;
  }
  if (value.is_object())
    for (const auto &[key, field] : value.items())
      if (std::string bad = badNumber(field, path + "." + key); !bad.empty())
        return bad;
  if (value.is_array())
    for (size_t i = 0; i < value.size(); ++i)
      if (std::string bad =
              badNumber(value[i], path + "[" + std::to_string(i) + "]");
          !bad.empty())
        return bad;
  return "";
}

/// What is wrong with the cached `text` for `identity` ("" if nothing).
static std::string cacheProblem(const std::string &text, const Json &identity,
                                bool meshes) {
  Json cached = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (cached.is_discarded() || !cached.is_object())
    return "it is not a JSON object (corrupt)";
  if (cached.value("format", 0) != kFormat)
    return "it holds another format of the figures";
  const Json &was = cached.contains("identity") ? cached["identity"] : Json();
  if (was != identity) {
    std::string host = was.is_object() && was.contains("host") &&
                               was["host"].is_string()
                           ? was["host"].get<std::string>()
                           : "?";
    return "it was measured on another machine or set-up (host '" + host +
           "'; this is '" + identity["host"].get<std::string>() + "')";
  }
  std::vector<std::string> keys = {"collectives",      "op_overhead",
                                   "memory_bandwidth", "flops",
                                   "matmul_flops",     "op_rates"};
  if (meshes)
    keys.push_back("mesh_axes");
  for (const std::string &key : keys)
    if (!cached.contains(key))
      return "it has no '" + key + "' (corrupt)";
  for (const auto &[key, value] : cached.items()) {
    if (key == "format" || key == "identity")
      continue;
    std::string bad = badNumber(value, key);
    if (!bad.empty())
      return "its '" + bad + "' is not a finite positive number (corrupt)";
  }
  return "";
}

absl::StatusOr<CachedCluster> ofrt::cachedCluster(CalibrationOptions options,
                                                  const std::string &directory,
                                                  bool recalibrate,
                                                  std::FILE *progress,
                                                  const std::string &program) {
  options.meshes = twoAxisMeshes(options.ranks);
  options.report = nullptr;
  std::string dir = directory;
  if (dir.empty())
    dir = (std::filesystem::temp_directory_path() /
           ("oneflow-mlir-" + std::to_string(getuid())))
              .string();
  CachedCluster found;
  found.path = dir + "/cluster-" + options.library + "-" +
               std::to_string(options.ranks) + "ranks-" +
               std::to_string(options.threads) + "threads.json";
  Json identity = identityOf(options);
  found.reason = "--recalibrate";
  if (!recalibrate) {
    std::ifstream file(found.path);
    if (!file) {
      found.reason = "none is cached";
    } else {
      std::stringstream text;
      text << file.rdbuf();
      found.reason =
          cacheProblem(text.str(), identity, !options.meshes.empty());
      if (found.reason.empty())
        return found;
      found.reason = "the cached figures are not used: " + found.reason;
    }
  }
  if (progress)
    std::fprintf(progress,
                 "%s: measuring this machine's figures for --strategy "
                 "auto (%s, %d ranks; %s), once: they are cached in %s\n",
                 program.c_str(), options.library.c_str(), options.ranks, found.reason.c_str(),
                 found.path.c_str());
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::string> measured = calibrateCluster(options);
  if (!measured.ok())
    return absl::Status(measured.status().code(),
                        "measuring the figures of --strategy auto: " +
                            std::string(measured.status().message()));
  Json cluster = Json::parse(*measured);
  Json cached = {{"format", kFormat}, {"identity", identity}};
  for (auto &[key, value] : cluster.items())
    cached[key] = value;
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made)
    return absl::UnavailableError("cannot make the cache directory '" + dir +
                                  "': " + made.message());
  if (absl::Status written = writeFileWhole(found.path, cached.dump(2) + "\n");
      !written.ok())
    return written;
  found.measured = true;
  found.seconds = std::chrono::duration<double>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  if (progress)
    std::fprintf(progress, "%s: measured in %.1f s\n", program.c_str(),
                 found.seconds);
  return found;
}
