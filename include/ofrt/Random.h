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

#include "absl/status/status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ofrt {

/// The stream variable initializers draw from (no step reaches it).
inline constexpr uint64_t kInitStream = ~uint64_t(0);

/// The splitmix64 output function of `x`: a bijective 64-bit mix.
inline uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The key of (seed, stream); hoist it out of loops over indices.
inline uint64_t randomKey(uint64_t seed, uint64_t stream) {
  return splitmix64(splitmix64(seed) ^ stream);
}

/// 64 random bits for element `index` under `key`.
inline uint64_t randomBits(uint64_t key, uint64_t index) {
  return splitmix64(key ^ index);
}

/// 64 random bits for element `index` of `stream` under `seed`.
inline uint64_t randomBits(uint64_t seed, uint64_t stream, uint64_t index) {
  return randomBits(randomKey(seed, stream), index);
}

/// The top 53 bits of `bits` as a double in [0, 1).
inline double unitFromBits(uint64_t bits) {
  return static_cast<double>(static_cast<int64_t>(bits >> 11)) * 0x1.0p-53;
}

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
