//===- of-translate.cpp - OneFlow translation driver ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// mlir-translate for the oneflow dialect. Translations register themselves
// here: the layout report now, the ONNX importer and plan export later.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Target/LayoutReport.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::oneflow::registerLayoutReportTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "OneFlow-MLIR translation driver\n"))
             ? 1
             : 0;
}
