//===- of-calibrate.cpp - Measure the cost model's cluster figures --------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Writes the cluster file that oneflow-auto-parallel, oneflow-sbp-propagation
// and oneflow-report-boxing-cost read (CostModel.h), measured on this
// machine with N ranks as threads of this process, all at once, as of-run
// --devices cpu:N runs them (ofrt/Calibration.h says what is measured).
// With --mesh 2x2 (any mesh of the N ranks in order), the collectives also
// per mesh axis. Each figure is the median over up to three passes of the
// best of their runs (--repeats runs in all). Links the
// runtime, no MLIR.
//
//===----------------------------------------------------------------------===//

#include "ToolFlags.h"

#include "ofdriver/Options.h"
#include "ofrt/Calibration.h"

#include "absl/flags/flag.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

// The defaults are the calibration's own.
static const ofrt::CalibrationOptions kCalibration;

ABSL_FLAG(int, ranks, kCalibration.ranks, "Ranks (threads of this process) to measure with");
ABSL_FLAG(std::string, out, "", "The cluster file to write (JSON)");
ABSL_FLAG(std::string, library, kCalibration.library,
          "The collective library: inproc (as of-run's in-process ranks) or "
          "gloo");
ABSL_FLAG(int, threads, kCalibration.threads,
          "Threads for each rank's kernels (0: the library's default), as "
          "of-run --threads");
ABSL_FLAG(int, repeats, kCalibration.repeats,
          "Runs of each measurement, over up to three passes of every figure "
          "(the best run of a pass, the median of the passes)");
ABSL_FLAG(int64_t, large_bytes, kCalibration.largeBytes,
          "Bytes of the large collective call that fits beta");
ABSL_FLAG(std::vector<std::string>, mesh, {},
          "Meshes of the ranks (for example 2x2) whose axes to measure the "
          "collectives on, each axis's groups at once");

static int fail(const std::string &message) {
  std::fprintf(stderr, "of-calibrate: error: %s\n", message.c_str());
  return 1;
}

int main(int argc, char **argv) {
  ofdriver::setProgramName("of-calibrate");
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
  ofrt::CalibrationOptions options;
  options.ranks = absl::GetFlag(FLAGS_ranks);
  options.library = absl::GetFlag(FLAGS_library);
  options.threads = absl::GetFlag(FLAGS_threads);
  options.repeats = absl::GetFlag(FLAGS_repeats);
  options.largeBytes = absl::GetFlag(FLAGS_large_bytes);
  options.report = stdout;
  std::string out = absl::GetFlag(FLAGS_out);
  // The options themselves are checked by calibrateCluster.
  if (out.empty())
    return fail("--out names the cluster file to write; it is required");
  for (const std::string &text : absl::GetFlag(FLAGS_mesh)) {
    absl::StatusOr<ofdriver::Mesh> mesh =
        ofdriver::parseMesh(text, options.ranks, "--mesh", "--ranks");
    if (!mesh.ok())
      return fail(std::string(mesh.status().message()));
    options.meshes.push_back(mesh->sizes);
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

  absl::StatusOr<std::string> cluster = ofrt::calibrateCluster(options);
  if (!cluster.ok())
    return fail(std::string(cluster.status().message()));
  if (absl::Status written = ofrt::writeFileWhole(out, *cluster);
      !written.ok())
    return fail("--out " + std::string(written.message()));
  std::printf("wrote %s\n", out.c_str());
  return 0;
}
