//===- Check.h - Parallel equals serial, as a library -----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What of-check does: runs multi-rank variants of a program (its own
// layouts, every op in each nd-SBP signature, random layouts on its
// sources) or of a boxing between two layouts on N ranks in this process,
// runs the program without layouts on one rank, and compares every output;
// or checks oneflow-autodiff against finite differences. One line per
// failing case (every case with `verbose`) goes to `report`.
//
//===----------------------------------------------------------------------===//

#ifndef OFCHECK_CHECK_H
#define OFCHECK_CHECK_H

#include "absl/status/statusor.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ofcheck {

struct CheckOptions {
  /// given (the program's own layouts), signatures, random, boxing (no
  /// program) or gradients.
  std::string mode = "given";
  /// Ranks, all in this process, and their mesh (empty: one axis).
  int64_t ranks = 2;
  std::vector<int64_t> mesh;
  /// random: the layouts tried; the seed of inputs and random layouts.
  int trials = 5;
  uint64_t seed = 0;
  /// boxing: the tensor's shape; with `cross`, also between placements;
  /// with `partialReductions`, only pairs with P(max) or P(min).
  std::vector<int64_t> shape = {5, 6};
  bool cross = false;
  bool partialReductions = false;
  /// Steps of each run and the collective library (inproc or gloo).
  int64_t steps = 2;
  std::string collectives = "inproc";
  /// Outputs agree when |got - serial| <= atol + rtol * |serial|.
  double rtol = 1e-4, atol = 1e-5;
  /// With `autodiff`, the program is checked with the gradients of `loss`
  /// appended; gradients: perturbation and tolerances of the differences.
  bool autodiff = false;
  std::string loss = "loss";
  double eps = 1e-2, gradRtol = 2e-2, gradAtol = 1e-3;
  bool verbose = false;
  FILE *report = stdout;
};

/// Checks the options' values (modes, counts, tolerances); the messages
/// name them as of-check's flags.
absl::Status checkOptions(const CheckOptions &options);

struct CheckResult {
  int passed = 0, failed = 0;
  /// Cases run again after their group failed to connect.
  int retried = 0;
};

/// Checks the program in the .mlir file `path` (empty for mode boxing).
/// Diagnostics of a program that does not parse go to stderr.
absl::StatusOr<CheckResult> check(const std::string &path,
                                  const CheckOptions &options);

} // namespace ofcheck

#endif // OFCHECK_CHECK_H
