//===- RankReport.h - What a rank sends rank 0 after its run ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Private to the multi-rank runner. A rank in another process reports its
// run to rank 0 over the control channel (pieces.proto): its steps and
// time, each step's load, its output pieces and variable values and, with
// a trace, its firings. Firings from a process on rank 0's host move onto
// rank 0's clock (each process reports its run's start on the host's
// steady clock); other hosts keep their own clock.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_LIB_RUNTIME_MULTIRANK_RANKREPORT_H
#define OFRT_LIB_RUNTIME_MULTIRANK_RANKREPORT_H

#include "ofrt/Checkpoint.h"
#include "ofrt/Engine.h"
#include "ofrt/Pieces.h"

#include <string>
#include <utility>
#include <vector>

namespace ofrt::multirank {

/// What one rank's run leaves behind.
struct RankState {
  absl::Status status;
  RunResult result;
  std::vector<std::pair<std::string, OutputPiece>> pieces;
  /// With collectVariables: the rank's variable values, in plan order
  /// (empty unless primary).
  std::vector<TensorData> variables;
  /// runRank: this process's host and its run's start on the steady clock.
  std::string host;
  int64_t epochNs = 0;
};

/// Rank `rank`'s report of `state`, serialized; its firings only with
/// `firings`.
std::string encodeReport(int rank, const RankState &state, bool firings);

/// Reads rank `rank`'s serialized report into `state` (the variables'
/// descriptions from `variables`, if given); `own` is rank 0's state,
/// whose clock firings from its host move onto. An error when it does not
/// parse.
absl::Status decodeReport(const std::string &bytes, int rank,
                          const std::vector<VariablePiece> *variables,
                          const RankState &own, RankState &state);

} // namespace ofrt::multirank

#endif // OFRT_LIB_RUNTIME_MULTIRANK_RANKREPORT_H
