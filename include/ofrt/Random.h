//===- Random.h - Counter-based random numbers ------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Random values that are pure functions of (seed, stream, logical element
// index): no generator state, so a tensor's values do not depend on how it
// is laid out, sharded or split between threads. A rank that holds a piece
// of a global tensor computes exactly the values the whole tensor would
// have at those logical indices.
//
// Streams separate independent uses of one seed: dropout draws from
// stream = step; variable initializers draw from kInitStream.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_RANDOM_H
#define OFRT_RANDOM_H

#include "ofrt/RandomBits.h"

#include "absl/status/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ofrt {

/// The stream variable initializers draw from (no step reaches it).
/// A uniform double in [0, 1) (53 random bits).
inline double randomUniform(uint64_t seed, uint64_t stream, uint64_t index) {
  return unitFromBits(randomBits(seed, stream, index));
}

/// A standard normal double (Box-Muller from two independent hashes).
double randomNormal(uint64_t seed, uint64_t stream, uint64_t index);

/// A variable initializer, as the dialect's `#oneflow.init<kind(args)>`:
/// kind is "zeros", "ones", "constant" (value), "uniform" (low, high),
/// "normal" (mean, std), "xavier_uniform" or "kaiming_uniform".
struct Initializer {
  std::string kind;
  std::vector<double> args;
};

/// Checks the kind, its arguments and that it suits a variable of logical
/// `shape` (random kinds need `isFloat`, fan-based kinds rank 2 or more).
/// The message does not name the op; callers prefix it.
absl::Status checkInitializer(const Initializer &init,
                              const std::vector<int64_t> &shape, bool isFloat);

/// Fan-in and fan-out of a weight of logical `shape` (rank >= 2). Rank 2 is
/// [in, out] (the x @ W convention); rank >= 3 is [F, C, k...] with
/// fan_in = C * prod(k) and fan_out = F * prod(k).
void initializerFans(const std::vector<int64_t> &shape, int64_t &fanIn,
                     int64_t &fanOut);

/// The initial value of the element at row-major `index` of a variable of
/// logical `shape` (checked with checkInitializer first).
double initialValue(const Initializer &init, const std::vector<int64_t> &shape,
                    uint64_t seed, uint64_t index);

} // namespace ofrt

#endif // OFRT_RANDOM_H
