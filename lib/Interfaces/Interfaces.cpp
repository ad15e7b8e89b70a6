//===- Interfaces.cpp - SBP, gradient, cost and rank-lowering interfaces --===//
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#include "OneFlowDialect/Interfaces/CostInterface.h"
#include "OneFlowDialect/Interfaces/GradientInterface.h"
#include "OneFlowDialect/Interfaces/RankLoweringInterface.h"
#include "OneFlowDialect/Interfaces/SbpInterface.h"

using namespace mlir;
using namespace mlir::oneflow;

#include "OneFlowDialect/Interfaces/CostInterface.cpp.inc"
#include "OneFlowDialect/Interfaces/GradientInterface.cpp.inc"
#include "OneFlowDialect/Interfaces/RankLoweringInterface.cpp.inc"
#include "OneFlowDialect/Interfaces/SbpInterface.cpp.inc"
