//===- OnnxImport.h - ONNX models to the oneflow dialect --------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The ONNX importer: a serialized ModelProto (opsets 13 to 17) becomes a
// `func.func @main` of `oneflow` ops. Initializers become variables holding
// their values, graph inputs `oneflow.input`, graph outputs `oneflow.output`;
// constant shape computations fold away.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TARGET_ONNXIMPORT_H
#define ONEFLOWDIALECT_TARGET_ONNXIMPORT_H

#include "OneFlowDialect/IR/OneFlowAttrs.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <optional>
#include <string>

namespace mlir {
class DialectRegistry;
namespace oneflow {

struct OnnxImportOptions {
  /// When above 1, inputs are split along axis 0 over this many CPU ranks
  /// (broadcast where axis 0 is shorter) and variables broadcast: a
  /// data-parallel program that SBP propagation completes.
  int64_t dataParallelRanks = 1;
  /// The ranks' device kind.
  DeviceKind device = DeviceKind::cpu;
  /// "cross_entropy": add an int64 input `labels` (the logits' shape without
  /// the class axis) and an output "loss", the mean sparse softmax
  /// cross-entropy of the model's one output; empty: none.
  std::string loss;
  std::string labels = "labels";
  /// Sizes of symbolic dimensions of the graph's inputs and outputs, by
  /// name (a batch exported as "N"); naming one the model lacks is an
  /// error.
  std::map<std::string, int64_t> dims;
};

/// Parses "NAME=SIZE" (--onnx-dim) into `dims`; an error message otherwise.
std::optional<std::string> parseOnnxDim(llvm::StringRef spec,
                                        std::map<std::string, int64_t> &dims);

/// Imports the model serialized in `bytes`; `filename` names it in errors.
/// Reports errors through `context`'s diagnostic handlers and returns null.
OwningOpRef<ModuleOp> importOnnxModel(llvm::StringRef bytes,
                                      llvm::StringRef filename,
                                      MLIRContext *context,
                                      const OnnxImportOptions &options = {});

/// The dialects an imported module uses.
void registerOnnxImportDialects(DialectRegistry &registry);

/// Registers `--import-onnx` (and its option `--import-onnx-ranks`) with
/// mlir-translate.
void registerOnnxImportTranslation();

} // namespace oneflow
} // namespace mlir

#endif // ONEFLOWDIALECT_TARGET_ONNXIMPORT_H
