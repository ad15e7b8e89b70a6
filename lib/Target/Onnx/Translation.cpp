//===- Translation.cpp - Register --import-onnx with mlir-translate ------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Target/OnnxImport.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::opt<int64_t> importRanks(
    "import-onnx-ranks",
    llvm::cl::desc("With --import-onnx: split inputs along axis 0 over this "
                   "many CPU ranks (data parallel); 1 leaves layouts out"),
    llvm::cl::init(1));

static llvm::cl::opt<std::string> importDevice(
    "import-onnx-device",
    llvm::cl::desc("With --import-onnx-ranks: the ranks' device kind, cpu or "
                   "cuda"),
    llvm::cl::init("cpu"));

static llvm::cl::opt<std::string> importLoss(
    "import-onnx-loss",
    llvm::cl::desc("With --import-onnx: attach this loss to the model's "
                   "output (cross_entropy) as an output \"loss\""),
    llvm::cl::init(""));

static llvm::cl::opt<std::string> importLabels(
    "import-onnx-labels",
    llvm::cl::desc("With --import-onnx-loss: the name of the labels input"),
    llvm::cl::init("labels"));

static llvm::cl::list<std::string> onnxDims(
    "onnx-dim",
    llvm::cl::desc("With --import-onnx: the size of a symbolic dimension of "
                   "the model's inputs and outputs, NAME=SIZE (repeat for "
                   "several)"));

void mlir::oneflow::registerOnnxImportTranslation() {
  TranslateToMLIRRegistration registration(
      "import-onnx", "import an ONNX model (opsets 13 to 17)",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        OnnxImportOptions options;
        if (importRanks < 1) {
          emitError(UnknownLoc::get(context))
              << "--import-onnx-ranks must be at least 1";
          return nullptr;
        }
        options.dataParallelRanks = importRanks;
        std::optional<DeviceKind> device = symbolizeDeviceKind(importDevice);
        if (!device) {
          emitError(UnknownLoc::get(context))
              << "--import-onnx-device '" << importDevice
              << "' is not cpu or cuda";
          return nullptr;
        }
        options.device = *device;
        options.loss = importLoss;
        options.labels = importLabels;
        for (const std::string &spec : onnxDims)
          if (std::optional<std::string> error =
                  parseOnnxDim(spec, options.dims)) {
            emitError(UnknownLoc::get(context)) << *error;
            return nullptr;
          }
        return importOnnxModel(buffer->getBuffer(),
                               buffer->getBufferIdentifier(), context, options);
      },
      [](DialectRegistry &registry) { registerOnnxImportDialects(registry); });
}
