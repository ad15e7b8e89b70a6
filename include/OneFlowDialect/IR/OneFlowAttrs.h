//===- OneFlowAttrs.h - SBP, placement and encodings ------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWATTRS_H
#define ONEFLOWDIALECT_IR_ONEFLOWATTRS_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/TensorEncoding.h"

#include "ofsupport/Layout.h"

#include <optional>

#include "OneFlowDialect/IR/OneFlowEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "OneFlowDialect/IR/OneFlowAttrs.h.inc"

namespace mlir::oneflow {

/// The #oneflow.global encoding of `type`, or null if it has none.
GlobalAttr getGlobalEncoding(Type type);

/// On a program's function: how many micro-batches each step is split
/// into. Mesh axis 0 of every placement is then time, its coordinate the
/// micro-batch (docs/pipelines.md).
inline constexpr llvm::StringLiteral kMicroBatchesAttrName =
    "oneflow.micro_batches";

/// The micro-batches of the program `func` (1 without the attribute).
int64_t getMicroBatches(Operation *func);

/// On an op of a one-device program: the pipeline stage it runs in
/// (oneflow-assign-stages; docs/pipelines.md). Autodiff gives an op's
/// gradient ops its stage.
inline constexpr llvm::StringLiteral kStageAttrName = "oneflow.stage";

/// The stage `op` is marked with, if any.
std::optional<int64_t> getStage(Operation *op);

/// On a program's function: its pipeline stages (oneflow-apply-strategy),
/// stage s on device ranks [s * W / S, (s + 1) * W / S) of W, and how
/// their regsts are counted: "1f1b" (each stage keeps about as many
/// micro-batches alive as stages follow it) or "gpipe" (every micro-batch).
inline constexpr llvm::StringLiteral kStagesAttrName = "oneflow.stages";
inline constexpr llvm::StringLiteral kPipelineScheduleAttrName =
    "oneflow.pipeline_schedule";

/// The pipeline stages of the program `func` (1 without the attribute).
int64_t getStages(Operation *func);

/// On an op of a laid-out program: the placement its results go on when
/// no result states one (oneflow-apply-strategy with stages).
inline constexpr llvm::StringLiteral kPlacementAttrName = "oneflow.placement";

/// The MLIR-free description of a layout that the balanced-split helpers
/// and the runtime use.
ofsupport::Sbp toSupportSbp(SbpAttr sbp);
ofsupport::TensorLayout toSupportLayout(GlobalAttr global);
ofsupport::Reduction toSupportReduction(PartialReduction reduction);
PartialReduction fromSupportReduction(ofsupport::Reduction reduction);

/// Whether `sbps` has partial axes with different reductions, which no
/// nd-SBP may (NdSbpAttr's verifier says why).
inline bool mixesPartialReductions(llvm::ArrayRef<SbpAttr> sbps) {
  std::vector<ofsupport::Sbp> support;
  for (SbpAttr sbp : sbps)
    support.push_back(toSupportSbp(sbp));
  return ofsupport::mixesReductions(support);
}

/// Whether some mesh axis of `global` holds `global`'s tensor partial.
inline bool hasPartial(GlobalAttr global) {
  return llvm::any_of(global.getNdSbp().getSbps(),
                      [](SbpAttr sbp) { return sbp.isPartial(); });
}

/// Whether every partial axis of `global` is a partial sum (true when none
/// is partial).
inline bool hasOnlyPartialSums(GlobalAttr global) {
  return llvm::all_of(global.getNdSbp().getSbps(), [](SbpAttr sbp) {
    return !sbp.isPartial() || sbp.isPartialSum();
  });
}

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_IR_ONEFLOWATTRS_H
