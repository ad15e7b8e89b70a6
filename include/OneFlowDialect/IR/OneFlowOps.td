//===- OneFlowOps.td - All op families of the dialect ------*- tablegen -*-===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#ifndef ONEFLOWDIALECT_IR_ONEFLOWOPS_TD
#define ONEFLOWDIALECT_IR_ONEFLOWOPS_TD

include "OneFlowDialect/IR/OneFlowSourceOps.td"
include "OneFlowDialect/IR/OneFlowMathOps.td"
include "OneFlowDialect/IR/OneFlowMatmulOps.td"
include "OneFlowDialect/IR/OneFlowNNOps.td"
include "OneFlowDialect/IR/OneFlowConvOps.td"
include "OneFlowDialect/IR/OneFlowShapeOps.td"
include "OneFlowDialect/IR/OneFlowBoxingOps.td"
include "OneFlowDialect/IR/OneFlowTrainOps.td"
include "OneFlowDialect/IR/OneFlowRecurrentOps.td"
include "OneFlowDialect/IR/OneFlowGradOps.td"

#endif // ONEFLOWDIALECT_IR_ONEFLOWOPS_TD
