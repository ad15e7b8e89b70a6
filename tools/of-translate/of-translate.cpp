//===- of-translate.cpp - OneFlow translation driver ----------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// mlir-translate for the oneflow dialect. Translations register themselves
// here: the layout report, plan export and the ONNX importer.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Target/LayoutReport.h"
#include "OneFlowDialect/Target/OnnxImport.h"
#include "OneFlowDialect/Target/PlanExport.h"

#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"

int main(int argc, char **argv) {
  mlir::oneflow::registerLayoutReportTranslation();
  mlir::oneflow::registerPlanExportTranslations();
  mlir::oneflow::registerOnnxImportTranslation();
  return mlir::failed(mlir::mlirTranslateMain(
             argc, argv, "OneFlow-MLIR translation driver\n"))
             ? 1
             : 0;
}
