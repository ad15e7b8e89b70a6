//===- RandomBits.h - The hash behind the counter-based random numbers ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The bits of Random.h's values, as host and device functions (CUDA
// kernels draw dropout masks with them, equal to the CPU kernel's): no
// library, so nvcc compiles it.
//
//===----------------------------------------------------------------------===//

#ifndef OFRT_RANDOMBITS_H
#define OFRT_RANDOMBITS_H

#include "ofrt/HostDevice.h"

#include <cstdint>

namespace ofrt {

inline constexpr uint64_t kInitStream = ~uint64_t(0);

/// The splitmix64 output function of `x`: a bijective 64-bit mix.
OFRT_HD inline uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// The key of (seed, stream); hoist it out of loops over indices.
OFRT_HD inline uint64_t randomKey(uint64_t seed, uint64_t stream) {
  return splitmix64(splitmix64(seed) ^ stream);
}

/// 64 random bits for element `index` under `key`.
OFRT_HD inline uint64_t randomBits(uint64_t key, uint64_t index) {
  return splitmix64(key ^ index);
}

/// 64 random bits for element `index` of `stream` under `seed`.
OFRT_HD inline uint64_t randomBits(uint64_t seed, uint64_t stream,
                                   uint64_t index) {
  return randomBits(randomKey(seed, stream), index);
}

/// The top 53 bits of `bits` as a double in [0, 1).
OFRT_HD inline double unitFromBits(uint64_t bits) {
  return static_cast<double>(static_cast<int64_t>(bits >> 11)) * 0x1.0p-53;
}

} // namespace ofrt

#endif // OFRT_RANDOMBITS_H
