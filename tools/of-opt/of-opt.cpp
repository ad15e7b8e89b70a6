//===- of-opt.cpp - OneFlow optimizer driver ------------------------------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// mlir-opt for the oneflow dialect: our dialects and passes, the upstream
// passes that pipelines use (canonicalize, cse, ...), and the standard
// options (--pass-pipeline, --mlir-print-ir-after-all, --verify-diagnostics,
// --load-pass-plugin, --load-dialect-plugin).
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::oneflow::OneFlowDialect,
                  mlir::oneflow::actor::OneFlowActorDialect,
                  mlir::func::FuncDialect, mlir::arith::ArithDialect>();
  mlir::oneflow::registerOneFlowExternalModels(registry);

  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  mlir::registerInlinerPass();
  mlir::registerSymbolDCEPass();
  mlir::registerPrintOpStatsPass();
  mlir::registerViewOpGraphPass(); // --view-op-graph: the graph as DOT.
  mlir::oneflow::registerOneFlowPasses();
  mlir::oneflow::registerOneFlowPipelines();

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "OneFlow-MLIR optimizer driver\n", registry));
}
