//===- mlir-pipeline-fuzzer.cpp - libFuzzer target for programs -----------===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// Feeds each input to the MLIR parser as a OneFlow program and, when it
// parses and verifies, compiles it with oneflow-default-pipeline, exports
// the plan and loads it, as of-run does. Any outcome but a compiled module or
// reported errors (a crash, an abort, a sanitizer report, a hang) is a bug.
// Built when the compiler is clang or with -DONEFLOW_BUILD_FUZZERS=ON;
// bench/fuzz.sh builds and runs it.
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Actor/ActorDialect.h"
#include "OneFlowDialect/IR/OneFlowDialect.h"
#include "OneFlowDialect/Interfaces/ExternalModels.h"
#include "OneFlowDialect/Target/PlanExport.h"
#include "OneFlowDialect/Transforms/Passes.h"
#include "ofrt/Plan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::oneflow::OneFlowDialect,
                  mlir::oneflow::actor::OneFlowActorDialect,
                  mlir::func::FuncDialect>();
  mlir::oneflow::registerOneFlowExternalModels(registry);
  mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Errors are expected; keep them off stderr.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // The parser reads a NUL-terminated buffer (as a file's is).
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  mlir::oneflow::buildOneFlowDefaultPipeline(pm, {});
  if (mlir::failed(pm.run(*module)))
    return 0;
  std::string bytes;
  llvm::raw_string_ostream os(bytes);
  if (mlir::failed(mlir::oneflow::writePlan(*module, os,
                                            mlir::oneflow::PlanFormat::Binary)))
    return 0;
  (void)ofrt::parsePlan(os.str(), /*text=*/false, "fuzz.plan");
  return 0;
}
