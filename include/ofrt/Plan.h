//===- Plan.h - Loading compiled plans --------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Reads a plan (lib/Runtime/Plan/plan.proto) in binary or text format,
// checks its version and converts each rank into a RankProgram.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_PLAN_H
#define OFRT_PLAN_H

#include "ofrt/Program.h"

namespace ofrt {

/// The plan schema version this runtime reads.
int64_t currentPlanVersion();

struct LoadedPlan {
  int64_t worldSize = 1;
  std::string source;
  std::vector<RankProgram> ranks;
};

/// `plan` as a Graphviz graph (DOT): a cluster per rank and per stream,
/// regsts as edges with their types and buffer counts, collectives and
/// transfers highlighted, sends joined to their receives.
std::string planToDot(const LoadedPlan &plan);

/// Parses `bytes` (binary, or text format when `text` is set); `what` names
/// the plan in messages. A plan of another version, a corrupt plan, one
/// whose references do not resolve, whose actors' roles do not fit their
/// ops, or whose ranks disagree on their collectives is an error saying so.
absl::StatusOr<LoadedPlan> parsePlan(const std::string &bytes, bool text,
                                     const std::string &what);

/// The binary plan `bytes` (read from `what`) in protobuf text format, the
/// form of .plantxt files and of-translate --export-plan-text (without the
/// binary form's checksum); an error, as parsePlan's, if it does not load.
absl::StatusOr<std::string> planToText(const std::string &bytes,
                                       const std::string &what);

/// The plan in text format `text` as a binary plan with its checksum, as
/// the compiler writes one; an error, as parsePlan's, if it does not load.
absl::StatusOr<std::string> planFromText(const std::string &text,
                                         const std::string &what);

/// Checks that the ranks of each group issue the same collectives in the
/// same order (their collective streams' orders): kind, reduction, element
/// type and, for all-reduces, element count. A plan whose ranks disagree
/// (edited, corrupted, or assembled from different programs) would hang or
/// compute wrong numbers; the error names the group, the call and the ranks.
absl::Status checkCollectivesAgree(const std::vector<RankProgram> &ranks);

/// The checksum a binary plan carries (plan.proto's `checksum`): FNV-1a
/// (64 bits) of the plan's deterministic serialization without it.
uint64_t planChecksum(const std::string &serialized);

/// A digest (16 hex digits) of every rank's collectives in order, with
/// their groups and operand types: processes of one job that compiled or
/// read their plans apart publish it at the rendezvous and must agree.
std::string collectivesDigest(const std::vector<RankProgram> &ranks);

/// Reads a plan file: text format for names ending in .plantxt, .pbtxt or
/// .txtpb, binary otherwise.
absl::StatusOr<LoadedPlan> loadPlanFile(const std::string &path);

} // namespace ofrt

#endif // OFRT_PLAN_H
