//===- Random.cpp - Counter-based random numbers --------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "ofrt/Random.h"

#include <cmath>

using namespace ofrt;

double ofrt::randomNormal(uint64_t seed, uint64_t stream, uint64_t index) {
  uint64_t key = randomBits(seed, stream, index);
  // Two independent lanes of the same key; u1 is in (0, 1] so log is finite.
  double u1 = 1.0 - unitFromBits(splitmix64(key ^ 0x6A09E667F3BCC909ull));
  double u2 = unitFromBits(splitmix64(key ^ 0xBB67AE8584CAA73Bull));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

namespace {
struct KindInfo {
  const char *name;
  size_t numArgs;
  bool random;
  bool needsFans;
};
const KindInfo kKinds[] = {
    {"zeros", 0, false, false},         {"ones", 0, false, false},
    {"constant", 1, false, false},      {"uniform", 2, true, false},
    {"normal", 2, true, false},         {"xavier_uniform", 0, true, true},
    {"kaiming_uniform", 0, true, true},
};
const KindInfo *findKind(const std::string &name) {
  for (const KindInfo &kind : kKinds)
    if (name == kind.name)
      return &kind;
  return nullptr;
}
} // namespace

absl::Status ofrt::checkInitializer(const Initializer &init,
                                    const std::vector<int64_t> &shape,
                                    bool isFloat) {
  const KindInfo *kind = findKind(init.kind);
  if (!kind)
    return absl::InvalidArgumentError("unknown initializer '" + init.kind +
                                      "'");
  if (init.args.size() != kind->numArgs)
    return absl::InvalidArgumentError("initializer '" + init.kind + "' takes " +
                                      std::to_string(kind->numArgs) +
                                      " arguments, got " +
                                      std::to_string(init.args.size()));
  for (double arg : init.args)
    if (!std::isfinite(arg))
      return absl::InvalidArgumentError("initializer '" + init.kind +
                                        "' has a non-finite argument");
  if (init.kind == "uniform" && init.args[0] > init.args[1])
    return absl::InvalidArgumentError(
        "uniform initializer has low " + std::to_string(init.args[0]) +
        " above high " + std::to_string(init.args[1]));
  if (init.kind == "normal" && init.args[1] < 0)
    return absl::InvalidArgumentError("normal initializer has negative std " +
                                      std::to_string(init.args[1]));
  if (kind->random && !isFloat)
    return absl::InvalidArgumentError("initializer '" + init.kind +
                                      "' needs a floating-point variable");
  if (kind->needsFans) {
    if (shape.size() < 2)
      return absl::InvalidArgumentError(
          "initializer '" + init.kind +
          "' needs a variable of rank 2 or more, got rank " +
          std::to_string(shape.size()));
    int64_t fanIn, fanOut;
    initializerFans(shape, fanIn, fanOut);
    if (fanIn <= 0 || (init.kind == "xavier_uniform" && fanIn + fanOut <= 0))
      return absl::InvalidArgumentError("initializer '" + init.kind +
                                        "' needs a positive fan-in");
  }
  return absl::OkStatus();
}

void ofrt::initializerFans(const std::vector<int64_t> &shape, int64_t &fanIn,
                           int64_t &fanOut) {
  if (shape.size() < 2) {
    fanIn = fanOut = shape.empty() ? 1 : shape[0];
    return;
  }
  if (shape.size() == 2) {
    fanIn = shape[0];
    fanOut = shape[1];
    return;
  }
  int64_t receptive = 1;
  for (size_t i = 2; i < shape.size(); ++i)
    receptive *= shape[i];
  fanIn = shape[1] * receptive;
  fanOut = shape[0] * receptive;
}

double ofrt::initialValue(const Initializer &init,
                          const std::vector<int64_t> &shape, uint64_t seed,
                          uint64_t index) {
  const std::string &kind = init.kind;
  if (kind == "zeros")
    return 0.0;
  if (kind == "ones")
    return 1.0;
  if (kind == "constant")
    return init.args[0];
  if (kind == "normal")
    return init.args[0] + init.args[1] * randomNormal(seed, kInitStream, index);
  double low, high;
  if (kind == "uniform") {
    low = init.args[0];
    high = init.args[1];
  } else {
    int64_t fanIn, fanOut;
    initializerFans(shape, fanIn, fanOut);
    double bound = kind == "xavier_uniform"
                       ? std::sqrt(6.0 / static_cast<double>(fanIn + fanOut))
                       : std::sqrt(6.0 / static_cast<double>(fanIn));
    low = -bound;
    high = bound;
  }
  return low + (high - low) * randomUniform(seed, kInitStream, index);
}
