//===- LayoutReport.h - Per-rank pieces of global tensors -------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TARGET_LAYOUTREPORT_H
#define ONEFLOWDIALECT_TARGET_LAYOUTREPORT_H

#include "mlir/IR/Operation.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::oneflow {

/// Writes, as JSON, every value in `root` whose type carries a
/// #oneflow.global encoding: where it is defined (and its name, for inputs
/// and variables), its logical shape, its
/// placement and nd-SBP, and for each rank the offsets and shape of the
/// piece that rank holds (balanced splits, mesh axes applied in order).
LogicalResult writeLayoutReport(Operation *root, llvm::raw_ostream &os);

/// Registers `--export-layouts-json` with mlir-translate.
void registerLayoutReportTranslation();

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_TARGET_LAYOUTREPORT_H
