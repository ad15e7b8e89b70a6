//===- strategy-file-fuzzer.cpp - libFuzzer target for strategy files -----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to the strategy-file reader (llvm::json: what
// --strategy FILE goes through in oneflow-apply-strategy, and its "stages"
// and "recompute" keys in oneflow-assign-stages and
// oneflow-activation-checkpointing), for the device count of the input's
// first byte (1 to 64), and matches each rule it accepts against a name.
// Any outcome but a strategy or an error (a crash, an abort, a sanitizer
// report, a hang) is a bug. Built with the other fuzz targets;
// bench/fuzz.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "Strategy.h"

#include "OneFlowDialect/IR/OneFlowDialect.h"

#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    auto *context = new mlir::MLIRContext();
    context->loadDialect<mlir::oneflow::OneFlowDialect>();
    return context;
  }();
  int64_t devices = size ? 1 + data[0] % 64 : 1;
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  std::string error;
  std::optional<mlir::oneflow::Strategy> strategy =
      mlir::oneflow::parseStrategyText(context, "fuzz.json", text, devices,
                                       error);
  if (strategy)
    for (const auto &rule : strategy->inputs)
      (void)rule.matches("tokens");
  error.clear();
  if (auto stages =
          mlir::oneflow::parseStageRulesText("fuzz.json", text, error))
    for (const auto &rule : *stages)
      (void)rule.matches("h0.w");
  error.clear();
  (void)mlir::oneflow::parseRecomputeRulesText("fuzz.json", text, error);
  return 0;
}
