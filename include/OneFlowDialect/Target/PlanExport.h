//===- PlanExport.h - Rank plans to the runtime's plan ----------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TARGET_PLANEXPORT_H
#define ONEFLOWDIALECT_TARGET_PLANEXPORT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::oneflow {

/// How a plan is written: protobuf binary, protobuf text format, or a
/// Graphviz graph of it (ofrt::planToDot).
enum class PlanFormat { Binary, Text, Dot };

/// Writes the oneflow_actor rank plans in `root` as one ofrt.proto.Plan
/// (lib/Runtime/Plan/plan.proto): one RankPlan per rank plan, ordered by
/// rank, the world size being the number of rank plans. Every attribute of
/// an actor's op becomes an AttrValue of the same name; what cannot be
/// converted is reported at the actor.
LogicalResult writePlan(Operation *root, llvm::raw_ostream &os,
                        PlanFormat format);

/// Registers `--export-plan` (binary), `--export-plan-text` and
/// `--export-plan-dot` with mlir-translate.
void registerPlanExportTranslations();

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_TARGET_PLANEXPORT_H
