//===- onnx-import-fuzzer.cpp - libFuzzer target for the ONNX importer ----===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to importOnnxModel as the bytes of a model file. Any
// outcome but a module or reported errors (a crash, an abort, a sanitizer
// report, a hang) is a bug. Built when the compiler is clang or with
// -DONEFLOW_BUILD_FUZZERS=ON; bench/fuzz.sh onnx builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Target/OnnxImport.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  mlir::oneflow::registerOnnxImportDialects(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  // Errors are expected; keep them off stderr.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  for (int64_t ranks : {1, 2}) {
    mlir::oneflow::OnnxImportOptions options;
    options.dataParallelRanks = ranks;
    (void)mlir::oneflow::importOnnxModel(bytes, "fuzz.onnx", &context, options);
  }
  return 0;
}
