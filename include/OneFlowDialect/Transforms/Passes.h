//===- Passes.h - OneFlow passes --------------------------------*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_TRANSFORMS_PASSES_H
#define ONEFLOWDIALECT_TRANSFORMS_PASSES_H

#include "OneFlowDialect/Actor/ActorOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::oneflow {

//===----------------------------------------------------------------------===//
// Passes
//===----------------------------------------------------------------------===//

#define GEN_PASS_DECL
#include "OneFlowDialect/Transforms/Passes.h.inc" // IWYU pragma: keep

//===----------------------------------------------------------------------===//
// Pipelines
//===----------------------------------------------------------------------===//

/// Options of `oneflow-default-pipeline`.
struct OneFlowPipelineOptions
    : public PassPipelineOptions<OneFlowPipelineOptions> {
  Option<int64_t> regstCount{
      *this, "regst-count",
      llvm::cl::desc("Buffers per regst (oneflow-lower-to-actor-graph)"),
      llvm::cl::init(1)};
};

/// From a program of `oneflow` ops to planned rank plans:
/// func.func(oneflow-infer-shapes, oneflow-fuse-conv-bn-act,
/// oneflow-conv-blocked-layouts), oneflow-lower-to-actor-graph,
/// oneflow_actor.rank_plan(oneflow-plan-memory).
void buildOneFlowDefaultPipeline(OpPassManager &pm,
                                 const OneFlowPipelineOptions &options);

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

#define GEN_PASS_REGISTRATION
#include "OneFlowDialect/Transforms/Passes.h.inc" // IWYU pragma: keep

/// Registers `oneflow-default-pipeline`.
void registerOneFlowPipelines();

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_TRANSFORMS_PASSES_H
