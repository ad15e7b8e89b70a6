//===- Calibration.h - Measuring the cost model's figures -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The figures the layout search prices with (the cluster file of the
// compiler's CostModel.h), measured on this machine with N ranks as threads
// of this process, all at once, as of-run --devices cpu:N runs them:
//
//   per collective (all-reduce, reduce-scatter, all-gather, all-to-all) on
//   the N ranks, and on each axis of the given meshes (every group along
//   the axis at once): alpha and beta fitted to a small and a large call;
//   per actor: what one firing of a tiny kernel costs in the engine;
//   matmul throughput by size: the runtime's matmul kernel in the engine at
//   several sizes, the actor's cost taken off;
//   element-wise bandwidth: the runtime's add kernel on 1 MiB operands.
//
// of-calibrate writes them to a file; of-run --strategy auto without
// --cluster measures them on first use and keeps them in a cache per
// machine, library, rank and thread count (cachedCluster). Links the
// runtime, no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_CALIBRATION_H
#define OFRT_CALIBRATION_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ofrt {

struct CalibrationOptions {
  /// Ranks (threads of this process); at least 2.
  int ranks = 2;
  /// The collective library the ranks use (inproc, gloo).
  std::string library = "inproc";
  /// Threads of each rank's kernels (0: the library's default).
  int threads = 0;
  /// Runs of each measurement, spread over up to three passes of every
  /// figure: the best run of a pass counts, then the median of the passes.
  int repeats = 5;
  /// Bytes of the large collective call that fits beta.
  int64_t largeBytes = 16 << 20;
  /// Meshes of the ranks whose axes to measure the collectives on.
  std::vector<std::vector<int64_t>> meshes;
  /// Where the measured table goes, line by line (null: nowhere).
  std::FILE *report = nullptr;
};

/// The two-axis meshes of `ranks` the layout search tries (a x ranks/a for
/// every divisor a from 2 to ranks/2).
std::vector<std::vector<int64_t>> twoAxisMeshes(int ranks);

/// Checks `options`, measures and returns the cluster file's JSON text.
absl::StatusOr<std::string> calibrateCluster(const CalibrationOptions &options);

/// Writes `text` to `path` whole or not at all (a temporary file renamed
/// over it).
absl::Status writeFileWhole(const std::string &path, const std::string &text);

/// Where cached figures live: $OF_CACHE_DIR, else
/// $XDG_CACHE_HOME/oneflow-mlir, else $HOME/.cache/oneflow-mlir ("" when
/// none of them is set).
std::string clusterCacheDirectory();

struct CachedCluster {
  /// The cluster file to price with.
  std::string path;
  /// Whether this call measured it (else it was found in the cache).
  bool measured = false;
  /// Why it was measured: "none cached", "--recalibrate", or what was
  /// wrong with the cached file.
  std::string reason;
  /// Seconds the measuring took.
  double seconds = 0;
};

/// The cluster file for `options` (its library, ranks and threads; the
/// meshes are every two-axis mesh of the ranks) from the cache in
/// `directory`, measured and stored there when it is missing, corrupt,
/// of another format or from another machine, or when `recalibrate`.
/// `progress` gets one line before measuring and one after, each starting
/// with `program` ("of-run: measuring ...").
absl::StatusOr<CachedCluster> cachedCluster(CalibrationOptions options,
                                            const std::string &directory,
                                            bool recalibrate,
                                            std::FILE *progress,
                                            const std::string &program);

} // namespace ofrt

#endif // OFRT_CALIBRATION_H
