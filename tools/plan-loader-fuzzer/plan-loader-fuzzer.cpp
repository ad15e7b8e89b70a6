//===- plan-loader-fuzzer.cpp - libFuzzer target for the plan loader ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to the runtime's plan loader as a binary and as a text
// plan; a plan that loads is drawn as a graph too. Any outcome but a plan
// or an error status (a crash, an abort, a sanitizer report, a hang) is a
// bug. Built when the compiler is clang or with -DONEFLOW_BUILD_FUZZERS=ON;
// bench/fuzz.sh builds and runs it. Links no MLIR.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Plan.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string bytes(reinterpret_cast<const char *>(data), size);
  for (bool text : {false, true}) {
    absl::StatusOr<ofrt::LoadedPlan> plan =
        ofrt::parsePlan(bytes, text, "fuzz.plan");
    if (plan.ok())
      (void)ofrt::planToDot(*plan);
  }
  return 0;
}
