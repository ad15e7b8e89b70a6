//===- ConformanceValues.h - Inputs and expected values of the suite ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// What every rank of a conformance test sends and what it must get back,
// computed here independently of the libraries (the balanced split written
// out): shared by the host libraries' suite and the nccl suite.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOW_UNITTESTS_RUNTIME_COLLECTIVE_CONFORMANCEVALUES_H
#define ONEFLOW_UNITTESTS_RUNTIME_COLLECTIVE_CONFORMANCEVALUES_H

#include "ofrt/Tensor.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ofrt::conformance {

/// Balanced split, written out: the first length % parts get one more.
inline std::pair<int64_t, int64_t> chunkOf(int64_t length, int64_t parts,
                                           int64_t index) {
  int64_t base = length / parts, extra = length % parts;
  int64_t begin = index * base + std::min(index, extra);
  return {begin, base + (index < extra ? 1 : 0)};
}

/// Rank r's input element i: distinct, exact in every element type.
inline double valueOf(int rank, int64_t i) {
  return (rank + 1) * 100 + i % 1000;
}

template <typename T> struct TypeOf;
template <> struct TypeOf<float> { static constexpr DType value = DType::F32; };
template <> struct TypeOf<double> {
  static constexpr DType value = DType::F64;
};
template <> struct TypeOf<int32_t> {
  static constexpr DType value = DType::I32;
};
template <> struct TypeOf<int64_t> {
  static constexpr DType value = DType::I64;
};
template <> struct TypeOf<int8_t> { static constexpr DType value = DType::I8; };
template <> struct TypeOf<uint16_t> {
  static constexpr DType value = DType::F16;
};

template <typename T> std::vector<T> inputOf(int rank, int64_t count) {
  std::vector<T> values(count);
  for (int64_t i = 0; i < count; ++i)
    values[i] = static_cast<T>(valueOf(rank, i));
  return values;
}

template <typename T> T sumOver(int size, int64_t i) {
  double total = 0;
  for (int rank = 0; rank < size; ++rank)
    total += valueOf(rank, i);
  return static_cast<T>(total);
}

/// The first element of `got` that differs from `want`, or -1.
template <typename T>
int64_t firstDifference(const std::vector<T> &got,
                        const std::function<T(int64_t)> &want) {
  for (int64_t i = 0; i < static_cast<int64_t>(got.size()); ++i)
    if (got[i] != want(i))
      return i;
  return -1;
}

} // namespace ofrt::conformance

#endif // ONEFLOW_UNITTESTS_RUNTIME_COLLECTIVE_CONFORMANCEVALUES_H
