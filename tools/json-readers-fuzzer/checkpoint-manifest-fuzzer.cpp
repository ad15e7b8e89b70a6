//===- checkpoint-manifest-fuzzer.cpp - libFuzzer target for manifests ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to the runtime's checkpoint manifest reader
// (nlohmann::json, what --resume opens); a manifest it accepts is checked
// against a program's variables too. Any outcome but a reader or an error
// (a crash, an abort, a sanitizer report, a hang) is a bug. Links no MLIR;
// bench/fuzz.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "ofrt/Checkpoint.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  absl::StatusOr<std::unique_ptr<ofrt::CheckpointReader>> reader =
      ofrt::CheckpointReader::fromManifest(text, "fuzz-checkpoint");
  if (reader.ok())
    (void)(*reader)->checkAgainst(
        {{"w", ofrt::TensorDesc{ofrt::DType::F32, {2, 3}}}}, true);
  return 0;
}
