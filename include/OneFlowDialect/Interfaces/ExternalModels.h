//===- ExternalModels.h - Gradient and cost rules of the ops ----*- C++ -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//
//
// The gradient and cost rules of the oneflow ops live outside the dialect,
// as external models of GradientInterface and CostInterface (library
// OneFlowExternalModels), registered through a DialectRegistry extension as
// upstream MLIR does it. OneFlowDialect promises both interfaces, so a tool
// that loads the dialect without registerOneFlowExternalModels stops with
// MLIR's "promised but never implemented" error at the first query instead
// of silently finding no rule.
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_INTERFACES_EXTERNALMODELS_H
#define ONEFLOWDIALECT_INTERFACES_EXTERNALMODELS_H

namespace mlir {
class DialectRegistry;
class MLIRContext;
} // namespace mlir

// The ops with a gradient rule, by the file that holds the rule
// (lib/Dialect/ExternalModels/<Kind>Gradients.cpp). The dialect promises
// GradientInterface for exactly these; the rules attach it.
#define ONEFLOW_MATH_GRADIENT_OPS                                              \
  AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp, NegOp, ScalarAddOp, \
      ScalarMulOp, ScalarDivOp, ScalarPowOp, ReluOp, TanhOp, SigmoidOp, ExpOp, \
      LogOp, SqrtOp, RsqrtOp, AbsOp, ErfOp, GeluOp, CastOp, WhereOp,           \
      MaskedFillOp, ReciprocalOp, SinOp, CosOp, FloorOp, CeilOp, RoundOp,      \
      SignOp, SoftplusOp, LeakyReluOp, EluOp, SeluOp, HardSigmoidOp, TanOp,    \
      AsinOp, AcosOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp
#define ONEFLOW_NN_GRADIENT_OPS                                                \
  MatmulOp, BatchMatmulOp, SoftmaxOp, LogSoftmaxOp,                            \
      SparseSoftmaxCrossEntropyOp, LayerNormOp, DropoutOp, RnnOp
#define ONEFLOW_SHAPE_GRADIENT_OPS                                             \
  ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceSumSquareOp, ReshapeOp,        \
      FlattenOp, TransposeOp, ConcatOp, SliceOp, GatherOp, GatherGradOp,       \
      GatherElementsOp, GatherElementsGradOp, TopKOp
#define ONEFLOW_CONV_GRADIENT_OPS                                              \
  Conv2DOp, Conv2DBackwardDataOp, MaxPool2DOp, AvgPool2DOp, GlobalAvgPool2DOp, \
      BatchNormOp, ResampleOp, ResampleGradOp

// The ops whose actors need a per-rank layout (RankLoweringInterface,
// lib/Dialect/ExternalModels/RankLayout.cpp), by the layout they get. The
// dialect promises the interface for exactly these; the rules attach it.
#define ONEFLOW_TRANSFER_LAYOUT_OPS TransferOp
#define ONEFLOW_COLLECTIVE_LAYOUT_OPS                                          \
  AllReduceOp, ReduceScatterOp, AllGatherOp, AllToAllOp
#define ONEFLOW_LOCAL_BOXING_LAYOUT_OPS LocalSliceOp, ToPartialOp
#define ONEFLOW_PIECE_LAYOUT_OPS                                               \
  OutputOp, InputOp, VariableOp, ConstantOp, FillOp, DropoutOp
#define ONEFLOW_INDEX_RANGE_LAYOUT_OPS                                         \
  GatherOp, GatherGradOp, GatherElementsOp, GatherElementsGradOp
#define ONEFLOW_DIVISOR_LAYOUT_OPS ReduceMeanOp
#define ONEFLOW_RANK_LOWERING_OPS                                              \
  ONEFLOW_TRANSFER_LAYOUT_OPS, ONEFLOW_COLLECTIVE_LAYOUT_OPS,                  \
      ONEFLOW_LOCAL_BOXING_LAYOUT_OPS, ONEFLOW_PIECE_LAYOUT_OPS,               \
      ONEFLOW_INDEX_RANGE_LAYOUT_OPS, ONEFLOW_DIVISOR_LAYOUT_OPS

namespace mlir::oneflow {

/// Adds to `registry` the extension that attaches, when the oneflow dialect
/// loads, CostInterface to every op, GradientInterface to the ops with a
/// gradient rule and RankLoweringInterface to those of
/// ONEFLOW_RANK_LOWERING_OPS. of-opt, of-run, of-check and tools that build
/// their own registry call it.
void registerOneFlowExternalModels(DialectRegistry &registry);

namespace detail {
/// The RankLoweringInterface models, next to the layout arithmetic they use
/// (lib/Dialect/ExternalModels/RankLayout.cpp); registerOneFlowExternalModels
/// calls it.
void attachRankLoweringModels(MLIRContext &context);
} // namespace detail

} // namespace mlir::oneflow

#endif // ONEFLOWDIALECT_INTERFACES_EXTERNALMODELS_H
