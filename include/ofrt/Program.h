//===- Program.h - One rank's plan, as the engine runs it -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The in-memory form of one rank of a plan: actors, regsts and streams.
// Plans are loaded from the protobuf schema (Plan.h); tests build these
// structs by hand.
//
// Semantics:
// - A regst has `count` buffers of `desc`; step s uses buffer s % count. Its
//   producer may write step s once every consumer has returned step
//   s - count; a consumer may read step s once the producer has written it.
//   Back-pressure and overlap come from these counts alone.
// - A stream is one thread that runs its actors in `actors` order, step
//   after step, each actor waiting until it may fire (like an in-order
//   device stream). Actors on different streams overlap as far as the
//   regsts between them allow.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_PROGRAM_H
#define OFRT_PROGRAM_H

#include "ofrt/Kernel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ofrt {

/// The most buffers one regst may have (a plan's counts are checked
/// against it, so that byte sums cannot overflow).
constexpr int64_t kMaxRegstCount = 4096;

struct RegstSpec {
  int64_t id = 0;
  TensorDesc desc;
  int64_t count = 1;
  int64_t producer = -1;
  std::vector<int64_t> consumers;
  /// Offset of buffer 0 in the rank's arena, or -1 to allocate separately.
  int64_t offset = -1;
};

struct ActorSpec {
  int64_t id = 0;
  /// The op, its attributes and the descs of its regsts; `op.name` is the
  /// actor's name and `op.location` the op's source location.
  OpDesc op;
  std::string stream = "compute";
  std::vector<int64_t> inputs;  ///< Regst ids, in operand order.
  std::vector<int64_t> outputs; ///< Regst ids, in result order.
  /// Times the actor fires per step (more than 1 with micro-batches).
  int64_t firingsPerStep = 1;
  /// Firings that make one output: 1, or for an accumulation the number
  /// of inputs it sums into each output.
  int64_t firingsPerOutput = 1;

  /// Items each output regst gets per step.
  int64_t outputsPerStep() const { return firingsPerStep / firingsPerOutput; }
};

struct StreamSpec {
  std::string name;
  /// Actor ids in execution order: one step's firings (an actor that fires
  /// n times per step is listed n times).
  std::vector<int64_t> actors;
};

struct RankProgram {
  int64_t rank = 0;
  DeviceKind device = DeviceKind::Cpu;
  int deviceOrdinal = 0;
  std::vector<ActorSpec> actors;
  std::vector<RegstSpec> regsts;
  std::vector<StreamSpec> streams;
  int64_t arenaBytes = 0; ///< Planned arena size; 0 when nothing is planned.

  const ActorSpec *findActor(int64_t id) const;
  const RegstSpec *findRegst(int64_t id) const;
};

/// Checks that `program` is runnable: unique ids, every reference resolves,
/// producers and consumers agree with the actors' inputs and outputs, each
/// actor is on exactly one stream, counts are at least 1, buffers fit the
/// arena, and the data edges plus the stream orders have no cycle (which
/// would deadlock). The error names the offending actor or regst.
absl::Status validateProgram(const RankProgram &program);

/// Byte size of one buffer of `desc` in an arena (rounded up to 64).
int64_t alignedBytes(const TensorDesc &desc);

} // namespace ofrt

#endif // OFRT_PROGRAM_H
