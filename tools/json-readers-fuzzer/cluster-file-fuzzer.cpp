//===- cluster-file-fuzzer.cpp - libFuzzer target for cluster files -------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to the cost model's cluster-file reader (llvm::json:
// what --cluster files, of-calibrate's output and of-run's cache of measured
// figures go through); a reader that accepts it then prices a figure from
// it. Any outcome but figures or an error (a crash, an abort, a sanitizer
// report, a hang) is a bug. Built with the other fuzz targets; bench/fuzz.sh
// builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Analysis/CostModel.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string error;
  mlir::FailureOr<mlir::oneflow::ClusterDesc> cluster =
      mlir::oneflow::ClusterDesc::parse(text, "fuzz.json", error);
  if (succeeded(cluster)) {
    (void)cluster->flopsPerSecond(1e6);
    (void)cluster->bytesPerSecond(1e6);
    (void)cluster->linkFor({0, 1});
  }
  return 0;
}
